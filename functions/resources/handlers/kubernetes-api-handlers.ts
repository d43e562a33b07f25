import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { AuthorizedObjects } from '../../../shared/authz/authorized-objects.ts';
import { jsonResponse, type ApiRequest, type ApiResponse } from '../../../shared/base/http/api-request.ts';
import {
  PROTOBUF_V2,
  PROTOBUF_V2_DOCUMENT,
  wantsProtobufOpenApiV2,
} from '../../../shared/base/kubernetes/openapi-probes.ts';
import type { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { platformKindDescriptions } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';
import {
  AGGREGATED_DISCOVERY,
  aggregatedDiscovery,
  apiGroupList,
  coreApiVersions,
  coreResourceList,
  platformApiGroup,
  platformResourceList,
  wantsAggregatedDiscovery,
} from '../kubernetes/discovery-documents.ts';
import { openApiV2Document, openApiV3GroupDocument, openApiV3Root } from '../kubernetes/openapi-documents.ts';

/** The Kubernetes API conventions this server follows: kubectl compares its own version with it. */
const KUBERNETES_VERSION = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0+platform-api',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '',
  goVersion: '',
  compiler: '',
  platform: 'linux/amd64',
};
const DOCUMENT_VERSION = 'v1alpha1';

const documentResponse = (payload: unknown, contentType = 'application/json') =>
  jsonResponse(200, payload, { 'content-type': contentType, vary: 'Accept' });

/**
 * What Kubernetes clients read before any request: `/version`, discovery (legacy and aggregated) and the
 * OpenAPI documents, for the platform's kinds only (any authenticated caller may read them, as
 * Kubernetes' `system:discovery` allows); and `GET /api/v1/namespaces/<ns>` for namespaces that are Projects.
 */
export function kubernetesApiHandlers(objects: ClusterObjects) {
  const { apiGroup } = objects;
  const kinds = () => platformKindDescriptions(apiGroup);
  const discovery = (scope: 'api' | 'apis', legacy: () => unknown) => async (request: ApiRequest) =>
    wantsAggregatedDiscovery(request.headers.accept ?? '')
      ? documentResponse(aggregatedDiscovery(scope, apiGroup, await kinds()), AGGREGATED_DISCOVERY)
      : documentResponse(legacy());
  const groupDocument = async () => openApiV3GroupDocument(apiGroup, await kinds(), DOCUMENT_VERSION);

  return {
    getKubernetesVersion: () => documentResponse(KUBERNETES_VERSION),
    getCoreApiVersions: discovery('api', coreApiVersions),
    getCoreApiResources: () => documentResponse(coreResourceList()),
    getApiGroups: discovery('apis', () => apiGroupList(apiGroup)),
    getPlatformApiGroup: () => documentResponse(platformApiGroup(apiGroup)),
    getPlatformApiResources: async () => documentResponse(platformResourceList(apiGroup, await kinds())),
    getOpenApiV2: async (request) =>
      wantsProtobufOpenApiV2(request.headers.accept ?? '')
        ? { status: 200, headers: { 'content-type': PROTOBUF_V2, vary: 'Accept' }, body: PROTOBUF_V2_DOCUMENT }
        : documentResponse(openApiV2Document(apiGroup, await kinds(), DOCUMENT_VERSION)),
    getOpenApiV3: async () => documentResponse(openApiV3Root(apiGroup, await groupDocument())),
    getOpenApiV3PlatformGroup: async () => documentResponse(await groupDocument()),
    getProjectNamespace: (request) =>
      projectNamespace(request, new AuthorizedObjects(objects, request.authorization, request.deadline)),
  } satisfies Partial<RouteHandlers<'resources'>>;
}

/**
 * A Project's namespace, authorized by the chain as `get` on `namespaces` with its name (kubectl reads
 * it after a 404 to word its message); namespaces that belong to no Project are not found here.
 */
async function projectNamespace(
  request: RouteRequest<Extract<DeclaredRoute, { operationId: 'getProjectNamespace' }>>,
  objects: AuthorizedObjects,
): Promise<ApiResponse> {
  const name = request.params.namespace;
  const namespace = await objects.find<PlatformObject>(objects.corePath('namespaces', { name }));
  if (!namespace || namespace.metadata.labels?.[`${objects.apiGroup}/project`] !== name) {
    throw apiError('NotFound', `namespaces "${name}" not found`, {}, { name, kind: 'namespaces' });
  }
  return jsonResponse(200, namespace);
}
