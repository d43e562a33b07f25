import { PATH_PARAMETERS_BY_NAME, pathParameterNames, type PathParameterSchema } from './path-parameters.ts';
import { declareRoutes, type RouteDefinition } from './route-definition.ts';
import { kubernetesApiRoutes } from './kubernetes-api-routes.ts';
import {
  NON_RESOURCE,
  internalRoutes,
  resourceRoutes,
  runRoutes,
  runWorkspaceAuthorisation,
} from './platform-routes.ts';
import { routeAnswers } from './route-answers.ts';
import { effectiveAuthorisation } from './route-authorisation.ts';
import { storableSchema } from '../json/storable-schema.ts';

/**
 * The route table: every route the service answers, declared once. The local gateway, each
 * function's router, the unauthenticated allowlist, the OpenAPI document and the chart's path
 * routing (HTTPRoute) are all derived from it.
 */

// Callers read the route types where they read the table.
export {
  ERROR_SCHEMA,
  FUNCTION_NAMES,
  declareRoutes,
  type AuthMode,
  type FunctionName,
  type RouteDefinition,
  type RouteTarget,
} from './route-definition.ts';

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
 * can take (json/storable-schema.ts): no route can forget it. A body the cluster judges keeps the
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
