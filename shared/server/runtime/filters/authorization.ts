import type { Principal } from '../../../auth/principal.ts';
import {
  AuthorizationDecision,
  type AuthorizationResolver,
  type DecidedVerbs,
} from '../../../authz/authorization-decision.ts';
import type { AuthorizationAttributes, Authorizer, ResourceAttributes } from '../../../authz/authorizer.ts';
import { ApiError } from '../../../base/http/api-error.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import {
  effectiveAuthorization,
  resourceVerb,
  verbsDecidedWith,
  type AuthorizationResolverName,
  type DeclaredAttributes,
  type EffectiveAuthorization,
} from '../../../contract/routes/route-authorization.ts';
import type { RouteDefinition } from '../../../contract/routes/route-table.ts';
import type { Filter, FilteredRequest } from './filter-chain.ts';

/** A request that reached authorization: routed, with its path parameters, and authenticated. */
export type RoutedRequest = FilteredRequest & {
  route: RouteDefinition;
  principal: Principal;
  params: Record<string, string>;
};

/**
 * What deciding a route's authorization reads of a request: the caller, the route's validated path
 * parameters, and the path, method and query (a non-resource path; a list's `?watch`); what was
 * asked is noted on it.
 */
export type AuthorizedRouteRequest = Pick<FilteredRequest, 'path' | 'method' | 'query' | 'authorizationAsked'> & {
  route: RouteDefinition;
  principal: Principal;
  params: Record<string, string>;
};

export type AuthorizationResolvers = Partial<Record<AuthorizationResolverName, AuthorizationResolver>>;

/**
 * Authorizes the request as its route declares (route-authorization.ts) before any handler runs, as
 * kube-apiserver's `WithAuthorization`, and hands the handler the decision (`request.authorization`).
 * Runs after authentication and the route refusal, before the input is read: a refused caller gets
 * its 403 whatever it sent, and nothing reaches the cluster or the database.
 */
export function withAuthorization(authorizer: Authorizer, apiGroup: string, resolvers: AuthorizationResolvers): Filter {
  return (request, next) => {
    const route = request.route!;
    const authorization = effectiveAuthorization(route);
    if ('open' in authorization) return next(request);
    const routed = request as RoutedRequest;
    const proceed = (decision: AuthorizationDecision) => {
      request.authorization = decision;
      return next(request);
    };
    // Synchronous when there is nothing to ask: every promise costs.
    if ('anyAuthenticatedCaller' in authorization)
      return proceed(new AuthorizationDecision(authorizer, routed.principal, []));
    if ('boundTaskResult' in authorization) {
      const { principal, params } = routed;
      if (principal.type !== 'runtask' || principal.taskResult !== params.taskResult)
        throw apiError(
          'TaskResultTokenMismatch',
          'the access token was issued for another task result: it answers and reads only for its own',
        );
      return proceed(new AuthorizationDecision(authorizer, principal, []));
    }
    return decideAsDeclared(authorizer, apiGroup, resolvers, authorization, routed).then(proceed);
  };
}

/**
 * Decides a request as its route declares (the chain's one way, which a SelfSubjectAccessReview of a
 * routed path shares): the decision; or 403 or 503 as the authorizer throws; or, once the caller is
 * authorized without a name, a resolver's not-found.
 */
export async function decideAsDeclared(
  authorizer: Authorizer,
  apiGroup: string,
  resolvers: AuthorizationResolvers,
  authorization: Exclude<
    EffectiveAuthorization,
    { open: true } | { anyAuthenticatedCaller: true } | { boundTaskResult: true }
  >,
  request: AuthorizedRouteRequest,
): Promise<AuthorizationDecision> {
  const { principal, params } = request;
  // What was asked is kept on the request, allowed or not: the audit trail names it on a refusal too.
  const decideOn = (attributes: AuthorizationAttributes, resolved?: unknown, verbs?: DecidedVerbs) => {
    request.authorizationAsked = attributes;
    return AuthorizationDecision.decide(authorizer, principal, attributes, resolved, verbs);
  };
  if ('nonResourcePath' in authorization) {
    return decideOn({ nonResourcePath: request.path, verb: request.method.toLowerCase() });
  }
  if ('kind' in authorization) {
    const { kind, operation } = authorization;
    return decideOn(
      {
        verb: resourceVerb(operation, request.query),
        group: apiGroup,
        resource: kind.plural,
        ...(operation.endsWith('Status') ? { subresource: 'status' } : {}),
        ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
        ...(params.name !== undefined ? { name: params.name } : {}),
      },
      undefined,
      { decidesAlso: verbsDecidedWith(kind, operation) },
    );
  }
  const attributes = declaredAttributes(authorization.attributes, apiGroup, params);
  if (!('resolver' in authorization)) return decideOn(attributes, undefined, { performs: authorization.performs });
  const resolver = resolvers[authorization.resolver];
  if (!resolver)
    throw new Error(`no authorization resolver ${authorization.resolver} for ${request.route.operationId}`);
  const found = await resolver(request);
  if ('notFound' in found) {
    await decideOn(attributes);
    throw found.notFound;
  }
  const named = { ...attributes, name: found.name };
  try {
    return await decideOn(named, found.resolved);
  } catch (refusal) {
    if (!(refusal instanceof ApiError && refusal.status === 403)) throw refusal;
    if (await mayRead(authorizer, principal, { ...named, ...found.readableAs })) throw refusal;
    // Issue 44, item 9: refused on an object it may not read, the caller gets the refusal an unknown id
    // gets (decided without a name), or the name would tell it the object exists. The audit trail
    // keeps what was asked, name included. Allowed without a name but refused with one cannot happen
    // under RBAC (a rule without names covers every name): the named refusal stands then.
    await decideOn(attributes).finally(() => {
      request.authorizationAsked = named;
    });
    throw refusal;
  }
}

/**
 * Whether the caller may read the object found, so a refusal naming it tells it nothing new. Not known
 * (the authorizer refused, or could not answer): no, and the refusal is the unknown object's.
 */
async function mayRead(authorizer: Authorizer, principal: Principal, attributes: ResourceAttributes): Promise<boolean> {
  try {
    await authorizer.authorize(principal, attributes);
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/** The declared attributes with the group and the path's namespace and name filled in. */
function declaredAttributes(
  declared: DeclaredAttributes,
  apiGroup: string,
  params: Record<string, string>,
): ResourceAttributes {
  const { namespaceParameter, nameParameter, group, ...fixed } = declared;
  const namespace = namespaceParameter === undefined ? undefined : params[namespaceParameter];
  const name = nameParameter === undefined ? undefined : params[nameParameter];
  return {
    ...fixed,
    group: group === 'platform' ? apiGroup : group === 'core' ? '' : group,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
