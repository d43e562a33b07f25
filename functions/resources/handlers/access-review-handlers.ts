import type { AppContext } from '../../../shared/server/app/app-context.ts';
import type { Principal } from '../../../shared/auth/principal.ts';
import { isNonResource, type AuthorizationAttributes } from '../../../shared/authz/authorizer.ts';
import { ALL_RULES, type SubjectRules, type SubjectRulesReader } from '../../../shared/authz/subject-rules.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import type { ReviewStatus, RoutedPathReview } from './routed-path-review.ts';

type AccessReviewRoute = Extract<DeclaredRoute, { operationId: 'createSelfSubjectAccessReview' }>;
type RulesReviewRoute = Extract<DeclaredRoute, { operationId: 'createSelfSubjectRulesReview' }>;
type ReviewSpec = ReturnType<RouteRequest<AccessReviewRoute>['input']['body']>['spec'];

/**
 * `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: whether the caller may do one
 * thing, decided by the very authorizer the routes use (and, for a path the server routes, as that
 * route is authorized: `routedPaths`), so `kubectl auth can-i` (and a console hiding buttons) can
 * never disagree with what the server does when asked for real.
 */
export function accessReviewHandlers(
  context: Pick<AppContext, 'authorizer'>,
  rbac: SubjectRulesReader,
  routedPaths: RoutedPathReview,
) {
  return {
    /**
     * `POST .../selfsubjectrulesreviews`: the rules the caller is authorized by in a namespace: every
     * permission for the admin; the RBAC bindings of the users it is reviewed as otherwise.
     */
    async createSelfSubjectRulesReview(request: RouteRequest<RulesReviewRoute>) {
      const { spec } = request.input.body();
      // Not known now: a 503, answered as a Status as every error of these Kubernetes routes is.
      const status = await rulesOf(context.authorizer, rbac, routedPaths, request.principal, spec.namespace);
      return jsonResponse(201, {
        kind: 'SelfSubjectRulesReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec,
        status,
      });
    },

    async createSelfSubjectAccessReview(request: RouteRequest<AccessReviewRoute>) {
      const { spec } = request.input.body();
      const status = await review(context.authorizer, routedPaths, request.principal, reviewedAttributes(spec));
      return jsonResponse(201, {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: { creationTimestamp: null },
        spec,
        status,
      });
    },
  };
}

/**
 * The rules a principal is authorized by: every permission, or its users' RBAC rules read from the
 * cluster, their non-resource URLs cut to those a route honours (`/api/*` grants nothing here).
 */
async function rulesOf(
  authorizer: AppContext['authorizer'],
  rbac: SubjectRulesReader,
  routedPaths: RoutedPathReview,
  principal: Principal,
  namespace: string,
): Promise<SubjectRules> {
  const reviewedAs = authorizer.reviewedAs?.(principal);
  if (reviewedAs === undefined)
    return {
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'this authorizer cannot list rules',
    };
  return reviewedAs.everything
    ? ALL_RULES
    : routedPaths.honouredRules(await rbac.rulesFor(reviewedAs.users, namespace));
}

/** The spec as the authorizer names it: empty strings, as clients send them, mean absent. */
function reviewedAttributes(spec: ReviewSpec): AuthorizationAttributes {
  if (spec.nonResourceAttributes) {
    return { nonResourcePath: spec.nonResourceAttributes.path, verb: spec.nonResourceAttributes.verb };
  }
  // The schema admits exactly one of the two: resourceAttributes, when nonResourceAttributes is absent.
  const asked = spec.resourceAttributes as NonNullable<ReviewSpec['resourceAttributes']>;
  return {
    verb: asked.verb,
    group: asked.group ?? '',
    resource: asked.resource,
    ...(asked.subresource ? { subresource: asked.subresource } : {}),
    ...(asked.namespace ? { namespace: asked.namespace } : {}),
    ...(asked.name ? { name: asked.name } : {}),
  };
}

/**
 * Allowed with the grant's reason, or not allowed with the refusal's message; a non-resource path as
 * the route there is authorized; a review that cannot be made throws (503).
 */
async function review(
  authorizer: AppContext['authorizer'],
  routedPaths: RoutedPathReview,
  principal: Principal,
  attributes: AuthorizationAttributes,
): Promise<ReviewStatus> {
  try {
    if (isNonResource(attributes))
      return await routedPaths.review(principal, attributes.verb, attributes.nonResourcePath);
    const grant = await authorizer.authorize(principal, attributes);
    return { allowed: true, reason: grant.reason };
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { allowed: false, reason: error.message };
    // Not known now: a 503, answered as a Status as every error of these Kubernetes routes is.
    throw error;
  }
}
