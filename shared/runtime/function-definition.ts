import type { ApiRequest, ApiResponse } from '../http/api-request.ts';
import type { Principal } from '../auth/principal.ts';
import type { AuthorisationDecision } from '../authz/authorisation-decision.ts';
import type { AuthorisationResolvers } from './filters/authorisation.ts';
import type { FunctionName, RouteDefinition } from '../routes/route-table.ts';
import type { RequestInput } from './request-validation.ts';

/** A request after routing and authentication, as route handlers see it. */
export interface HandlerRequest extends ApiRequest {
  route: RouteDefinition;
  params: Record<string, string>;
  /** Null only on open routes. */
  principal: Principal | null;
  /** What the chain authorised (no attributes on routes open to any authenticated caller; undefined on open routes). */
  authorisation: AuthorisationDecision;
  /** The query and body checked against the route's schemas (typed per route: shared/runtime/typed-handlers.ts). */
  input: RequestInput;
  /** What the handler adds to the request's audit event (shared/audit/audit-annotations.ts). */
  auditAnnotations?: Record<string, string>;
}

export type RouteHandler = (request: HandlerRequest) => Promise<ApiResponse> | ApiResponse;

/** One deployable function: handlers for the routes the table gives it, plus its readiness check. */
export interface FunctionDefinition {
  name: FunctionName;
  /** Keyed by the route's operationId; built with `routeHandlers` so that each route's handler is typed from it. */
  handlers: Record<string, RouteHandler>;
  /** The resolvers its routes' authorisation names (route-authorisation.ts), e.g. the run's Workspace. */
  authorisationResolvers?: AuthorisationResolvers;
  /** Throws an ApiError (503) when the function cannot serve yet. */
  readiness?: () => Promise<void>;
  /**
   * The request body as an audit event at the `Request` level may hold it (docs/audit.md), or
   * undefined when the route's body must not be recorded (it may hold a sensitive value).
   */
  auditRequestObject?: (request: HandlerRequest) => unknown;
}
