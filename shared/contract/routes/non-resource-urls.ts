import { compilePathPattern } from './path-pattern.ts';
import type { RouteDefinition } from './route-definition.ts';
import { effectiveAuthorization } from './route-authorization.ts';

/**
 * The non-resource URLs (RBAC's `nonResourceURLs` form: a path, or a prefix and `*`) where a route
 * honours a non-resource grant: the routes authorized as their own path (`/metrics`, `/internal/*`).
 * Elsewhere such a grant does nothing: a route authorized by a resource's attributes decides by those
 * (`/api/*` of `system:discovery` does not reach `/api/v1alpha1/audit/events`), any caller may use
 * discovery and the open routes, and a path no route has is 404 for everyone.
 */
export function honouredNonResourceUrls(routes: RouteDefinition[]): string[] {
  const urls: string[] = [];
  for (const route of routes) {
    if (!('nonResourcePath' in effectiveAuthorization(route))) continue;
    const pattern = compilePathPattern(route.path);
    if (pattern.exact) urls.push(route.path);
    // `/internal/*` also matches `/internal` itself.
    else if (route.path.endsWith('/*') && pattern.literalPrefix === route.path.slice(0, -2))
      urls.push(pattern.literalPrefix, `${pattern.literalPrefix}/*`);
    else urls.push(`${pattern.literalPrefix}/*`);
  }
  const unique = [...new Set(urls)];
  return unique.filter((url) => !unique.some((other) => other !== url && coversUrl(other, url)));
}

/**
 * The part of a rule's non-resource URLs that the server honours: each URL inside the honoured
 * ones kept, each honoured URL inside it taken in its place (`*` becomes `/metrics`, `/internal`,
 * `/internal/*`); nothing when none meet.
 */
export function honouredPart(ruleUrls: string[], honoured: string[]): string[] {
  const kept = new Set<string>();
  for (const url of ruleUrls) {
    for (const honouredUrl of honoured) {
      if (coversUrl(url, honouredUrl)) kept.add(honouredUrl);
      else if (coversUrl(honouredUrl, url)) kept.add(url);
    }
  }
  return [...kept];
}

/** Whether RBAC's non-resource URL `outer` matches every path `inner` does (a trailing `*` matches any rest). */
function coversUrl(outer: string, inner: string): boolean {
  if (!outer.endsWith('*')) return outer === inner;
  const prefix = outer.slice(0, -1);
  return inner.startsWith(prefix);
}
