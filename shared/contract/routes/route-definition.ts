import type { PathParameterSchema } from './path-parameters.ts';
import type { ResourceOperation } from '../kinds/platform-kinds.ts';
import type { RouteAuthorization } from './route-authorization.ts';
import type { ProtobufMessage } from '../../base/http/kubernetes-protobuf.ts';

/**
 * What a route declaration says, apart from the table that lists them (route-table.ts): the route
 * groups (service-routes.ts, kubernetes-api-routes.ts, resource-routes.ts, run-routes.ts, audit-routes.ts, access-review-routes.ts, controller-routes.ts) and the rules derived per route
 * (route-answers.ts, route-authorization.ts) import these, and the table imports them all (rollout-routes.ts too).
 */

export const FUNCTION_NAMES = ['login', 'public-config', 'resources', 'internal', 'run-logs'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/** Who serves a route: one function, every function (probes), or the optional identity bridge. */
export type RouteTarget = FunctionName | 'every-function' | 'bridge';

/**
 * `none`: open route. `bearer`: `Authorization: Bearer` only. `bearer-or-query`: also
 * `?access_token=` (only the run-log stream, for browser EventSource). `task-result-token`: the
 * `Authorization: Bearer` access token a run task was sent with (issue 48), and no other token.
 */
export type AuthMode = 'none' | 'bearer' | 'bearer-or-query' | 'task-result-token';

export interface RouteDefinition {
  /** Upper-case method, or `*` for any. */
  method: string;
  /** `{name}` matches one path segment; a trailing `/*` matches the rest of the path. */
  path: string;
  target: RouteTarget;
  auth: AuthMode;
  operationId: string;
  summary: string;
  /** JSON Schema of the success response body, for the OpenAPI document. */
  responseSchema?: Record<string, unknown>;
  /** Status of the success response (default 200). */
  successStatus?: number;
  /** Media type of the success response (default application/json). */
  responseMediaType?: string;
  /** JSON Schema of the request body, when the route takes one: the handler's typed body (checked by shared/server/runtime/request-validation.ts). */
  requestSchema?: Record<string, unknown>;
  /**
   * The body may also come as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), as kubectl
   * sends built-in kinds: the fields of its message, read into the JSON object `requestSchema` judges.
   */
  protobufBody?: ProtobufMessage;
  /** The body may also come as JSON:API (`application/vnd.api+json`), as run tasks send their callbacks (issue 48). */
  acceptsJsonApi?: boolean;
  /** The body is judged by the cluster (CRD schemas), not by `requestSchema`, which only documents it: the resource routes. */
  bodyJudgedByCluster?: boolean;
  /** JSON Schema of the query, an object with one property per parameter: the handler's typed query, and the documented query parameters. */
  querySchema?: Record<string, unknown>;
  /**
   * The answers besides the success, status → description. A route declares only its own; the table
   * adds what follows from its other properties (route-answers.ts).
   */
  errorResponses?: Record<number, string>;
  /** A Kubernetes-style route of a platform kind: which kind, and which operation on it. */
  resource?: { kind: string; operation: ResourceOperation };
  /** Any authenticated caller may use the route: no authorization, so no 403. */
  anyAuthenticatedCaller?: boolean;
  /**
   * What the route is authorized as, when it is neither a platform kind's (`resource`) nor open to any
   * authenticated caller: every route with a token declares exactly one of the three (route-authorization.ts).
   */
  authorization?: RouteAuthorization;
  /** The route only ever refuses (the `/internal/*` catch-all answers 404 once authorized). */
  answersOnlyErrors?: boolean;
  /**
   * The schema of each `{parameter}` of the path; values that do not match are refused with 400
   * before authorization. Filled from PATH_PARAMETERS_BY_NAME for parameters a route does not name.
   */
  pathParameters?: Record<string, PathParameterSchema>;
  /** Errors are answered as Kubernetes `Status` objects (the resource routes under `/apis/`). */
  statusErrors?: boolean;
  /**
   * A Kubernetes-style route whose query stays open, as kube-apiserver's does (kubectl sends `?hash=`
   * or `timeout` where it likes); other authenticated routes refuse what they do not read (closed-input.ts).
   */
  openQuery?: boolean;
}

/** Keeps the literal types of route declarations (path, auth, schemas), from which handlers are typed. */
export function declareRoutes<const Routes extends readonly RouteDefinition[]>(routes: Routes): Routes {
  return routes;
}

/** The JSON Schema of the error body every route uses. */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error', 'reason'],
  properties: {
    error: { type: 'string', description: 'Human-readable message.' },
    reason: { type: 'string', description: 'Stable machine-readable reason, e.g. InvalidPassword.' },
  },
} as const;
