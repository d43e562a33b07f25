// RBAC escalation prevention (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#privilege-escalation-prevention-and-bootstrapping):
// roles and bindings may grant only what the writer already holds, unless it has `escalate` on the role or `bind` on
// the role a binding references. Members of system:masters (the admin token, which sets everything up here) are exempt.
import { beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import type { V1PolicyRule } from '@kubernetes/client-node';
import { statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const admin = () => emulator().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const as = (token: string) => emulator().kubeConfig(token).makeApiClient(RbacAuthorizationV1Api);
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const NAMESPACE = 'team-a';
const OTHER_NAMESPACE = 'team-b';
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/** A ServiceAccount of team-a calling with its own (registered) token. */
function account(name: string): { token: string; username: string; groups: string[] } {
  return {
    token: `${name}-token`,
    username: `system:serviceaccount:${NAMESPACE}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`, 'system:authenticated'],
  };
}
const BINDER = account('binder');
const HOLDER = account('holder');
const ROLE_WRITER = account('role-writer');
const ESCALATOR = account('escalator');
const GROUPS = '["system:serviceaccounts" "system:serviceaccounts:team-a" "system:authenticated"]';

const WRITE_BINDINGS: V1PolicyRule = {
  apiGroups: [RBAC_GROUP],
  resources: ['rolebindings', 'clusterrolebindings'],
  verbs: ['create', 'update', 'patch'],
};
const WRITE_ROLES: V1PolicyRule = {
  apiGroups: [RBAC_GROUP],
  resources: ['roles'],
  verbs: ['create', 'update', 'patch'],
};

async function grant(name: string, rules: V1PolicyRule[], username: string, namespace?: string): Promise<void> {
  await admin().createClusterRole({ body: { metadata: { name }, rules } });
  const body = {
    metadata: { name },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: username }],
  };
  if (namespace) await admin().createNamespacedRoleBinding({ namespace, body });
  else await admin().createClusterRoleBinding({ body });
}

const bindingTo = (name: string, role: string) => ({
  metadata: { name },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' }],
});

beforeAll(async () => {
  const core = emulator().kubeConfig().makeApiClient(CoreV1Api);
  for (const namespace of [NAMESPACE, OTHER_NAMESPACE])
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  for (const caller of [BINDER, HOLDER, ROLE_WRITER, ESCALATOR]) emulator().registerToken(caller.token, caller);
  await admin().createClusterRole({
    body: {
      metadata: { name: 'secret-admin' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'create'] }],
    },
  });
  await admin().createClusterRole({
    body: {
      metadata: { name: 'config-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
  });
  await admin().createClusterRole({
    body: {
      metadata: { name: 'config-editor' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'update'] }],
    },
  });
  await grant(
    'binder',
    [
      WRITE_BINDINGS,
      { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['secret-admin'], verbs: ['bind'] },
    ],
    BINDER.username,
  );
  await grant('holder-writes-bindings', [WRITE_BINDINGS], HOLDER.username);
  await grant(
    'holder-reads-config',
    [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    HOLDER.username,
    NAMESPACE,
  );
  await grant(
    'role-writer',
    [WRITE_ROLES, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    ROLE_WRITER.username,
    NAMESPACE,
  );
  await grant(
    'escalator',
    [WRITE_ROLES, { apiGroups: [RBAC_GROUP], resources: ['roles'], verbs: ['escalate'] }],
    ESCALATOR.username,
    NAMESPACE,
  );
});

