import type { Principal } from '../../../auth/principal.ts';
import {
  AuthorisationDecision,
  type AuthorisationResolver,
  type DecidedVerbs,
} from '../../../authz/authorisation-decision.ts';
import type { AuthorizationAttributes, Authorizer, ResourceAttributes } from '../../../authz/authorizer.ts';
import { ApiError } from '../../../base/http/api-error.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import {
  effectiveAuthorisation,
  resourceVerb,
  verbsDecidedWith,
  type AuthorisationResolverName,
  type DeclaredAttributes,
  type EffectiveAuthorisation,
} from '../../../contract/routes/route-authorisation.ts';
import type { RouteDefinition } from '../../../contract/routes/route-table.ts';
import type { Filter, FilteredRequest } from './filter-chain.ts';

/** A request that reached authorisation: routed, with its path parameters, and authenticated. */
export type RoutedRequest = FilteredRequest & {
  route: RouteDefinition;
  principal: Principal;
  params: Record<string, string>;
};

/**
 * What deciding a route's authorisation reads of a request: the caller, the route's validated path
 * parameters, and the path, method and query (a non-resource path; a list's `?watch`); what was
 * asked is noted on it.
 */
export type AuthorisedRouteRequest = Pick<FilteredRequest, 'path' | 'method' | 'query' | 'authorisationAsked'> & {
  route: RouteDefinition;
  principal: Principal;
  params: Record<string, string>;
};

export type AuthorisationResolvers = Partial<Record<AuthorisationResolverName, AuthorisationResolver>>;

/**
 * Authorises the request as its route declares (route-authorisation.ts) before any handler runs, as
 * kube-apiserver's `WithAuthorization`, and hands the handler the decision (`request.authorisation`).
 * Runs after authentication and the route refusal, before the input is read: a refused caller gets
 * its 403 whatever it sent, and nothing reaches the cluster or the database.
 */
export function withAuthorisation(authorizer: Authorizer, apiGroup: string, resolvers: AuthorisationResolvers): Filter {
  return (request, next) => {
    const route = request.route!;
    const authorisation = effectiveAuthorisation(route);
    if ('open' in authorisation) return next(request);
    const routed = request as RoutedRequest;
    const proceed = (decision: AuthorisationDecision) => {
      request.authorisation = decision;
      return next(request);
    };
    // Synchronous when there is nothing to ask: every promise costs.
    if ('anyAuthenticatedCaller' in authorisation)
      return proceed(new AuthorisationDecision(authorizer, routed.principal, []));
    if ('boundTaskResult' in authorisation) {
      const { principal, params } = routed;
      if (principal.type !== 'runtask' || principal.taskResult !== params.taskResult)
        throw apiError(
          'TaskResultTokenMismatch',
          'the access token was issued for another task result: it answers and reads only for its own',
        );
      return proceed(new AuthorisationDecision(authorizer, principal, []));
    }
    return decideAsDeclared(authorizer, apiGroup, resolvers, authorisation, routed).then(proceed);
  };
}

/**
 * Decides a request as its route declares (the chain's one way, which a SelfSubjectAccessReview of a
 * routed path shares): the decision; or 403 or 503 as the authorizer throws; or, once the caller is
 * authorised without a name, a resolver's not-found.
 */
export async function decideAsDeclared(
  authorizer: Authorizer,
  apiGroup: string,
  resolvers: AuthorisationResolvers,
  authorisation: Exclude<
    EffectiveAuthorisation,
    { open: true } | { anyAuthenticatedCaller: true } | { boundTaskResult: true }
  >,
  request: AuthorisedRouteRequest,
): Promise<AuthorisationDecision> {
  const { principal, params } = request;
  // What was asked is kept on the request, allowed or not: the audit trail names it on a refusal too.
  const decideOn = (attributes: AuthorizationAttributes, resolved?: unknown, verbs?: DecidedVerbs) => {
    request.authorisationAsked = attributes;
    return AuthorisationDecision.decide(authorizer, principal, attributes, resolved, verbs);
  };
  if ('nonResourcePath' in authorisation) {
    return decideOn({ nonResourcePath: request.path, verb: request.method.toLowerCase() });
  }
  if ('kind' in authorisation) {
    const { kind, operation } = authorisation;
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
  const attributes = declaredAttributes(authorisation.attributes, apiGroup, params);
  if (!('resolver' in authorisation)) return decideOn(attributes, undefined, { performs: authorisation.performs });
  const resolver = resolvers[authorisation.resolver];
  if (!resolver)
    throw new Error(`no authorisation resolver ${authorisation.resolver} for ${request.route.operationId}`);
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
      request.authorisationAsked = named;
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
