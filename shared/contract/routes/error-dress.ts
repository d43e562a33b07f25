import type { ApiError } from '../../base/http/api-error.ts';
import type { ApiResponse } from '../../base/http/api-request.ts';
import {
  KUBERNETES_STATUS_REASONS,
  PLATFORM_ERRORS,
  type KubernetesStatusReason,
  type PlatformReason,
} from '../../base/http/error-catalogue.ts';
import type { RouteDefinition } from './route-definition.ts';

// How an error is dressed, decided once: throw sites throw catalogue errors, and the chain's error
// filter answers each as its route declares, a Kubernetes `Status` on the routes with `statusErrors`
// and the contract's `{error, reason}` elsewhere, as kube-apiserver's `responsewriters.ErrorNegotiated`
// dresses what its handlers return. The OpenAPI document says the same from here (route-responses.ts).

/** Refused around the route rather than by it (the body limit, the audit gate): the plain body on every route. */
const REFUSED_AROUND_THE_ROUTE: ReadonlySet<string> = new Set<PlatformReason>(['PayloadTooLarge', 'AuditUnavailable']);
/**
 * What the authenticator answers (401, and 503 when the verifier cannot decide), before the caller and
 * so the route's own answers are reached: the plain body on every route. Only it answers 401.
 */
const AUTHENTICATOR_STATUSES: ReadonlySet<number> = new Set([401, 503]);
const ONLY_THE_AUTHENTICATOR = 401;
/** Platform reasons Kubernetes has no word for, said in a `Status` as kube-apiserver says them. */
const KUBERNETES_REASONS: Partial<Record<string, KubernetesStatusReason>> = {
  InvalidPathParameter: 'BadRequest',
} satisfies Partial<Record<PlatformReason, KubernetesStatusReason>>;

/** What the error filter knows of a refused request: its route, and its caller once authenticated. */
export interface RefusedRequest {
  route?: RouteDefinition | undefined;
  /** Undefined until the authenticator has passed the caller (null on a route without a token). */
  principal?: unknown;
}

/** The answer to an ApiError, dressed as the request's route declares. */
export function errorAnswer(error: ApiError, request: RefusedRequest): ApiResponse {
  if (!answersAsStatus(error, request)) return error.toResponse();
  return error.toStatusResponse(KUBERNETES_REASONS[error.reason] ?? error.reason);
}

function answersAsStatus(error: ApiError, { route, principal }: RefusedRequest): boolean {
  return route?.statusErrors === true && principal !== undefined && !REFUSED_AROUND_THE_ROUTE.has(error.reason);
}

/** The error bodies a route's answers of `status` can have, as errorAnswer dresses them: for /openapi.json. */
export function documentedErrorBodies(route: RouteDefinition, status: number): { plain: boolean; status: boolean } {
  if (!route.statusErrors) return { plain: true, status: false };
  const reasons = reasonsWithStatus(status);
  const onlyAroundTheRoute = reasons.length > 0 && reasons.every((reason) => REFUSED_AROUND_THE_ROUTE.has(reason));
  return {
    plain: AUTHENTICATOR_STATUSES.has(status) || reasons.some((reason) => REFUSED_AROUND_THE_ROUTE.has(reason)),
    status: status !== ONLY_THE_AUTHENTICATOR && !onlyAroundTheRoute,
  };
}

function reasonsWithStatus(status: number): string[] {
  return Object.entries({ ...KUBERNETES_STATUS_REASONS, ...PLATFORM_ERRORS })
    .filter(([, entry]) => entry.status === status)
    .map(([reason]) => reason);
}
