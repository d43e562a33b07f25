// The development controller's identity in the built-in emulator: a ServiceAccount with exactly the
// chart's controller ClusterRole (infra/chart/templates/rbac.yaml, `<fullname>-controller`), so the
// server authenticates it by TokenReview and authorizes it by SubjectAccessReview as it does the real
// controller, and a request the real controller could not make fails here too.
import {
  CoreV1Api,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1ClusterRole,
  type V1ClusterRoleBinding,
} from '@kubernetes/client-node';
import { PLATFORM_KINDS } from '../../../shared/contract/kinds/platform-kinds.ts';

/** Where the development controller's ServiceAccount lives, as the chart's release namespace would. */
export const DEVELOPMENT_CONTROLLER_NAMESPACE = 'platform-system';
export const DEVELOPMENT_CONTROLLER_ACCOUNT = 'platform-dev-controller';

/** A local session's length at most: the token is minted again at every start. */
const TOKEN_SECONDS = 30 * 24 * 3600;

/** The rules of the chart's controller ClusterRole for `apiGroup` (a test compares them with the rendered chart). */
export function controllerRoleRules(apiGroup: string): V1ClusterRole['rules'] {
  return [
    { nonResourceURLs: ['/internal', '/internal/*'], verbs: ['get', 'post', 'put', 'patch', 'delete'] },
    { apiGroups: [apiGroup], resources: PLATFORM_KINDS.map((kind) => kind.plural), verbs: ['get', 'list', 'watch'] },
    { apiGroups: [apiGroup], resources: ['workspaces/status', 'rollouts/status'], verbs: ['get', 'update', 'patch'] },
  ];
}

/**
 * Creates (or keeps, from an earlier start over the same local state) the ServiceAccount, its
 * ClusterRole and binding, with the emulator's admin `kubeConfig`, and returns a token for it from
 * TokenRequest.
 */
export async function developmentControllerToken(kubeConfig: KubeConfig, apiGroup: string): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const name = DEVELOPMENT_CONTROLLER_ACCOUNT;
  const role: V1ClusterRole = { metadata: { name }, rules: controllerRoleRules(apiGroup) };
  const binding: V1ClusterRoleBinding = {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', namespace: DEVELOPMENT_CONTROLLER_NAMESPACE, name }],
  };
  await createUnlessExists(() =>
    core.createNamespace({ body: { metadata: { name: DEVELOPMENT_CONTROLLER_NAMESPACE } } }),
  );
  await createUnlessExists(() =>
    core.createNamespacedServiceAccount({ namespace: DEVELOPMENT_CONTROLLER_NAMESPACE, body: { metadata: { name } } }),
  );
  // Replaced when it exists: a checkout's newer rules win over those an older start left in the state.
  await createUnlessExists(() => rbac.createClusterRole({ body: role })).then((existed) =>
    existed ? rbac.replaceClusterRole({ name, body: role }) : undefined,
  );
  await createUnlessExists(() => rbac.createClusterRoleBinding({ body: binding }));
  const request = await core.createNamespacedServiceAccountToken({
    namespace: DEVELOPMENT_CONTROLLER_NAMESPACE,
    name,
    body: { spec: { audiences: [], expirationSeconds: TOKEN_SECONDS } },
  });
  return request.status!.token!;
}

/** Runs `create`; true when the object existed already (409), which is fine: set-up is repeated at every start. */
async function createUnlessExists(create: () => Promise<unknown>): Promise<boolean> {
  try {
    await create();
    return false;
  } catch (error) {
    if ((error as { code?: number }).code === 409) return true;
    throw error;
  }
}
