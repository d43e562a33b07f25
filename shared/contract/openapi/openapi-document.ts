import { pathParameterNames } from '../routes/path-parameters.ts';
import { readsTimeout } from '../routes/closed-input.ts';
import { ERROR_SCHEMA, type RouteDefinition } from '../routes/route-table.ts';
import type { KindDescription } from '../kinds/platform-kind-descriptions.ts';
import { documentedRequestSchema, documentedResponses } from './route-responses.ts';
import { resourceComponentSchemas } from './kind-schemas.ts';

const PUBLIC_CONFIG_SCHEMA = {
  type: 'object',
  required: ['adminAccountEnabled'],
  properties: {
    adminAccountEnabled: { type: 'boolean' },
    oidcConfig: {
      type: 'object',
      description: 'Present only when OIDC is configured.',
      required: ['issuerUrl', 'clientId', 'cliClientId', 'scopes'],
      properties: {
        issuerUrl: { type: 'string', format: 'uri' },
        clientId: { type: 'string' },
        cliClientId: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

const METHODS_FOR_ANY = ['get', 'post', 'put', 'patch', 'delete'];

/** The group a route is listed under (the table of contents of /docs). */
function operationTag(route: RouteDefinition): string {
  if (route.resource) return `${route.resource.kind}s`;
  if (route.target === 'internal') return 'Workspace controller';
  if (route.target === 'run-logs') return 'Run logs';
  if (route.target === 'bridge') return 'Identity bridge';
  if (route.path.startsWith('/api/v1alpha1/auth/')) return 'Authentication';
  if (route.path.startsWith('/api/v1alpha1/projects/')) return 'Runs';
  if (route.target === 'resources') return 'Kubernetes discovery';
  return 'Service';
}

/** The chain's `timeout` (shared/server/runtime/filters/request-deadline.ts), on every route that reads it. */
const TIMEOUT_PARAMETER = {
  name: 'timeout',
  in: 'query',
  required: false,
  description:
    "The request's deadline, a Go duration (`20s`, as `kubectl --request-timeout=20s` sends it on every request): at most 60 s (a longer one, `0` or a negative one is 60 s); past it, 504 `Timeout`. A watch or the run-log stream is not bounded by it (a watch by `timeoutSeconds`).",
  schema: { type: 'string' },
};

/**
 * One query parameter per property of the route's query schema, whose schema is that very property (the
 * one requests are checked against), and the chain's `timeout`.
 */
function queryParameters(route: RouteDefinition): Record<string, unknown>[] {
  const properties = (route.querySchema?.properties ?? {}) as Record<string, { description?: string }>;
  const required = (route.querySchema?.required ?? []) as string[];
  return [
    ...Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.includes(name),
      ...(schema.description ? { description: schema.description } : {}),
      schema,
    })),
    ...(readsTimeout(route) ? [TIMEOUT_PARAMETER] : []),
  ];
}

/** A platform route's body may be left out when its schema requires no field (an empty body reads as `{}`); a resource body never. */
function bodyRequired(route: RouteDefinition, schema: Record<string, unknown>): boolean {
  return route.bodyJudgedByCluster === true || ((schema.required as string[] | undefined)?.length ?? 0) > 0;
}

/** The OpenAPI 3.1 document of every route in the table; `kinds` (from the CRDs) give the resource kinds' schemas. */
export function buildOpenApiDocument(
  routes: RouteDefinition[],
  apiBaseUrl: string,
  kinds: KindDescription[],
  apiGroup: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const openApiPath = route.path.endsWith('/*') ? `${route.path.slice(0, -2)}/{path}` : route.path;
    const parameters = [
      ...pathParameterNames(route.path).map((name) => {
        const { description, ...schema } = route.pathParameters?.[name] ?? { type: 'string', description: '' };
        return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
      }),
      ...(route.path.endsWith('/*')
        ? [
            {
              name: 'path',
              in: 'path',
              required: true,
              schema: { type: 'string' },
              description: 'The rest of the path.',
            },
          ]
        : []),
      ...queryParameters(route),
    ];
    const methods = route.method === '*' ? METHODS_FOR_ANY : [route.method.toLowerCase()];
    const requestSchema = documentedRequestSchema(route);
    for (const method of methods) {
      (paths[openApiPath] ??= {})[method] = {
        operationId: methods.length > 1 ? `${route.operationId}_${method}` : route.operationId,
        summary: route.summary,
        tags: [operationTag(route)],
        ...(parameters.length ? { parameters } : {}),
        ...(route.auth === 'none'
          ? { security: [] }
          : route.auth === 'bearer-or-query'
            ? { security: [{ bearerAuth: [] }, { accessTokenQuery: [] }] }
            : {}),
        ...(requestSchema
          ? {
              requestBody: {
                required: bodyRequired(route, route.requestSchema ?? requestSchema),
                content: { 'application/json': { schema: requestSchema } },
              },
            }
          : {}),
        responses: documentedResponses(route),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Platform API',
      version: 'v1alpha1',
      description:
        'API server of the infrastructure-automation platform. Every route not marked open requires `Authorization: Bearer <token>` (admin JWT, OIDC ID token or ServiceAccount token).',
    },
    servers: [{ url: apiBaseUrl }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        accessTokenQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'Only on the run-log stream.',
        },
      },
      schemas: {
        Error: ERROR_SCHEMA,
        PublicConfig: PUBLIC_CONFIG_SCHEMA,
        ...resourceComponentSchemas(apiGroup, kinds),
      },
    },
  };
}
