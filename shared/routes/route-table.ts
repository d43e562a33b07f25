import { PATH_PARAMETERS_BY_NAME, pathParameterNames, type PathParameterSchema } from './path-parameters.ts';
import { kubernetesApiRoutes } from './kubernetes-api-routes.ts';
import {
  NON_RESOURCE,
  internalRoutes,
  resourceRoutes,
  runRoutes,
  runWorkspaceAuthorisation,
} from './platform-routes.ts';
import { routeAnswers } from './route-answers.ts';
import type { ResourceOperation } from '../resources/platform-kinds.ts';
import { effectiveAuthorisation, type RouteAuthorisation } from './route-authorisation.ts';
import { storableSchema } from '../runtime/storable-schema.ts';

/**
 * The route table: every route the service answers, declared once. The local gateway, each
 * function's router, the unauthenticated allowlist, the OpenAPI document and the chart's path
 * routing (HTTPRoute) are all derived from it.
 */

export const FUNCTION_NAMES = ['login', 'public-config', 'resources', 'internal', 'run-logs'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/** Who serves a route: one function, every function (probes), or the optional identity bridge. */
export type RouteTarget = FunctionName | 'every-function' | 'bridge';

/**
 * `none`: open route. `bearer`: `Authorization: Bearer` only. `bearer-or-query`: also
 * `?access_token=` (only the run-log stream, for browser EventSource).
 */
export type AuthMode = 'none' | 'bearer' | 'bearer-or-query';

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
  /** JSON Schema of the request body, when the route takes one: the handler's typed body (checked by shared/runtime/request-validation.ts). */
  requestSchema?: Record<string, unknown>;
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
  /** Any authenticated caller may use the route: no authorisation, so no 403. */
  anyAuthenticatedCaller?: boolean;
  /**
   * What the route is authorised as, when it is neither a platform kind's (`resource`) nor open to any
   * authenticated caller: every route with a token declares exactly one of the three (route-authorisation.ts).
   */
  authorisation?: RouteAuthorisation;
  /** The route only ever refuses (the `/internal/*` catch-all answers 404 once authorised). */
  answersOnlyErrors?: boolean;
  /**
   * The schema of each `{parameter}` of the path; values that do not match are refused with 400
   * before authorisation. Filled from PATH_PARAMETERS_BY_NAME for parameters a route does not name.
   */
  pathParameters?: Record<string, PathParameterSchema>;
  /** Errors are answered as Kubernetes `Status` objects (the resource routes under `/apis/`). */
  statusErrors?: boolean;
}

/** Every route, with the resource paths under `/apis/<apiGroup>/v1alpha1/`. Specific routes come before catch-alls (first match wins). */
export function routeTable(apiGroup: string): RouteDefinition[] {
  return declaredRoutes(apiGroup).map((route: RouteDefinition) => ({
    ...checkedAuthorisation(route),
    ...storableInput(route),
    pathParameters: pathParameterSchemas(route),
    errorResponses: routeAnswers(route),
  }));
}

/**
 * The schemas the chain checks a request against, holding every string and integer to what storage
 * can take (runtime/storable-schema.ts): no route can forget it. A body the cluster judges keeps the
 * schema that documents it.
 */
function storableInput(route: RouteDefinition): Pick<RouteDefinition, 'requestSchema' | 'querySchema'> {
  return {
    ...(route.requestSchema
      ? { requestSchema: route.bodyJudgedByCluster ? route.requestSchema : storableSchema(route.requestSchema) }
      : {}),
    ...(route.querySchema ? { querySchema: storableSchema(route.querySchema) } : {}),
  };
}

/** The route, once it declares how it is authorised: a route without a declaration fails the table's build. */
function checkedAuthorisation(route: RouteDefinition): RouteDefinition {
  effectiveAuthorisation(route);
  return route;
}

/** Keeps the literal types of route declarations (path, auth, schemas), from which handlers are typed. */
export function declareRoutes<const Routes extends readonly RouteDefinition[]>(routes: Routes): Routes {
  return routes;
}

