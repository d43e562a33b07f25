import { checkAgainst, echoedValue, type PathParameterSchema } from './path-parameters.ts';
import { compilePathPattern, type PathPattern } from './path-pattern.ts';
import type { RouteDefinition } from './route-definition.ts';

export interface RouteMatch {
  route: RouteDefinition;
  params: Record<string, string>;
}

export type RouteLookup =
  | { kind: 'found'; match: RouteMatch }
  /** The route matched by shape, but a parameter is not a valid value for it (`problem` says which and why). */
  | { kind: 'invalid-parameter'; route: RouteDefinition; problem: string }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

interface CompiledRoute {
  route: RouteDefinition;
  pattern: PathPattern;
  parameters: Array<[name: string, schema: PathParameterSchema]>;
}

/** Finds the route for a method and path among a set of routes, and checks its parameters. */
export class RouteMatcher {
  readonly #compiled: CompiledRoute[];

  constructor(routes: RouteDefinition[]) {
    this.#compiled = routes.map((route) => ({
      route,
      pattern: compilePathPattern(route.path),
      parameters: Object.entries(route.pathParameters ?? {}),
    }));
  }

  /** The methods some route answers at this path (`*` for a route that takes any), whatever its parameters hold. */
  methodsAt(path: string): string[] {
    const methods = new Set<string>();
    for (const { route, pattern } of this.#compiled) {
      if (pattern.match(path) !== null) methods.add(route.method);
    }
    return [...methods];
  }

  lookup(method: string, path: string): RouteLookup {
    const allowed: string[] = [];
    for (const { route, pattern, parameters } of this.#compiled) {
      const params = pattern.match(path);
      if (params === null) continue;
      if (route.method === '*' || route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        for (const [name, schema] of parameters) {
          const problem = checkAgainst(schema, params[name] ?? '');
          if (problem !== undefined)
            return {
              kind: 'invalid-parameter',
              route,
              problem: `${name} ${echoedValue(params[name] ?? '')} is invalid: ${problem}`,
            };
        }
        return { kind: 'found', match: { route, params } };
      }
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
