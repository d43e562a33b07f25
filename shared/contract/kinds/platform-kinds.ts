import { DNS_LABEL, DNS_SUBDOMAIN, type NameSchema } from './object-names.ts';

/** One of the platform's custom resource kinds, as its CustomResourceDefinition names it. */
export interface PlatformKind {
  kind: string;
  /** The resource name in paths and in authorization (`projects`). */
  plural: string;
  /** Projects are cluster-scoped; everything else lives in a Project's namespace. */
  namespaced: boolean;
  /** What a name of this kind may be, in a path and in `metadata.name`. */
  nameSchema: NameSchema;
  /**
   * Verbs a write of the object itself (create, replace, patch) may need besides its own, depending on
   * what it writes: a Rollout write that grants an approval needs `approve` (docs/resources.md).
   */
  writesMayNeed?: readonly string[];
}

export const API_VERSION = 'v1alpha1';

// A Project's name is its namespace's name, so it is a DNS label; the other kinds' names are subdomains.
export const PROJECT: PlatformKind = { kind: 'Project', plural: 'projects', namespaced: false, nameSchema: DNS_LABEL };
export const WORKSPACE: PlatformKind = {
  kind: 'Workspace',
  plural: 'workspaces',
  namespaced: true,
  nameSchema: DNS_SUBDOMAIN,
};
export const ROLLOUT: PlatformKind = {
  kind: 'Rollout',
  plural: 'rollouts',
  namespaced: true,
  nameSchema: DNS_SUBDOMAIN,
  writesMayNeed: ['approve'],
};
export const VARIABLE_SET: PlatformKind = {
  kind: 'VariableSet',
  plural: 'variablesets',
  namespaced: true,
  nameSchema: DNS_SUBDOMAIN,
};

/** Where a Project's run events are sent (issue 47, docs/notifications.md). */
export const NOTIFICATION: PlatformKind = {
  kind: 'Notification',
  plural: 'notifications',
  namespaced: true,
  nameSchema: DNS_SUBDOMAIN,
};

/** An external check a Project's runs wait for at a stage (issue 48, docs/run-tasks.md). */
export const RUN_TASK: PlatformKind = {
  kind: 'RunTask',
  plural: 'runtasks',
  namespaced: true,
  nameSchema: DNS_SUBDOMAIN,
};

export const PLATFORM_KINDS: readonly PlatformKind[] = [
  PROJECT,
  WORKSPACE,
  ROLLOUT,
  VARIABLE_SET,
  NOTIFICATION,
  RUN_TASK,
];

/** The REST operations every kind offers, with the Kubernetes verb each is authorized as. */
export const RESOURCE_OPERATIONS = {
  list: 'list',
  create: 'create',
  get: 'get',
  replace: 'update',
  patch: 'patch',
  delete: 'delete',
  getStatus: 'get',
  replaceStatus: 'update',
  patchStatus: 'patch',
} as const;
export type ResourceOperation = keyof typeof RESOURCE_OPERATIONS;

/** The route operationId of an operation on a kind: `listWorkspaces`, `patchProjectStatus`. */
export function resourceOperationId(kind: PlatformKind, operation: ResourceOperation): string {
  if (operation === 'list') return `list${kind.kind}s`;
  if (operation.endsWith('Status')) return `${operation.slice(0, -'Status'.length)}${kind.kind}Status`;
  return `${operation}${kind.kind}`;
}

/** The operationId of listing a namespaced kind across every namespace. */
export function listAllNamespacesOperationId(kind: PlatformKind): string {
  return `list${kind.kind}sInAllNamespaces`;
}
