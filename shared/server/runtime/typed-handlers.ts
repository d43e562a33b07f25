import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Principal } from '../../auth/principal.ts';
import type { HandlerAuditNotes } from '../../domain/audit/audit-annotations.ts';
import type { AuthorizationDecision } from '../../authz/authorization-decision.ts';
import type { ApiRequest, ApiResponse } from '../../base/http/api-request.ts';
import type { DeclaredRoute, FunctionName, RouteDefinition } from '../../contract/routes/route-table.ts';
import type { HandlerRequest, RouteHandler } from './function-definition.ts';
import type { RequestInput } from './request-validation.ts';

/** The names of the `{parameter}`s of a path template. */
type ParameterNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParameterNames<Rest>
  : never;

/** The path parameters of a route, one string per `{parameter}` of its template (checked at route match). */
export type PathParameters<Path extends string> = string extends Path
  ? Record<string, string>
  : { readonly [Name in ParameterNames<Path>]: string };

type SchemaType<Schema, Otherwise> = Schema extends JSONSchema ? FromSchema<Schema> : Otherwise;

/** What the handler of route R receives: its path parameters, its checked query and body, and a principal on authenticated routes. */
export interface RouteRequest<R extends RouteDefinition> extends ApiRequest, HandlerAuditNotes {
  route: RouteDefinition;
  params: PathParameters<R['path']>;
  principal: R['auth'] extends 'none' ? null : Principal;
  /** What the chain authorized before the handler ran. */
  authorization: AuthorizationDecision;
  input: RequestInput<SchemaType<R['requestSchema'], undefined>, SchemaType<R['querySchema'], Record<string, unknown>>>;
  /** What the handler adds to the request's audit event (shared/domain/audit/audit-annotations.ts). */
  auditAnnotations?: Record<string, string>;
  /** The request's deadline (`?timeout=`): what the handler awaits carries it (the cluster's and the database's calls). */
  deadline?: AbortSignal;
}

/** A request on any route that needs a token: the principal is there. */
export type AuthenticatedRequest = HandlerRequest & { principal: Principal };

type OwnRoute<F extends FunctionName> = DeclaredRoute extends infer R
  ? R extends RouteDefinition
    ? string extends R['operationId']
      ? never
      : R['target'] extends F
        ? R
        : never
    : never
  : never;

/** The handler of route R. */
export type TypedHandler<R extends RouteDefinition> = (request: RouteRequest<R>) => Promise<ApiResponse> | ApiResponse;

/** The handlers of function F: exactly one per route the table gives it, each typed from its route's declaration. */
export type RouteHandlers<F extends FunctionName> = {
  [R in OwnRoute<F> as R['operationId']]: TypedHandler<R>;
};

/**
 * The typed handlers as the core handler calls them. Sound because the core handler calls a
 * handler only for its own route, after the route matched (params), authentication (principal),
 * authorization (authorization) and with `input` checked against that route's schemas.
 */
export function routeHandlers<F extends FunctionName>(handlers: RouteHandlers<F>): Record<string, RouteHandler> {
  return handlers as unknown as Record<string, RouteHandler>;
}

/** The same for routes generated at run time (one set per platform kind), typed from the generator's route type. */
export function generatedRouteHandlers<R extends RouteDefinition>(
  handlers: Record<string, TypedHandler<R>>,
): Record<string, RouteHandler> {
  return handlers as unknown as Record<string, RouteHandler>;
}
