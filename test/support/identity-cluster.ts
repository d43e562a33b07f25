import { generateTlsCertificate } from '../../infra/kube-emulator/self-signed-certificate.ts';
import { CoreV1Api, RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '../../infra/kube-emulator/index.ts';

/** The namespace the identity tests keep their ServiceAccounts in. */
export const TEST_NAMESPACE = 'platform-system';

/** The Kubernetes emulator, with the few writes identity tests make, done as an operator would (client-node, admin token). */
export interface IdentityCluster {
  emulator: KubeEmulator;
  /** Creates a ServiceAccount in TEST_NAMESPACE with the given annotations. */
  createServiceAccount(name: string, annotations?: Record<string, string>): Promise<void>;
  /** Replaces a ServiceAccount's annotations. */
  setAnnotations(name: string, annotations: Record<string, string>): Promise<void>;
  /** Grants a ServiceAccount the verbs on non-resource paths (e.g. `/internal/*`) through a ClusterRole and binding. */
  allowPaths(name: string, paths: string[], verbs: string[]): Promise<void>;
  /** Grants a ServiceAccount `rules` cluster-wide: a ClusterRole `<TEST_NAMESPACE>-<name>` and its binding. */
  grantClusterRules(name: string, rules: V1PolicyRule[]): Promise<void>;
  /** A ServiceAccount token from TokenRequest, for the API server's own audience. */
  mintToken(name: string, expirationSeconds?: number): Promise<string>;
  /** Takes the cluster down (idempotent). */
  close(): Promise<void>;
}

/** Starts an emulator with TEST_NAMESPACE created; `tls` serves HTTPS, which a kubeconfig file for another process needs. */
export async function startIdentityCluster(options: { tls?: boolean } = {}): Promise<IdentityCluster> {
  const emulator = await startKubeEmulator(options.tls ? { tls: await generateTlsCertificate('127.0.0.1') } : {});
  const core = emulator.kubeConfig().makeApiClient(CoreV1Api);
  const rbac = emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: TEST_NAMESPACE } } });
  let closing: Promise<void> | undefined;
  const grantClusterRules = async (name: string, rules: V1PolicyRule[]) => {
    const roleName = `${TEST_NAMESPACE}-${name}`;
    await rbac.createClusterRole({ body: { metadata: { name: roleName }, rules } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: roleName },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name }],
      },
    });
  };
  return {
    emulator,
    async createServiceAccount(name, annotations = {}) {
      await core.createNamespacedServiceAccount({
        namespace: TEST_NAMESPACE,
        body: { metadata: { name, annotations } },
      });
    },
    async setAnnotations(name, annotations) {
      const account = await core.readNamespacedServiceAccount({ namespace: TEST_NAMESPACE, name });
      account.metadata!.annotations = annotations;
      await core.replaceNamespacedServiceAccount({ namespace: TEST_NAMESPACE, name, body: account });
    },
    allowPaths: (name, paths, verbs) => grantClusterRules(name, [{ nonResourceURLs: paths, verbs }]),
    grantClusterRules,
    async mintToken(name, expirationSeconds = 3600) {
      const request = await core.createNamespacedServiceAccountToken({
        namespace: TEST_NAMESPACE,
        name,
        body: { spec: { audiences: [], expirationSeconds } },
      });
      return request.status!.token!;
    },
    // Tests close it early to take the cluster down; closing again is a no-op.
    close: () => (closing ??= emulator.close()),
  };
}
