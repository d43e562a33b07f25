/** A ServiceAccount by namespace and name. */
export interface ServiceAccountName {
  namespace: string;
  name: string;
}

/** Claim name → the values that admit a user. */
export type ClaimRules = Map<string, Set<string>>;

/** The annotation names that carry claim rules, for one API group. */
export interface ClaimAnnotationNames {
  /** `<api_group>/claims`: a JSON object of claim name to a value or a list of values. */
  claims: string;
  /** `<api_group>/claim.`: followed by the claim name; the value is a comma-separated list. */
  claimPrefix: string;
}

/** The annotation names for an API group. */
export function claimAnnotationNames(apiGroup: string): ClaimAnnotationNames {
  return { claims: `${apiGroup}/claims`, claimPrefix: `${apiGroup}/claim.` };
}

/**
 * Reads a ServiceAccount's claim rules from its annotations. Both forms may be used together;
 * their values add up. An unreadable annotation is reported in `problems` and contributes nothing.
 */
export function claimRulesFromAnnotations(
  annotations: Record<string, string> | undefined,
  names: ClaimAnnotationNames,
): { rules: ClaimRules; problems: string[] } {
  const rules: ClaimRules = new Map();
  const problems: string[] = [];
  const allow = (claim: string, values: string[]) => {
    const allowed = rules.get(claim) ?? new Set<string>();
    for (const value of values) allowed.add(value);
    if (allowed.size > 0) rules.set(claim, allowed);
  };
  for (const [key, text] of Object.entries(annotations ?? {})) {
    if (key === names.claims) {
      const parsed = parseClaimsObject(text);
      if (typeof parsed === 'string') problems.push(`${key}: ${parsed}`);
      else for (const [claim, values] of parsed) allow(claim, values);
    } else if (key.startsWith(names.claimPrefix) && key.length > names.claimPrefix.length) {
      allow(
        key.slice(names.claimPrefix.length),
        text
          .split(',')
          .map((value) => value.trim())
          .filter(Boolean),
      );
    }
  }
  return { rules, problems };
}

/**
 * Whether a user's claims satisfy the rules: some listed value equals the claim (a string) or
 * one of its elements (a list of strings). Exact, case-sensitive matching; other claim types never match.
 */
export function claimsMatch(rules: ClaimRules, claims: Record<string, unknown>): boolean {
  for (const [claim, allowed] of rules) {
    const value = claims[claim];
    if (typeof value === 'string' && allowed.has(value)) return true;
    if (Array.isArray(value) && value.some((element) => typeof element === 'string' && allowed.has(element)))
      return true;
  }
  return false;
}

function parseClaimsObject(text: string): Array<[string, string[]]> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return 'must be a JSON object of claim name to allowed values';
  const entries: Array<[string, string[]]> = [];
  for (const [claim, values] of Object.entries(parsed)) {
    const list = typeof values === 'string' ? [values] : values;
    if (!Array.isArray(list) || !list.every((value) => typeof value === 'string'))
      return `claim "${claim}" must map to a string or a list of strings`;
    entries.push([claim, list]);
  }
  return entries;
}
