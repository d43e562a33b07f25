import { API_VERSION } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { KindDescription } from '../../../shared/contract/kinds/platform-kind-descriptions.ts';

// Only the platform's kinds are discovered: the server is not a general cluster proxy. The core group
// lists nothing but `namespaces` (get), served for the namespaces that are Projects.

/** The verbs every platform kind serves. */
export const KIND_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];
const NAMESPACE_VERBS = ['get'];

/** The media type of aggregated discovery (apidiscovery.k8s.io/v2), which kubectl asks for first. */
export const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** Whether an Accept header asks for aggregated discovery (v2) before the legacy documents. */
export function wantsAggregatedDiscovery(accept: string): boolean {
  return accept
    .split(',')
    .map((type) => type.replace(/\s+/g, ''))
    .some(
      (type) =>
        type.includes('g=apidiscovery.k8s.io') && type.includes('v=v2;') && type.includes('as=APIGroupDiscoveryList'),
    );
}

/** `GET /api`: the core group's versions. */
export function coreApiVersions(): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: null };
}

/** `GET /api/v1`. */
export function coreResourceList(): Record<string, unknown> {
  return {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      {
        name: 'namespaces',
        singularName: 'namespace',
        namespaced: false,
        kind: 'Namespace',
        verbs: NAMESPACE_VERBS,
        shortNames: ['ns'],
      },
    ],
  };
}

/** `GET /apis/<group>`. */
export function platformApiGroup(apiGroup: string): Record<string, unknown> {
  const version = { groupVersion: `${apiGroup}/${API_VERSION}`, version: API_VERSION };
  return { kind: 'APIGroup', apiVersion: 'v1', name: apiGroup, versions: [version], preferredVersion: version };
}

/** `GET /apis`. */
export function apiGroupList(apiGroup: string): Record<string, unknown> {
  const { kind: _kind, apiVersion: _apiVersion, ...group } = platformApiGroup(apiGroup);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] };
}

/** `GET /apis/<group>/v1alpha1`: every kind with its status subresource. */
export function platformResourceList(apiGroup: string, kinds: KindDescription[]): Record<string, unknown> {
  const resources = kinds.flatMap((description) => {
    const { kind } = description;
    const main = {
      name: kind.plural,
      singularName: description.singular,
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: KIND_VERBS,
      ...(description.shortNames.length > 0 ? { shortNames: description.shortNames } : {}),
      ...(description.categories.length > 0 ? { categories: description.categories } : {}),
    };
    const subresources = description.subresources.map((name) => ({
      name: `${kind.plural}/${name}`,
      singularName: '',
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: SUBRESOURCE_VERBS,
    }));
    return [main, ...subresources];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${apiGroup}/${API_VERSION}`, resources };
}

/** Aggregated discovery of `/apis` (the platform group) or `/api` (the core group's namespaces). */
export function aggregatedDiscovery(
  scope: 'apis' | 'api',
  apiGroup: string,
  kinds: KindDescription[],
): Record<string, unknown> {
  const item =
    scope === 'api'
      ? {
          metadata: { creationTimestamp: null },
          versions: [
            {
              version: 'v1',
              freshness: 'Current',
              resources: [
                {
                  resource: 'namespaces',
                  responseKind: { group: '', version: 'v1', kind: 'Namespace' },
                  scope: 'Cluster',
                  singularResource: 'namespace',
                  verbs: NAMESPACE_VERBS,
                  shortNames: ['ns'],
                },
              ],
            },
          ],
        }
      : {
          metadata: { name: apiGroup, creationTimestamp: null },
          versions: [
            {
              version: API_VERSION,
              freshness: 'Current',
              resources: kinds.map((description) => aggregatedResource(apiGroup, description)),
            },
          ],
        };
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items: [item] };
}

function aggregatedResource(apiGroup: string, description: KindDescription): Record<string, unknown> {
  const { kind } = description;
  const responseKind = { group: apiGroup, version: API_VERSION, kind: kind.kind };
  return {
    resource: kind.plural,
    responseKind,
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: description.singular,
    verbs: KIND_VERBS,
    ...(description.shortNames.length > 0 ? { shortNames: description.shortNames } : {}),
    ...(description.categories.length > 0 ? { categories: description.categories } : {}),
    ...(description.subresources.length > 0
      ? {
          subresources: description.subresources.map((subresource) => ({
            subresource,
            responseKind,
            verbs: SUBRESOURCE_VERBS,
          })),
        }
      : {}),
  };
}