/** The routes as declared, in order. */
function declaredRoutes(apiGroup: string) {
  return declareRoutes([
    {
      method: 'GET',
      path: '/healthz',
      target: 'every-function',
      auth: 'none',
      operationId: 'getHealth',
      summary: 'Liveness: the process is serving.',
      responseSchema: { type: 'object', properties: { status: { type: 'string' } } },
    },
    {
      method: 'GET',
      path: '/readyz',
      target: 'every-function',
      auth: 'none',
      operationId: 'getReadiness',
      summary: 'Readiness: the function can verify tokens and reach what it depends on.',
      responseSchema: { type: 'object', properties: { status: { type: 'string' } } },
      errorResponses: { 503: 'Not ready; `reason` says why.' },
    },
    {
      method: 'POST',
      path: '/api/v1alpha1/auth/login',
      target: 'login',
      auth: 'none',
      operationId: 'login',
      summary:
        'Log in as the built-in admin account. The password goes in `Authorization: Bearer <password>`; no body.',
      responseSchema: {
        type: 'object',
        required: ['idToken'],
        properties: { idToken: { type: 'string', description: 'The admin JWT (HS256).' } },
        additionalProperties: false,
      },
      errorResponses: {
        400: 'Missing or malformed Authorization header.',
        403: 'Wrong password (`InvalidPassword`) or admin account disabled (`AdminAccountDisabled`).',
        429: 'Too many failed logins from this client, or too many logins in progress; see `Retry-After`.',
      },
    },
    {
      method: 'GET',
      path: '/api/v1alpha1/auth/whoami',
      target: 'resources',
      auth: 'bearer',
      operationId: 'whoAmI',
      anyAuthenticatedCaller: true,
      summary:
        'Who the token authenticates as: the principal type and the name runs record for it (`admin`, the OIDC username, `system:serviceaccount:<ns>:<name>`). Needs nothing but a valid token.',
      responseSchema: {
        type: 'object',
        required: ['type', 'name'],
        properties: { type: { enum: ['admin', 'oidc', 'serviceaccount'] }, name: { type: 'string' } },
        additionalProperties: false,
      },
    },
    {
      method: 'GET',
      path: '/api/v1alpha1/system/public-config',
      target: 'public-config',
      auth: 'none',
      operationId: 'getPublicConfig',
      summary: 'What a client needs before it logs in: whether the admin account is enabled and the OIDC settings.',
      responseSchema: { $ref: '#/components/schemas/PublicConfig' },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      target: 'public-config',
      auth: 'none',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document.',
      responseSchema: { type: 'object' },
    },
    {
      method: 'GET',
      path: '/docs',
      target: 'public-config',
      auth: 'none',
      operationId: 'getApiReference',
      summary: 'A readable API reference page generated from the OpenAPI document.',
      responseMediaType: 'text/html',
    },
    ...kubernetesApiRoutes(apiGroup),
    ...resourceRoutes(apiGroup),
    ...runRoutes(),
    ...internalRoutes(),
    {
      method: '*',
      path: '/internal/*',
      target: 'internal',
      auth: 'bearer',
      operationId: 'internal',
      authorisation: NON_RESOURCE,
      summary: 'Any other route of the workspace controller (404 once authorised), called with a ServiceAccount token.',
      answersOnlyErrors: true,
      errorResponses: { 404: 'No such route of the workspace controller (once authorised).' },
    },
    {
      method: 'GET',
      path: '/api/v1alpha1/run-logs/{project}/{run}',
      target: 'run-logs',
      auth: 'bearer-or-query',
      operationId: 'streamRunLogs',
      authorisation: runWorkspaceAuthorisation('get', 'log'),
      summary:
        "Stream a run's log lines as server-sent events (`id:` = line number; honours `Last-Event-ID`; a heartbeat comment every 15 s; `event: end` once the run is final; `event: expired` when the token ends; `event: resume` when the client fell behind). The only route that accepts `?access_token=`. Authorised as `get` on `workspaces/log` (name: the run's Workspace).",
      responseMediaType: 'text/event-stream',
      errorResponses: {
        404: 'No such run in this Project (`RunNotFound`).',
        429: 'The principal already has RUN_LOG_MAX_STREAMS_PER_PRINCIPAL streams open (`TooManyStreams`); retry after `Retry-After`.',
        503: 'The database is unavailable; retry after `Retry-After`.',
      },
    },
    {
      method: '*',
      path: '/bridge/*',
      target: 'bridge',
      auth: 'none',
      operationId: 'identityBridge',
      summary: 'Forwarded unauthenticated to the optional identity bridge (404 when none is configured).',
      errorResponses: { 404: 'No identity bridge is configured (`BridgeNotConfigured`).' },
    },
  ]);
}

/** Every route declared with literal types: what typed handlers are bound to (see shared/runtime/typed-handlers.ts). */
export type DeclaredRoute = ReturnType<typeof declaredRoutes>[number];

function pathParameterSchemas(route: RouteDefinition): Record<string, PathParameterSchema> {
  const schemas: Record<string, PathParameterSchema> = {};
  for (const name of pathParameterNames(route.path)) {
    const schema = route.pathParameters?.[name] ?? PATH_PARAMETERS_BY_NAME[name];
    if (!schema) throw new Error(`route ${route.operationId}: path parameter {${name}} has no schema`);
    schemas[name] = schema;
  }
  return schemas;
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
