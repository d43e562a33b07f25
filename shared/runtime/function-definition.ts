import type { ApiRequest, ApiResponse } from '../http/api-request.ts';
import type { Principal } from '../auth/principal.ts';
import type { FunctionName, RouteDefinition } from '../routes/route-table.ts';

/** A request after routing and authentication, as route handlers see it. */
export interface HandlerRequest extends ApiRequest {
  route: RouteDefinition;
  params: Record<string, string>;
  /** Null only on open routes. */
  principal: Principal | null;
}

export type RouteHandler = (request: HandlerRequest) => Promise<ApiResponse> | ApiResponse;

/** One deployable function: handlers for the routes the table gives it, plus its readiness check. */
export interface FunctionDefinition {
  name: FunctionName;
  /** Keyed by the route's operationId. */
  handlers: Record<string, RouteHandler>;
  /** Throws an ApiError (503) when the function cannot serve yet. */
  readiness?: () => Promise<void>;
}
