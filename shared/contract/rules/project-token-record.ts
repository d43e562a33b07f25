// A Project token as the token list answers it (docs/tokens.md), declared once: the server answers it,
// the plugin and the console read it (browser-safe).

/** What the token list shows of one Project token: never the token itself. */
export interface ProjectTokenRecord {
  name: string;
  description: string;
  /** `Role/<name>` or `ClusterRole/<name>`, bound in the Project's namespace. */
  role: string;
  creator: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
}
