// The resource types the emulator serves: the built-in ones plus those that CustomResourceDefinitions add.
import type { JsonSchemaProps } from '../schema/structural-schema.ts';

/** One served resource type, as discovery describes it. */
export interface ResourceType {
  group: string;
  /** Served versions, the first one preferred. */
  versions: string[];
  /** Plural name, the path segment. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: string[];
  /** Subresources beyond the object itself, e.g. `status`, `token`. */
  subresources: string[];
  /** Stored objects (false for review APIs that only answer a POST). */
  stored: boolean;
  /** Served from a CustomResourceDefinition: objects keep apiVersion/kind in lists, updates need a resourceVersion. */
  custom: boolean;
  /** metadata.generation counts changes to the desired state (CRDs and custom resources). */
  tracksGeneration: boolean;
  /** DELETE answers the deleted object instead of a `Status` (as the real registry does per type). */
  returnsDeletedObject: boolean;
  /** Custom resources: the structural schema of each served version, which prunes and validates their objects. */
  schemas?: Record<string, JsonSchemaProps | undefined>;
  /** Custom resources: the schema of the storage version, whose defaults objects get whenever they are read. */
  storageSchema?: JsonSchemaProps;
}

/** The verbs of an ordinary stored resource. */
export const STORED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(
  group: string,
  version: string,
  resource: string,
  kind: string,
  options: Partial<
    Pick<
      ResourceType,
      'namespaced' | 'shortNames' | 'subresources' | 'stored' | 'returnsDeletedObject' | 'tracksGeneration'
    >
  > = {},
): ResourceType {
  const stored = options.stored ?? true;
  return {
    group,
    versions: [version],
    resource,
    singular: kind.toLowerCase(),
    kind,
    namespaced: options.namespaced ?? true,
    shortNames: options.shortNames ?? [],
    verbs: stored ? STORED_VERBS : ['create'],
    subresources: options.subresources ?? [],
    stored,
    custom: false,
    tracksGeneration: options.tracksGeneration ?? false,
    returnsDeletedObject: options.returnsDeletedObject ?? false,
  };
}

const RBAC = 'rbac.authorization.k8s.io';

const BUILTIN_TYPES: ResourceType[] = [
  builtin('', 'v1', 'namespaces', 'Namespace', { namespaced: false, shortNames: ['ns'], subresources: ['status'] }),
  builtin('', 'v1', 'serviceaccounts', 'ServiceAccount', {
    shortNames: ['sa'],
    subresources: ['token'],
    returnsDeletedObject: true,
  }),
  builtin('', 'v1', 'secrets', 'Secret'),
  builtin('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  // The chart's scheduled outbound sweep (issue 47) is a CronJob: helm maps it against the cluster's discovery.
  builtin('batch', 'v1', 'cronjobs', 'CronJob', {
    shortNames: ['cj'],
    subresources: ['status'],
    tracksGeneration: true,
  }),
  builtin(RBAC, 'v1', 'roles', 'Role'),
  builtin(RBAC, 'v1', 'rolebindings', 'RoleBinding'),
  builtin(RBAC, 'v1', 'clusterroles', 'ClusterRole', { namespaced: false }),
  builtin(RBAC, 'v1', 'clusterrolebindings', 'ClusterRoleBinding', { namespaced: false }),
  builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', {
    namespaced: false,
    shortNames: ['crd', 'crds'],
    subresources: ['status'],
    tracksGeneration: true,
  }),
  builtin('authentication.k8s.io', 'v1', 'tokenreviews', 'TokenReview', { namespaced: false, stored: false }),
  builtin('authentication.k8s.io', 'v1', 'selfsubjectreviews', 'SelfSubjectReview', {
    namespaced: false,
    stored: false,
  }),
  builtin('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview', {
    namespaced: false,
    stored: false,
  }),
  builtin('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', {
    namespaced: false,
    stored: false,
  }),
  builtin('authorization.k8s.io', 'v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', { stored: false }),
];

/** The key of a type in maps: `group/resource`. */
export function typeKey(type: { group: string; resource: string }): string {
  return `${type.group}/${type.resource}`;
}

/** The `apiVersion` string of a group and version. */
export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Looks up served resource types; CustomResourceDefinitions add and remove entries at run time. */
export class ResourceRegistry {
  readonly #types = new Map<string, ResourceType>();

  constructor() {
    for (const type of BUILTIN_TYPES) this.#types.set(typeKey(type), type);
  }

  /** The type served at `/apis/<group>/<version>/<resource>`, if any. */
  find(group: string, version: string, resource: string): ResourceType | undefined {
    const type = this.#types.get(`${group}/${resource}`);
    return type?.versions.includes(version) ? type : undefined;
  }

  /** The type with this group and plural name, whatever version. */
  get(group: string, resource: string): ResourceType | undefined {
    return this.#types.get(`${group}/${resource}`);
  }

  /** Every served type. */
  all(): ResourceType[] {
    return [...this.#types.values()];
  }

  /** Adds or replaces a type. */
  set(type: ResourceType): void {
    this.#types.set(typeKey(type), type);
  }

  /** Stops serving a type. */
  remove(group: string, resource: string): void {
    this.#types.delete(`${group}/${resource}`);
  }
}
