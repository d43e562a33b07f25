import type { ApiRequest, ApiResponse } from '../../base/http/api-request.ts';
import type { Principal } from '../../auth/principal.ts';
import type { HandlerAuditNotes } from '../../domain/audit/audit-annotations.ts';
import type { AuthorizationDecision } from '../../authz/authorization-decision.ts';
import type { AuthorizationResolvers } from './filters/authorization.ts';
import type { TaskResultTokens } from './filters/authentication.ts';
import type { FunctionName, RouteDefinition } from '../../contract/routes/route-table.ts';
import type { RequestInput } from './request-validation.ts';
import type { AppContext, ConnectedAppContext } from '../app/app-context.ts';

/** A request after routing and authentication, as route handlers see it. */
export interface HandlerRequest extends ApiRequest, HandlerAuditNotes {
  route: RouteDefinition;
  params: Record<string, string>;
  /** Null only on open routes. */
  principal: Principal | null;
  /** What the chain authorized (no attributes on routes open to any authenticated caller; undefined on open routes). */
  authorization: AuthorizationDecision;
  /** The query and body checked against the route's schemas (typed per route: shared/server/runtime/typed-handlers.ts). */
  input: RequestInput;
  /** What the handler adds to the request's audit event (shared/domain/audit/audit-annotations.ts). */
  auditAnnotations?: Record<string, string>;
  /** The request's deadline (`?timeout=`): what the handler awaits carries it (the cluster's and the database's calls). */
  deadline?: AbortSignal;
}

export type RouteHandler = (request: HandlerRequest) => Promise<ApiResponse> | ApiResponse;

/** One deployable function: handlers for the routes the table gives it, plus its readiness check. */
export interface FunctionDefinition {
  name: FunctionName;
  /** Keyed by the route's operationId; built with `routeHandlers` so that each route's handler is typed from it. */
  handlers: Record<string, RouteHandler>;
  /** The resolvers its routes' authorization names (route-authorization.ts), e.g. the run's Workspace. */
  authorizationResolvers?: AuthorizationResolvers;
  /** Who a run task's access token was issued for, where its routes take one (`auth: 'task-result-token'`, issue 48). */
  taskResultTokens?: TaskResultTokens;
  /**
   * Throws an ApiError (503) when the function cannot serve yet. Built from its FunctionModule's
   * facts (`runHistory`, `readiness`) by `defineFunction`, never by the function itself.
   */
  readiness?: () => Promise<void>;
  /**
   * The request body as an audit event at the `Request` level may hold it (docs/audit.md), or
   * undefined when the route's body must not be recorded (it may hold a sensitive value).
   */
  auditRequestObject?: (request: HandlerRequest) => unknown;
}

/** What a function builds from its context: its handlers; its name and readiness come from its module. */
export type FunctionHandlers = Omit<FunctionDefinition, 'name' | 'readiness'>;

/**
 * What a function's `/readyz` waits for besides its run history database (which every function
 * with `runHistory` waits for): `platform-crds-served`, the cluster serving the platform's kinds.
 */
export type ReadinessCheck = 'platform-crds-served';

/** The facts of a function known before it runs. */
interface FunctionFacts {
  name: FunctionName;
  /**
   * It keeps run history: its `/readyz` waits for the database, and started alone on the checkout's
   * local state it opens the database at start.
   */
  runHistory: boolean;
  /**
   * It keeps the run history bounded: its process compacts finished runs' logs and enforces
   * RUN_HISTORY_RETENTION and RUN_LOG_RETENTION (docs/run-history.md). The function that owns the run
   * records does; the controller's and the streams' functions do not, so their latency is not shared
   * with that work.
   */
  maintainsRunHistory: boolean;
  /** What else its `/readyz` waits for (see ReadinessCheck). */
  readiness: readonly ReadinessCheck[];
}

/**
 * A function as its process is set up: the facts known before it runs, in one place per function
 * (issue 21), read by every entry (the Knative container, the functions-framework, the local gateway)
 * through `defineFunction`, and the factory of its handlers. When its process connects to the cluster
 * (`cluster`) decides what its factory is given: `at-start`, for a function whose handlers call the
 * cluster, a context holding the connection (ConnectedAppContext); `on-first-use`, for one that needs
 * it only to verify or authorize a token other than the admin's (so that it starts without loading the
 * Kubernetes client), a context that connects when first asked (`context.cluster()`).
 */
export type FunctionModule = FunctionModuleOf<AppService>;

/** A service of the app context a function may declare: every member but the context's own `close`. */
export type AppService = Exclude<keyof AppContext, 'close'>;

/**
 * A module that declares the services it uses (`services`, house review 9): its factory gets those
 * and no other, so a function's real dependencies are read off its module, and using one it did not
 * declare does not compile (nor reach it at run time: defineFunction hands over only those).
 */
export type FunctionModuleOf<S extends AppService> = FunctionFacts & { readonly services: readonly S[] } & (
    | { cluster: 'at-start'; create(context: Pick<ConnectedAppContext, S>): FunctionHandlers }
    | { cluster: 'on-first-use'; create(context: Pick<AppContext, S>): FunctionHandlers }
  );

/** A function's module, its services' names inferred from the `services` it lists. */
export function functionModule<const S extends AppService>(module: FunctionModuleOf<S>): FunctionModuleOf<S> {
  return module;
}