describe('bind: a user may bind a role it does not hold only with `bind` on that role, restricted by resourceNames', () => {
  it('binds the one ClusterRole its bind rule names, in a RoleBinding and in a ClusterRoleBinding', async () => {
    await as(BINDER.token).createNamespacedRoleBinding({
      namespace: NAMESPACE,
      body: bindingTo('secrets', 'secret-admin'),
    });
    await as(BINDER.token).createClusterRoleBinding({ body: bindingTo('secrets-everywhere', 'secret-admin') });
  });

  it('is refused another ClusterRole with 403 listing the permissions it does not hold', async () => {
    const refused = await statusOf(
      as(BINDER.token).createNamespacedRoleBinding({
        namespace: NAMESPACE,
        body: bindingTo('config', 'config-reader'),
      }),
    );
    expect(refused).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      details: { name: 'config', group: RBAC_GROUP, kind: 'rolebindings' },
    });
    expect(refused.message).toBe(
      `rolebindings.rbac.authorization.k8s.io "config" is forbidden: user "${BINDER.username}" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list"]}`,
    );
  });

  it('answers 404 for a binding to a role that does not exist (the role it would grant is unknown)', async () => {
    expect(
      await statusOf(
        as(BINDER.token).createNamespacedRoleBinding({
          namespace: NAMESPACE,
          body: bindingTo('ghost', 'no-such-role'),
        }),
      ),
    ).toMatchObject({
      code: 404,
      message: 'clusterroles.rbac.authorization.k8s.io "no-such-role" not found',
    });
  });
});

describe('A user holding every permission of a role may bind it without `bind`, where it holds them', () => {
  it('binds config-reader in the namespace where it may read ConfigMaps', async () => {
    await as(HOLDER.token).createNamespacedRoleBinding({
      namespace: NAMESPACE,
      body: bindingTo('config', 'config-reader'),
    });
  });

  it('may not bind it in another namespace, nor cluster-wide', async () => {
    const elsewhere = await statusOf(
      as(HOLDER.token).createNamespacedRoleBinding({
        namespace: OTHER_NAMESPACE,
        body: bindingTo('config', 'config-reader'),
      }),
    );
    expect(elsewhere).toMatchObject({
      code: 403,
      message: expect.stringContaining(
        'is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get" "list"]}',
      ),
    });
    expect(
      (await statusOf(as(HOLDER.token).createClusterRoleBinding({ body: bindingTo('config', 'config-reader') }))).code,
    ).toBe(403);
  });

  it('may not bind a role of which it holds only part, and the message lists only the missing part', async () => {
    const refused = await statusOf(
      as(HOLDER.token).createNamespacedRoleBinding({
        namespace: NAMESPACE,
        body: bindingTo('editor', 'config-editor'),
      }),
    );
    expect(refused.message).toMatch(
      /not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\], Verbs:\["update"\]\}$/,
    );
  });
});

describe('escalate: a user may write a Role granting more than it holds only with `escalate` on roles', () => {
  const role = (name: string, rules: V1PolicyRule[]) => ({ metadata: { name }, rules });

  it('writes a Role within what it holds, and is refused one beyond it', async () => {
    await as(ROLE_WRITER.token).createNamespacedRole({
      namespace: NAMESPACE,
      body: role('config-get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    });
    const refused = await statusOf(
      as(ROLE_WRITER.token).createNamespacedRole({
        namespace: NAMESPACE,
        body: role('secret-get', [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get'] }]),
      }),
    );
    expect(refused.message).toBe(
      `roles.rbac.authorization.k8s.io "secret-get" is forbidden: user "${ROLE_WRITER.username}" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
    );
  });

  it('is refused a patch that adds what it does not hold (updates are checked too)', async () => {
    await as(ROLE_WRITER.token).createNamespacedRole({
      namespace: NAMESPACE,
      body: role('config-get-patched', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    });
    const added = [
      { op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] } },
    ];
    const refused = await statusOf(
      as(ROLE_WRITER.token).patchNamespacedRole(
        { namespace: NAMESPACE, name: 'config-get-patched', body: added },
        jsonPatch,
      ),
    );
    expect(refused).toMatchObject({
      code: 403,
      message: expect.stringContaining('{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}'),
    });
  });

  it('with escalate, writes a Role granting what it does not hold', async () => {
    await as(ESCALATOR.token).createNamespacedRole({
      namespace: NAMESPACE,
      body: role('secret-get', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
    });
  });
});
