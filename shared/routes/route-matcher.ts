import { compilePathPattern, type PathPattern } from './path-pattern.ts';
import type { RouteDefinition } from './route-table.ts';

export interface RouteMatch {
  route: RouteDefinition;
  params: Record<string, string>;
}

export type RouteLookup =
  | { kind: 'found'; match: RouteMatch }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** Finds the route for a method and path among a set of routes. */
export class RouteMatcher {
  readonly #compiled: Array<{ route: RouteDefinition; pattern: PathPattern }>;

  constructor(routes: RouteDefinition[]) {
    this.#compiled = routes.map((route) => ({ route, pattern: compilePathPattern(route.path) }));
  }

  lookup(method: string, path: string): RouteLookup {
    const allowed: string[] = [];
    for (const { route, pattern } of this.#compiled) {
      const params = pattern.match(path);
      if (params === null) continue;
      if (route.method === '*' || route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { kind: 'found', match: { route, params } };
      }
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
