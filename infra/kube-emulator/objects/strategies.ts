// Per-type rules of the real registry ("REST strategies"): defaulting, validation, fields a write may not change,
// and what holds an object back from removal. The generic metadata rules live in the resource store.
import type { KubeObject } from './kube-object.ts';
import type { ResourceType } from './resource-registry.ts';
import { listTypeErrors } from '../schema/schema-list-types.ts';
import { schemaErrors } from '../schema/schema-validation.ts';
import type { FieldError } from '../http/status.ts';

export interface Strategy {
  /** Sets defaults and server-owned fields on an object about to be created. */
  prepareForCreate(object: KubeObject): void;
  /** Restores on `object` what a write through `subresource` ('' for the object itself) may not change. */
  prepareForUpdate(object: KubeObject, old: KubeObject, subresource: string): void;
  /** Field errors that make the write a 422. */
  validate(object: KubeObject, old: KubeObject | undefined): FieldError[];
  /** Finalizers that keep a deleted object in place until removed. */
  pendingFinalizers(object: KubeObject): string[];
  /** Marks an object whose deletion waits for finalizers. */
  prepareForDelete(object: KubeObject): void;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The problems with a name, one message each (kube-apiserver reports each as its own field error). */
type NameRule = (name: string) => string[];

// k8s.io/apimachinery/pkg/util/validation: a length error and a format error are separate messages.
function dnsNameRule(maxLength: number, pattern: RegExp, formatMessage: string): NameRule {
  return (name) => [
    ...(name.length > maxLength ? [`must be no more than ${maxLength} characters`] : []),
    ...(pattern.test(name) ? [] : [formatMessage]),
  ];
}

const dnsSubdomainName = dnsNameRule(
  253,
  DNS_SUBDOMAIN,
  `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
);

const dnsLabelName = dnsNameRule(
  63,
  DNS_LABEL,
  `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
);

// RBAC object names are path segments, so `system:discovery` is valid.
const pathSegmentName: NameRule = (name) => {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  if (name.includes('/')) return [`may not contain '/'`];
  if (name.includes('%')) return [`may not contain '%'`];
  return [];
};

function nameErrors(object: KubeObject, rule: NameRule): FieldError[] {
  const name = object.metadata.name ?? '';
  if (!name)
    return [{ field: 'metadata.name', type: 'FieldValueRequired', detail: 'name or generateName is required' }];
  return rule(name).map((detail) => ({ field: 'metadata.name', type: 'FieldValueInvalid', value: name, detail }));
}

function metadataFinalizers(object: KubeObject): string[] {
  return object.metadata.finalizers ?? [];
}

function strategy(overrides: Partial<Strategy> & { nameRule?: NameRule }): Strategy {
  const nameRule = overrides.nameRule ?? dnsSubdomainName;
  return {
    prepareForCreate: overrides.prepareForCreate ?? (() => {}),
    prepareForUpdate: overrides.prepareForUpdate ?? (() => {}),
    validate: (object, old) => [...nameErrors(object, nameRule), ...(overrides.validate?.(object, old) ?? [])],
    pendingFinalizers: overrides.pendingFinalizers ?? metadataFinalizers,
    prepareForDelete: overrides.prepareForDelete ?? (() => {}),
  };
}

const namespaceStrategy = strategy({
  nameRule: dnsLabelName,
  prepareForCreate(object) {
    object.metadata.labels = { ...object.metadata.labels, 'kubernetes.io/metadata.name': object.metadata.name ?? '' };
    object.spec = { finalizers: ['kubernetes'] };
    object.status = { phase: 'Active' };
  },
  prepareForUpdate(object, old, subresource) {
    object.metadata.labels = { ...object.metadata.labels, 'kubernetes.io/metadata.name': old.metadata.name ?? '' };
    if (subresource !== 'finalize') object.spec = old.spec;
    if (subresource !== 'status') object.status = old.status;
  },
  pendingFinalizers(object) {
    const spec = object.spec as { finalizers?: string[] } | undefined;
    return [...metadataFinalizers(object), ...(spec?.finalizers ?? [])];
  },
  prepareForDelete(object) {
    object.status = { phase: 'Terminating' };
  },
});

// The API server folds `stringData` into base64 `data` and never stores it.
function foldStringData(object: KubeObject): void {
  const stringData = object.stringData as Record<string, string> | undefined;
  if (stringData) {
    // fromEntries defines each key as data, so a key named `__proto__` stays a key.
    const encoded = Object.entries(stringData).map(([key, value]) => [key, Buffer.from(value).toString('base64')]);
    object.data = Object.fromEntries([
      ...Object.entries((object.data as Record<string, string> | undefined) ?? {}),
      ...encoded,
    ]);
    delete object.stringData;
  }
}

const secretStrategy = strategy({
  prepareForCreate(object) {
    object.type ??= 'Opaque';
    foldStringData(object);
  },
  prepareForUpdate(object, old) {
    object.type ??= old.type;
    foldStringData(object);
  },
  validate(object, old) {
    return old && object.type !== old.type
      ? [{ field: 'type', type: 'FieldValueInvalid', value: object.type, detail: 'field is immutable' }]
      : [];
  },
});

/**
 * A binding's roleRef, as kube-apiserver validates it: a kind the binding may name (a RoleBinding a Role
 * or a ClusterRole, a ClusterRoleBinding a ClusterRole only), a name, and no change once created.
 */
function roleRefErrors(kinds: readonly string[], object: KubeObject, old: KubeObject | undefined): FieldError[] {
  const roleRef = object.roleRef as { kind?: string; name?: string } | undefined;
  if (!kinds.includes(roleRef?.kind ?? '')) {
    const supported = kinds.map((kind) => `"${kind}"`).join(', ');
    return [
      {
        field: 'roleRef.kind',
        type: 'FieldValueNotSupported',
        value: roleRef?.kind ?? '',
        detail: `supported values: ${supported}`,
      },
    ];
  }
  if (!roleRef?.name) return [{ field: 'roleRef.name', type: 'FieldValueRequired', detail: '' }];
  if (old && JSON.stringify(old.roleRef) !== JSON.stringify(object.roleRef)) {
    return [{ field: 'roleRef', type: 'FieldValueInvalid', value: object.roleRef, detail: 'cannot change roleRef' }];
  }
  return [];
}

const roleBindingStrategy = strategy({
  nameRule: pathSegmentName,
  validate: (object, old) => roleRefErrors(['Role', 'ClusterRole'], object, old),
});

const clusterRoleBindingStrategy = strategy({
  nameRule: pathSegmentName,
  validate: (object, old) => roleRefErrors(['ClusterRole'], object, old),
});

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { plural?: string; kind?: string };
  versions?: { name?: string; served?: boolean; storage?: boolean }[];
}

