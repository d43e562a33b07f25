/**
 * The names Kubernetes gives objects, as schemas: what a Project, Workspace, Rollout or VariableSet may
 * be called (platform-kinds.ts) and what a route's `{name}` parameters accept (routes/path-parameters.ts).
 */
export interface NameSchema {
  type: 'string';
  pattern: string;
  maxLength: number;
  description: string;
}

/** A Kubernetes DNS-1123 label: namespaces, and so Projects (a Project owns the namespace of its name). */
export const DNS_LABEL: NameSchema = {
  type: 'string',
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  maxLength: 63,
  description:
    'A lowercase RFC 1123 label: lower case alphanumeric characters or `-`, starting and ending with an alphanumeric character, at most 63 characters.',
};

/** A Kubernetes DNS-1123 subdomain: the names of Workspaces, Rollouts and VariableSets. */
export const DNS_SUBDOMAIN: NameSchema = {
  type: 'string',
  pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  maxLength: 253,
  description:
    'A lowercase RFC 1123 subdomain: lower case alphanumeric characters, `-` or `.`, starting and ending with an alphanumeric character, at most 253 characters.',
};
