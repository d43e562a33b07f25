import { compilePathPattern } from './path-pattern.ts';
import type { RouteDefinition, RouteTarget } from './route-definition.ts';

/** One path match of the production gateway (Gateway API HTTPRoute semantics). */
export interface GatewayRule {
  type: 'Exact' | 'PathPrefix';
  value: string;
  target: Exclude<RouteTarget, 'every-function'>;
}

/** Where the gateway sends paths no route claims: a function with the verifier, so they get 401/404. */
export const FALLBACK_TARGET = 'resources';
/** Probes of the public URL go to one function; each container also answers its own. */
const PROBE_TARGET = 'public-config';

/**
 * Derives the gateway's path rules from the route table: an Exact match for a route without
 * parameters, a PathPrefix (its literal part) otherwise, and `/` for everything else. Throws when
 * two targets would claim the same rule, so the table cannot describe an ambiguous gateway.
 */
export function gatewayRules(routes: RouteDefinition[]): GatewayRule[] {
  const rules = new Map<string, GatewayRule>();
  const add = (rule: GatewayRule) => {
    const key = `${rule.type} ${rule.value}`;
    const existing = rules.get(key);
    if (existing && existing.target !== rule.target) {
      throw new Error(
        `route table is ambiguous at the gateway: ${key} claimed by ${existing.target} and ${rule.target}`,
      );
    }
    rules.set(key, rule);
  };
  for (const route of routes) {
    const pattern = compilePathPattern(route.path);
    const target = route.target === 'every-function' ? PROBE_TARGET : route.target;
    add(
      pattern.exact
        ? { type: 'Exact', value: route.path, target }
        : { type: 'PathPrefix', value: pattern.literalPrefix || '/', target },
    );
  }
  add({ type: 'PathPrefix', value: '/', target: FALLBACK_TARGET });
  return [...rules.values()];
}

/**
 * Picks the rule the gateway applies to a request target (a path, with or without its query):
 * Exact first, then the longest matching prefix. HTTPRoute path matches never see the query, so
 * `/api/v1alpha1/auth/login?x=1` goes where `/api/v1alpha1/auth/login` goes.
 */
export function resolveGatewayTarget(rules: GatewayRule[], requestTarget: string): GatewayRule['target'] {
  const queryStart = requestTarget.indexOf('?');
  const path = queryStart === -1 ? requestTarget : requestTarget.slice(0, queryStart);
  const compiled = compiledRules(rules);
  const exact = compiled.exact.get(path);
  if (exact !== undefined) return exact;
  for (const prefix of compiled.prefixes) if (prefix.matches(path)) return prefix.target;
  return FALLBACK_TARGET;
}

/** A rule set in the form one lookup per request wants: made once per set, not once per request (issue 25). */
interface CompiledRules {
  /** The first Exact rule of each path. */
  exact: Map<string, GatewayRule['target']>;
  /** PathPrefix rules, longest value first (in table order among equals), as the first match wins. */
  prefixes: Array<{ target: GatewayRule['target']; matches: (path: string) => boolean }>;
}

const compiledSets = new WeakMap<GatewayRule[], CompiledRules>();

function compiledRules(rules: GatewayRule[]): CompiledRules {
  let compiled = compiledSets.get(rules);
  if (compiled === undefined) {
    const exact = new Map<string, GatewayRule['target']>();
    for (const rule of rules) if (rule.type === 'Exact' && !exact.has(rule.value)) exact.set(rule.value, rule.target);
    const prefixes = rules
      .filter((rule) => rule.type === 'PathPrefix')
      .sort((a, b) => b.value.length - a.value.length)
      .map((rule) => ({ target: rule.target, matches: prefixMatcher(rule.value) }));
    compiled = { exact, prefixes };
    compiledSets.set(rules, compiled);
  }
  return compiled;
}

// Gateway API PathPrefix matches whole path elements: `/abc` matches `/abc` and `/abc/x`, not `/abcd`.
function prefixMatcher(prefix: string): (path: string) => boolean {
  if (prefix === '/') return () => true;
  const trimmed = prefix.replace(/\/$/, '');
  const element = `${trimmed}/`;
  return (path) => path === trimmed || path.startsWith(element);
}
