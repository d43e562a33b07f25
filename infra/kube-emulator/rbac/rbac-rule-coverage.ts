// Whether held RBAC rules cover the rules being granted, and how the missing ones read, as
// k8s.io/kubernetes/pkg/registry/rbac/validation (Covers, BreakdownRule, CompactRules) and rbacv1 CompactString do.
import type { PolicyRule } from './rbac-authorizer.ts';

// The granted rules split into one verb × group × resource × resourceName (or non-resource URL × verb) each, so that
// every piece is either wholly covered by one held rule or not at all.
function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const pieces: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) pieces.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else
          for (const name of names)
            pieces.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs ?? []) pieces.push({ nonResourceURLs: [url], verbs: [verb] });
  return pieces;
}

function hasAll(held: string[] | undefined, wanted: string[] | undefined): boolean {
  return (wanted ?? []).every((item) => (held ?? []).includes(item));
}

function coversAllOrStar(held: string[] | undefined, wanted: string[] | undefined, star: string): boolean {
  return (held ?? []).includes(star) || hasAll(held, wanted);
}

// A held `*/status` covers any `x/status`.
function resourcesCovered(held: string[] | undefined, wanted: string[] | undefined): boolean {
  if (coversAllOrStar(held, wanted, '*')) return true;
  return (wanted ?? []).every((resource) => {
    if ((held ?? []).includes(resource)) return true;
    const slash = resource.indexOf('/');
    return slash !== -1 && (held ?? []).includes(`*${resource.slice(slash)}`);
  });
}

function nonResourceUrlsCovered(held: string[] | undefined, wanted: string[] | undefined): boolean {
  return (wanted ?? []).every((path) =>
    (held ?? []).some((owner) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')))),
  );
}

// A held rule without resourceNames covers any; one with names covers only a piece naming one of them.
function resourceNamesCovered(held: string[] | undefined, wanted: string[] | undefined): boolean {
  if ((held ?? []).length === 0) return true;
  return (wanted ?? []).length > 0 && hasAll(held, wanted);
}

function ruleCovers(owner: PolicyRule, piece: PolicyRule): boolean {
  return (
    coversAllOrStar(owner.verbs, piece.verbs, '*') &&
    coversAllOrStar(owner.apiGroups, piece.apiGroups, '*') &&
    resourcesCovered(owner.resources, piece.resources) &&
    resourceNamesCovered(owner.resourceNames, piece.resourceNames) &&
    nonResourceUrlsCovered(owner.nonResourceURLs, piece.nonResourceURLs)
  );
}

/** The pieces of `granted` that no rule of `held` covers (none: the grant is no escalation). */
export function uncoveredRules(held: PolicyRule[], granted: PolicyRule[]): PolicyRule[] {
  return granted.flatMap(breakdownRule).filter((piece) => !held.some((owner) => ruleCovers(owner, piece)));
}

// Pieces of one group and resource (and at most one name) that differ only by verb become one rule.
function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    if (
      rule.nonResourceURLs?.length ||
      rule.apiGroups?.length !== 1 ||
      rule.resources?.length !== 1 ||
      (rule.resourceNames?.length ?? 0) > 1
    ) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups[0], rule.resources[0], rule.resourceNames?.[0]]);
    const existing = simple.get(key);
    if (!existing) simple.set(key, { ...rule, verbs: [...(rule.verbs ?? [])] });
    else for (const verb of rule.verbs ?? []) if (!existing.verbs!.includes(verb)) existing.verbs!.push(verb);
  }
  return [...compacted, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export function quotedList(values: string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
}

// rbacv1.PolicyRule.CompactString: {APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}
function compactString(rule: PolicyRule): string {
  const parts = (
    [
      ['APIGroups', rule.apiGroups],
      ['Resources', rule.resources],
      ['NonResourceURLs', rule.nonResourceURLs],
      ['ResourceNames', rule.resourceNames],
      ['Verbs', rule.verbs],
    ] as const
  ).filter(([, values]) => values && values.length > 0);
  return `{${parts.map(([name, values]) => `${name}:${quotedList(values!)}`).join(', ')}}`;
}

/** The missing rules as the escalation error lists them: compacted, one per line, sorted, without repeats. */
export function describeMissingRules(missing: PolicyRule[]): string {
  return [...new Set(compactRules(missing).map(compactString))].sort().join('\n');
}
