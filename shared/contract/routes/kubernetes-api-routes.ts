import { API_VERSION } from '../kinds/platform-kinds.ts';
import { declareRoutes, type RouteDefinition } from './route-definition.ts';

const DISCOVERY = "Any authenticated caller (as Kubernetes' `system:discovery`). Only the platform's kinds.";
const DOCUMENT = { type: 'object' };

/** What Kubernetes clients (kubectl, client-go, client-node) read besides the resources: version, discovery, OpenAPI. */
export function kubernetesApiRoutes(apiGroup: string) {
  const group = `/apis/${apiGroup}`;
  const route = <
    const Path extends string,
    const Id extends string,
    const Extra extends Partial<RouteDefinition> = Record<never, never>,
  >(
    path: Path,
    operationId: Id,
    summary: string,
    extra?: Extra,
  ) => ({
    method: 'GET' as const,
    path,
    target: 'resources' as const,
    auth: 'bearer' as const,
    operationId,
    summary,
    responseSchema: DOCUMENT,
    anyAuthenticatedCaller: true,
    openQuery: true,
    ...(extra as Extra),
  });
  return declareRoutes([
    route(
      '/version',
      'getKubernetesVersion',
      'The Kubernetes version whose API conventions the server follows (`kubectl version`).',
      {
        summary:
          'The Kubernetes version whose API conventions the server follows (`kubectl version`). Any authenticated caller.',
      },
    ),
    route(
      '/api',
      'getCoreApiVersions',
      `Core group discovery (\`APIVersions\`, or aggregated \`APIGroupDiscoveryList\` when Accept asks for \`as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2\`): only \`namespaces\` (get). ${DISCOVERY}`,
    ),
    route(
      '/api/v1',
      'getCoreApiResources',
      `The core group's \`APIResourceList\`: only \`namespaces\` (get). ${DISCOVERY}`,
    ),
    route(
      '/api/v1/namespaces/{namespace}',
      'getProjectNamespace',
      "A namespace that is a Project's (kubectl reads it to word a NotFound). Authorized as `get` on `namespaces` with its name; other namespaces answer 404.",
      {
        errorResponses: { 404: 'No such namespace, or it belongs to no Project (a `Status`).' },
        anyAuthenticatedCaller: false,
        authorization: {
          attributes: { verb: 'get', group: 'core', resource: 'namespaces', nameParameter: 'namespace' },
        } as const,
        statusErrors: true,
      },
    ),
    route(
      '/apis',
      'getApiGroups',
      `\`APIGroupList\` of the platform's group, or aggregated discovery (\`APIGroupDiscoveryList\`, apidiscovery.k8s.io/v2) when Accept asks for it. ${DISCOVERY}`,
    ),
    route(group, 'getPlatformApiGroup', `The platform's \`APIGroup\`. ${DISCOVERY}`),
    route(
      `${group}/${API_VERSION}`,
      'getPlatformApiResources',
      `\`APIResourceList\` of the platform's kinds: verbs, shortNames, categories, singularName, kind, namespaced. ${DISCOVERY}`,
    ),
    route(
      '/openapi/v2',
      'getOpenApiV2',
      `Swagger 2.0 of the platform's kinds from the CRD schemas (protobuf, empty, when Accept asks for it, as client-go does). ${DISCOVERY}`,
    ),
    route(
      '/openapi/v3',
      'getOpenApiV3',
      `Where the OpenAPI v3 document of the platform's group is (with a content hash). ${DISCOVERY}`,
    ),
    route(
      `/openapi/v3/apis/${apiGroup}/${API_VERSION}`,
      'getOpenApiV3PlatformGroup',
      `OpenAPI v3 of the platform's kinds from the CRD schemas, tagged with \`x-kubernetes-group-version-kind\`; the PATCH operations take \`fieldValidation\` (\`kubectl explain\`, \`kubectl apply\`). ${DISCOVERY}`,
    ),
  ]);
}
