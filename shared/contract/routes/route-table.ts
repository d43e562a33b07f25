import { PATH_PARAMETERS_BY_NAME, pathParameterNames, type PathParameterSchema } from './path-parameters.ts';
import { declareRoutes, type RouteDefinition } from './route-definition.ts';
import { accessReviewRoutes } from './access-review-routes.ts';
import { auditRoutes } from './audit-routes.ts';
import { kubernetesApiRoutes } from './kubernetes-api-routes.ts';
import { internalRoutes } from './controller-routes.ts';
import { resourceRoutes } from './resource-routes.ts';
import { runLogRoutes, runRoutes } from './run-routes.ts';
import { notificationRoutes } from './notification-routes.ts';
import { runTaskRoutes } from './run-task-routes.ts';
import { rolloutRoutes } from './rollout-routes.ts';
import { tokenRoutes } from './token-routes.ts';
import { bridgeRoutes, serviceRoutes } from './service-routes.ts';
import { routeAnswers } from './route-answers.ts';
import { effectiveAuthorization } from './route-authorization.ts';
import { storableSchema } from '../../base/json/storable-schema.ts';

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
    ...checkedAuthorization(route),
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

/** The route, once it declares how it is authorized: a route without a declaration fails the table's build. */
function checkedAuthorization(route: RouteDefinition): RouteDefinition {
  effectiveAuthorization(route);
  return route;
}

/** The routes as declared, in order. */
function declaredRoutes(apiGroup: string) {
  return declareRoutes([
    ...serviceRoutes(),
    ...kubernetesApiRoutes(apiGroup),
    ...accessReviewRoutes(),
    ...resourceRoutes(apiGroup),
    ...runRoutes(),
    ...notificationRoutes(),
    ...runTaskRoutes(),
    ...rolloutRoutes(),
    ...tokenRoutes(),
    ...auditRoutes(),
    ...internalRoutes(),
    ...runLogRoutes(),
    ...bridgeRoutes(),
  ]);
}

/** Every route declared with literal types: what typed handlers are bound to (see shared/server/runtime/typed-handlers.ts). */
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