// The real API server removes custom resources before the definition goes away.
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const crdStrategy = strategy({
  nameRule: () => [],
  prepareForCreate(object) {
    const spec = (object.spec ?? {}) as CrdSpec;
    object.status = {
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ].map((condition) => ({ ...condition, lastTransitionTime: object.metadata.creationTimestamp })),
      acceptedNames: spec.names ?? {},
      storedVersions: (spec.versions ?? []).filter((version) => version.storage).map((version) => version.name),
    };
  },
  prepareForUpdate(object, old, subresource) {
    if (subresource !== 'status') object.status = old.status;
  },
  validate(object, old) {
    const spec = (object.spec ?? {}) as CrdSpec;
    const errors: FieldError[] = [];
    const expected = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
    if (object.metadata.name !== expected) {
      errors.push({
        field: 'metadata.name',
        type: 'FieldValueInvalid',
        value: object.metadata.name ?? '',
        detail: 'must be spec.names.plural+"."+spec.group',
      });
    }
    if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
      errors.push({
        field: 'spec.scope',
        type: 'FieldValueNotSupported',
        value: spec.scope ?? '',
        detail: 'supported values: "Cluster", "Namespaced"',
      });
    }
    if (!spec.names?.kind) errors.push({ field: 'spec.names.kind', type: 'FieldValueRequired', detail: '' });
    if ((spec.versions ?? []).filter((version) => version.storage).length !== 1) {
      errors.push({
        field: 'spec.versions',
        type: 'FieldValueInvalid',
        value: spec.versions ?? [],
        detail: 'must have exactly one version marked as storage version',
      });
    }
    if (old && (old.spec as CrdSpec).group !== spec.group) {
      errors.push({
        field: 'spec.group',
        type: 'FieldValueInvalid',
        value: spec.group ?? '',
        detail: 'field is immutable',
      });
    }
    return errors;
  },
  prepareForDelete(object) {
    object.metadata.finalizers = [...new Set([...(object.metadata.finalizers ?? []), CRD_CLEANUP_FINALIZER])];
  },
});

// Custom resources with a status subresource keep status out of main-resource writes and vice versa; every write
// is validated against the schema of the version it was made in (CEL rules excepted).
function customResourceStrategy(type: ResourceType, version: string): Strategy {
  const schema = type.schemas?.[version];
  return strategy({
    // With a status subresource, status is written through it alone: a create starts without one.
    prepareForCreate(object) {
      if (type.subresources.includes('status')) delete object.status;
    },
    prepareForUpdate(object, old, subresource) {
      if (!type.subresources.includes('status')) return;
      if (subresource === 'status') {
        // A status write changes the status only: everything else, metadata included, stays as stored.
        const status = object.status;
        for (const key of Object.keys(object)) delete object[key];
        Object.assign(object, structuredClone(old), { status });
      } else {
        object.status = old.status;
      }
    },
    validate(object) {
      return schema ? [...schemaErrors(object, schema), ...listTypeErrors(object, schema)] : [];
    },
  });
}

const plainStrategy = strategy({});
const rbacRoleStrategy = strategy({ nameRule: pathSegmentName });

const STRATEGIES: Record<string, Strategy> = {
  '/namespaces': namespaceStrategy,
  '/secrets': secretStrategy,
  'rbac.authorization.k8s.io/roles': rbacRoleStrategy,
  'rbac.authorization.k8s.io/clusterroles': rbacRoleStrategy,
  'rbac.authorization.k8s.io/rolebindings': roleBindingStrategy,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBindingStrategy,
  'apiextensions.k8s.io/customresourcedefinitions': crdStrategy,
};

/** The strategy of a resource type, for writes made in `version` (the preferred one by default). */
export function strategyFor(type: ResourceType, version = type.versions[0]!): Strategy {
  if (type.custom) return customResourceStrategy(type, version);
  return STRATEGIES[`${type.group}/${type.resource}`] ?? plainStrategy;
}
