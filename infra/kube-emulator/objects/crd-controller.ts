// What the apiextensions-apiserver does when CustomResourceDefinitions change: serve their resources, and on
// deletion remove every custom resource before releasing the definition's cleanup finalizer.
import type { KubeObject } from './kube-object.ts';
import { STORED_VERBS } from './resource-registry.ts';
import type { ResourceRegistry, ResourceType } from './resource-registry.ts';
import type { ResourceStore } from '../storage/resource-store.ts';
import { CRD_CLEANUP_FINALIZER } from './strategies.ts';
import type { JsonSchemaProps } from '../schema/structural-schema.ts';

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  subresources?: { status?: object };
  schema?: { openAPIV3Schema?: JsonSchemaProps };
}

interface CrdSpec {
  group: string;
  scope: 'Cluster' | 'Namespaced';
  names: { plural: string; singular?: string; kind: string; shortNames?: string[] };
  versions: CrdVersion[];
}

// Kubernetes version priority: GA before beta before alpha, higher numbers first (v2 > v1 > v1beta2 > v1alpha1).
function versionPriority(version: string): number[] {
  const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!match) return [0, 0, 0];
  const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
  return [stability, Number(match[1]), Number(match[3] ?? 0)];
}

function compareVersions(a: string, b: string): number {
  const [pa, pb] = [versionPriority(a), versionPriority(b)];
  for (let i = 0; i < pa.length; i++) if (pa[i] !== pb[i]) return pb[i]! - pa[i]!;
  return a.localeCompare(b);
}

/** The resource type a CustomResourceDefinition serves. */
export function resourceTypeOf(crd: KubeObject): ResourceType {
  const spec = crd.spec as CrdSpec;
  const served = spec.versions.filter((version) => version.served !== false);
  return {
    group: spec.group,
    versions: served.map((version) => version.name).sort(compareVersions),
    resource: spec.names.plural,
    singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
    kind: spec.names.kind,
    namespaced: spec.scope === 'Namespaced',
    shortNames: spec.names.shortNames ?? [],
    verbs: STORED_VERBS,
    subresources: served.some((version) => version.subresources?.status) ? ['status'] : [],
    stored: true,
    custom: true,
    tracksGeneration: true,
    returnsDeletedObject: true,
    schemas: Object.fromEntries(served.map((version) => [version.name, version.schema?.openAPIV3Schema])),
    storageSchema: spec.versions.find((version) => version.storage)?.schema?.openAPIV3Schema,
  };
}

/** Starts following CustomResourceDefinition changes; returns the unsubscribe function. */
export function runCrdController(store: ResourceStore, registry: ResourceRegistry): () => void {
  const crds = registry.get('apiextensions.k8s.io', 'customresourcedefinitions')!;
  // CRDs restored from saved state are served again before any request.
  for (const crd of store.list(crds)) if (!crd.metadata.deletionTimestamp) registry.set(resourceTypeOf(crd));
  return store.subscribe((event) => {
    if (event.resourceType !== crds) return;
    const crd = event.object;
    const served = resourceTypeOf(crd);
    if (event.type === 'DELETED') {
      registry.remove(served.group, served.resource);
    } else if (crd.metadata.deletionTimestamp) {
      const type = registry.get(served.group, served.resource);
      if (type) for (const item of store.list(type)) store.delete(type, item.metadata.namespace, item.metadata.name!);
      registry.remove(served.group, served.resource);
      const finalizers = (crd.metadata.finalizers ?? []).filter((finalizer) => finalizer !== CRD_CLEANUP_FINALIZER);
      if (finalizers.length !== crd.metadata.finalizers?.length)
        store.update(crds, { ...crd, metadata: { ...crd.metadata, finalizers } });
    } else {
      registry.set(served);
    }
  });
}
