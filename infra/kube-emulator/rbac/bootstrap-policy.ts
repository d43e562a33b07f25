// What a fresh cluster already holds: the system namespaces and the bootstrap RBAC roles that matter to API
// clients (cluster-admin for system:masters, discovery and self-review rights for every authenticated user).
import type { ResourceRegistry } from '../objects/resource-registry.ts';
import type { ResourceStore } from '../storage/resource-store.ts';
import type { PolicyRule } from './rbac-authorizer.ts';

const BOOTSTRAP_METADATA = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

const CLUSTER_ROLES: Record<string, { rules: PolicyRule[]; boundTo: string[] }> = {
  'cluster-admin': {
    rules: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
      { nonResourceURLs: ['*'], verbs: ['*'] },
    ],
    boundTo: ['system:masters'],
  },
  'system:discovery': {
    rules: [
      {
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        verbs: ['get'],
      },
    ],
    boundTo: ['system:authenticated'],
  },
  'system:basic-user': {
    rules: [
      {
        apiGroups: ['authorization.k8s.io'],
        resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
        verbs: ['create'],
      },
      { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
    ],
    boundTo: ['system:authenticated'],
  },
  'system:public-info-viewer': {
    rules: [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }],
    boundTo: ['system:authenticated', 'system:unauthenticated'],
  },
  // Who may read metrics and probes in detail (kube-apiserver's bootstrap role): only the group
  // system:monitoring, which no one is in by default; /metrics is not in any role every user has.
  'system:monitoring': {
    rules: [
      {
        nonResourceURLs: [
          '/healthz',
          '/healthz/*',
          '/livez',
          '/livez/*',
          '/metrics',
          '/metrics/slis',
          '/readyz',
          '/readyz/*',
        ],
        verbs: ['get'],
      },
    ],
    boundTo: ['system:monitoring'],
  },
  'system:service-account-issuer-discovery': {
    rules: [
      {
        nonResourceURLs: [
          '/.well-known/openid-configuration',
          '/.well-known/openid-configuration/',
          '/openid/v1/jwks',
          '/openid/v1/jwks/',
        ],
        verbs: ['get'],
      },
    ],
    boundTo: ['system:serviceaccounts'],
  },
};

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Creates the system namespaces and bootstrap cluster roles with their bindings. */
export function seedBootstrapPolicy(store: ResourceStore, registry: ResourceRegistry): void {
  const namespaces = registry.get('', 'namespaces')!;
  const clusterRoles = registry.get('rbac.authorization.k8s.io', 'clusterroles')!;
  const clusterRoleBindings = registry.get('rbac.authorization.k8s.io', 'clusterrolebindings')!;
  for (const name of SYSTEM_NAMESPACES) store.create(namespaces, { metadata: { name } });
  for (const [name, { rules, boundTo }] of Object.entries(CLUSTER_ROLES)) {
    store.create(clusterRoles, { metadata: { name, ...structuredClone(BOOTSTRAP_METADATA) }, rules });
    store.create(clusterRoleBindings, {
      metadata: { name, ...structuredClone(BOOTSTRAP_METADATA) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: boundTo.map((group) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group })),
    });
  }
}
