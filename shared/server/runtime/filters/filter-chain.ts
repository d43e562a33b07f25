import type { ApiError } from '../../../base/http/api-error.ts';
import type { ApiRequest, ApiResponse } from '../../../base/http/api-request.ts';
import type { Principal } from '../../../auth/principal.ts';
import type { AuthorizationDecision } from '../../../authz/authorization-decision.ts';
import type { AuthorizationAttributes } from '../../../authz/authorizer.ts';
import type { AuditReceipt } from '../../../domain/audit/audit-event-builder.ts';
import type { HandlerAuditNotes } from '../../../domain/audit/audit-annotations.ts';
import type { RouteDefinition } from '../../../contract/routes/route-table.ts';

/** A request on its way through the filters: each fills in what it learnt (the route, the principal). */
export interface FilteredRequest extends ApiRequest, HandlerAuditNotes {
  route?: RouteDefinition;
  params?: Record<string, string>;
  /** Null on open routes; undefined until authentication has run. */
  principal?: Principal | null;
  /** What the caller was authorized for (undefined on open routes and until authorization has run). */
  authorization?: AuthorizationDecision;
  /** What the chain asked the authorizer for the route, set before the answer: also there when refused. */
  authorizationAsked?: AuthorizationAttributes;
  /** The request's audit id and arrival, set by the audit filter (filters/audit.ts). */
  auditReceipt?: AuditReceipt;
  /** The body its audit event records at the `Request` level (filters/audit.ts). */
  auditRequestObject?: unknown;
  /** What a handler adds to the request's audit event (`annotations`), e.g. a login's outcome. */
  auditAnnotations?: Record<string, string>;
  /** The trace this request belongs to, for its log line: set by the tracing filter when its span is recorded. */
  traceId?: string;
  /** Why routing found no handler; answered once the caller has authenticated. */
  lookupFailure?: ApiError;
  /** The request's deadline (`?timeout=`, filters/request-deadline.ts): aborted when it passes, with the 504 as its reason. */
  deadline?: AbortSignal;
}

/** An answer now, or later: a filter stays synchronous when it can, as every promise costs. */
export type Answer = ApiResponse | Promise<ApiResponse>;

/** What a filter hands the request on to: the rest of the chain. */
export type NextFilter = (request: FilteredRequest) => Answer;

/** One step of the chain: answers itself, or passes the request on and may change the answer. */
export type Filter = (request: FilteredRequest, next: NextFilter) => Answer;

/**
 * Composes filters around a handler, the first outermost, as k8s.io/apiserver wraps its handler
 * in `WithAuthentication`, `WithCORS`, …; a filter that is not installed (undefined) is left out.
 */
export function chainFilters(filters: ReadonlyArray<Filter | undefined>, handler: NextFilter): NextFilter {
  return filters.reduceRight<NextFilter>(
    (next, filter) => (filter ? (request) => filter(request, next) : next),
    handler,
  );
}

/** Applies `change` to the answer when it comes, without a promise when it is already here. */
export function whenAnswered(answer: Answer, change: (response: ApiResponse) => ApiResponse): Answer {
  return answer instanceof Promise ? answer.then(change) : change(answer);
}
