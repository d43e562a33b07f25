import type { Principal } from '../../../shared/auth/principal.ts';
import type { Authorizer } from '../../../shared/authz/authorizer.ts';
import { describeAttributes } from '../../../shared/authz/authorizer.ts';
import type { SubjectRules } from '../../../shared/authz/subject-rules.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { honouredNonResourceUrls, honouredPart } from '../../../shared/contract/routes/non-resource-urls.ts';
import { effectiveAuthorization } from '../../../shared/contract/routes/route-authorization.ts';
import { RouteMatcher } from '../../../shared/contract/routes/route-matcher.ts';
import type { RouteDefinition } from '../../../shared/contract/routes/route-table.ts';
import {
  decideAsDeclared,
  type AuthorizationResolvers,
  type AuthorizedRouteRequest,
} from '../../../shared/server/runtime/filters/authorization.ts';

/** The answer of an access review, as kube-apiserver writes it. */
export interface ReviewStatus {
  allowed: boolean;
  reason?: string;
}

/** The HTTP method of each non-resource verb (RBAC names a non-resource request by its lower-case method). */
const METHOD_OF_VERB = new Map([
  ['get', 'GET'],
  ['head', 'HEAD'],
  ['post', 'POST'],
  ['put', 'PUT'],
  ['patch', 'PATCH'],
  ['delete', 'DELETE'],
]);

/**
 * Access reviews of non-resource paths as this server routes them (issue 38): a path a route
 * answers is reviewed with the attributes that route is authorized by, decided by the chain's own
 * `decideAsDeclared`, so `kubectl auth can-i get /api/v1alpha1/audit/events` says what the route
 * will do (the cluster's `system:discovery` grants `/api/*`, which no route here honours).
 */
export class RoutedPathReview {
  readonly #matcher: RouteMatcher;
  readonly #honoured: string[];
  readonly #authorizer: Authorizer;
  readonly #apiGroup: string;
  readonly #resolvers: AuthorizationResolvers;

  constructor(routes: RouteDefinition[], authorizer: Authorizer, apiGroup: string, resolvers: AuthorizationResolvers) {
    this.#matcher = new RouteMatcher(routes);
    this.#honoured = honouredNonResourceUrls(routes);
    this.#authorizer = authorizer;
    this.#apiGroup = apiGroup;
    this.#resolvers = resolvers;
  }

  /**
   * Whether the principal may `verb` the path (a query, if any, read as the route reads it): as the
   * route that answers it decides; not allowed where no route answers (404, 405, or a path segment
   * the route refuses: 400). Verb `*`: every method routed there. Throws what cannot be decided now (503).
   */
  async review(principal: Principal, verb: string, pathAndQuery: string): Promise<ReviewStatus> {
    const queryStart = pathAndQuery.indexOf('?');
    const path = queryStart === -1 ? pathAndQuery : pathAndQuery.slice(0, queryStart);
    const query = new URLSearchParams(queryStart === -1 ? '' : pathAndQuery.slice(queryStart + 1));
    const routed = this.#matcher.methodsAt(path);
    if (routed.length === 0) return { allowed: false, reason: `this server routes nothing at ${path} (404)` };
    if (verb !== '*') return this.#reviewMethod(principal, METHOD_OF_VERB.get(verb), path, query, routed);
    for (const method of routed) {
      const status = await this.#reviewMethod(principal, method, path, query, routed);
      if (!status.allowed) return status;
    }
    return { allowed: true, reason: `every method routed at ${path} (${routed.join(', ')}) is allowed` };
  }

  /** A rules review's non-resource rules cut to what the routes honour; a rule that keeps no URL is left out. */
  honouredRules(rules: SubjectRules): SubjectRules {
    const nonResourceRules = rules.nonResourceRules.flatMap(({ verbs, nonResourceURLs }) => {
      const honoured = honouredPart(nonResourceURLs, this.#honoured);
      return honoured.length > 0 ? [{ verbs, nonResourceURLs: honoured }] : [];
    });
    return { ...rules, nonResourceRules };
  }

  async #reviewMethod(
    principal: Principal,
    method: string | undefined,
    path: string,
    query: URLSearchParams,
    routed: string[],
  ): Promise<ReviewStatus> {
    const lookup = method === undefined ? undefined : this.#matcher.lookup(method, path);
    if (lookup === undefined || lookup.kind === 'method-not-allowed' || lookup.kind === 'not-found')
      return { allowed: false, reason: `this server routes only ${routed.join(', ')} at ${path} (405)` };
    if (lookup.kind === 'invalid-parameter')
      return { allowed: false, reason: `path parameter invalid: ${lookup.problem} (400)` };
    const { route, params } = lookup.match;
    const authorization = effectiveAuthorization(route);
    if ('open' in authorization) return { allowed: true, reason: 'an open route: no token is needed' };
    if ('anyAuthenticatedCaller' in authorization)
      return { allowed: true, reason: 'any authenticated caller may use this route' };
    if ('boundTaskResult' in authorization)
      return { allowed: false, reason: "only the run task's access token of this task result may use this route" };
    const request: AuthorizedRouteRequest = { route, principal, params, path, method: method!, query };
    try {
      const decision = await decideAsDeclared(
        this.#authorizer,
        this.#apiGroup,
        this.#resolvers,
        authorization,
        request,
      );
      return { allowed: true, reason: decision.grant?.reason };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 403) return { allowed: false, reason: error.message };
      // A resolver's not-found comes only once the caller was authorized without the object's name.
      if (error.status === 404 && request.authorizationAsked !== undefined)
        return {
          allowed: true,
          reason: `allowed to ${describeAttributes(request.authorizationAsked)}; ${error.message} (404)`,
        };
      throw error;
    }
  }
}
