// The RBAC rules of https://kubernetes.io/docs/reference/access-authn-authz/rbac/, checked through
// SubjectAccessReview and through requests made with a ServiceAccount's own token.
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { V1PolicyRule, V1ResourceAttributes, RbacV1Subject } from '@kubernetes/client-node';
import { statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const rbac = () => emulator().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
const core = () => emulator().kubeConfig().makeApiClient(CoreV1Api);
const RBAC_GROUP = 'rbac.authorization.k8s.io';

async function clusterRole(name: string, rules: V1PolicyRule[]): Promise<void> {
  await rbac().createClusterRole({ body: { metadata: { name }, rules } });
}

async function clusterBinding(name: string, role: string, subjects: RbacV1Subject[]): Promise<void> {
  await rbac().createClusterRoleBinding({
    body: { metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role }, subjects },
  });
}

async function roleBinding(
  namespace: string,
  name: string,
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
  subjects: RbacV1Subject[],
): Promise<void> {
  await rbac().createNamespacedRoleBinding({
    namespace,
    body: { metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, ...roleRef }, subjects },
  });
}

interface Asked {
  user?: string;
  groups?: string[];
  resource?: V1ResourceAttributes;
  path?: string;
  verb?: string;
}

async function review(asked: Asked): Promise<{ allowed: boolean; reason?: string; denied?: boolean }> {
  const authorization = emulator().kubeConfig().makeApiClient(AuthorizationV1Api);
  const answer = await authorization.createSubjectAccessReview({
    body: {
      spec: {
        user: asked.user,
        groups: asked.groups,
        ...(asked.resource
          ? { resourceAttributes: asked.resource }
          : { nonResourceAttributes: { path: asked.path, verb: asked.verb } }),
      },
    },
  });
  return answer.status!;
}

const alice = { user: 'alice', groups: ['system:authenticated'] };

beforeAll(async () => {
  for (const namespace of ['team-a', 'team-b'])
    await core().createNamespace({ body: { metadata: { name: namespace } } });
});

describe('permissions are purely additive: no rule means no access', () => {
  it('denies a user without bindings, with no reason and no explicit deny', async () => {
    // A user no test of this file ever binds, whatever ran before.
    const answer = await review({
      ...alice,
      user: 'never-bound',
      resource: { verb: 'get', resource: 'secrets', namespace: 'team-a', name: 'x' },
    });
    expect(answer.allowed).toBe(false);
    expect(answer.denied).toBeUndefined();
    expect(answer.reason).toBeUndefined();
  });

  it('allows by any one of several bindings and names the granting ClusterRoleBinding', async () => {
    await clusterRole('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }]);
    await clusterRole('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await clusterBinding('alice-secrets', 'secret-reader', [{ kind: 'User', name: 'alice', apiGroup: RBAC_GROUP }]);
    await clusterBinding('alice-cms', 'cm-reader', [{ kind: 'User', name: 'alice', apiGroup: RBAC_GROUP }]);
    const secrets = await review({ ...alice, resource: { verb: 'list', resource: 'secrets', namespace: 'team-b' } });
    const configMaps = await review({
      ...alice,
      resource: { verb: 'get', resource: 'configmaps', namespace: 'team-a', name: 'c' },
    });
    expect(secrets).toMatchObject({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "alice-secrets" of ClusterRole "secret-reader" to User "alice"',
    });
    expect(configMaps).toMatchObject({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "alice-cms" of ClusterRole "cm-reader" to User "alice"',
    });
    expect(
      (await review({ ...alice, resource: { verb: 'delete', resource: 'secrets', namespace: 'team-a', name: 'x' } }))
        .allowed,
    ).toBe(false);
  });

  it('matches verbs, API groups and resources exactly unless a rule says *', async () => {
    await clusterRole('everything-in-rbac', [{ apiGroups: [RBAC_GROUP], resources: ['*'], verbs: ['*'] }]);
    await clusterBinding('bob-rbac', 'everything-in-rbac', [{ kind: 'User', name: 'bob', apiGroup: RBAC_GROUP }]);
    expect(
      (
        await review({
          user: 'bob',
          resource: { verb: 'escalate', group: RBAC_GROUP, resource: 'clusterroles', name: 'x' },
        })
      ).allowed,
    ).toBe(true);
    expect(
      (await review({ user: 'bob', resource: { verb: 'get', group: '', resource: 'clusterroles', name: 'x' } }))
        .allowed,
    ).toBe(false);
  });
});

describe('a RoleBinding grants only inside its own namespace, also when it references a ClusterRole', () => {
  it('scopes a ClusterRole to the binding namespace', async () => {
    await clusterRole('cm-editor', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }]);
    await roleBinding('team-a', 'carol-cm', { kind: 'ClusterRole', name: 'cm-editor' }, [
      { kind: 'User', name: 'carol', apiGroup: RBAC_GROUP },
    ]);
    const inside = await review({
      user: 'carol',
      resource: { verb: 'update', resource: 'configmaps', namespace: 'team-a', name: 'x' },
    });
    expect(inside).toMatchObject({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "carol-cm/team-a" of ClusterRole "cm-editor" to User "carol"',
    });
    expect(
      (
        await review({
          user: 'carol',
          resource: { verb: 'update', resource: 'configmaps', namespace: 'team-b', name: 'x' },
        })
      ).allowed,
    ).toBe(false);
    expect((await review({ user: 'carol', resource: { verb: 'list', resource: 'configmaps' } })).allowed).toBe(false);
  });

  it('uses a Role of the binding namespace', async () => {
    await rbac().createNamespacedRole({
      namespace: 'team-b',
      body: {
        metadata: { name: 'sa-lister' },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['list'] }],
      },
    });
    await roleBinding('team-b', 'dave-sa', { kind: 'Role', name: 'sa-lister' }, [
      { kind: 'User', name: 'dave', apiGroup: RBAC_GROUP },
    ]);
    expect(
      (await review({ user: 'dave', resource: { verb: 'list', resource: 'serviceaccounts', namespace: 'team-b' } }))
        .allowed,
    ).toBe(true);
    expect(
      (await review({ user: 'dave', resource: { verb: 'list', resource: 'serviceaccounts', namespace: 'team-a' } }))
        .allowed,
    ).toBe(false);
  });

  it('reports a binding to a missing role in the reason', async () => {
    await roleBinding('team-a', 'erin-missing', { kind: 'Role', name: 'does-not-exist' }, [
      { kind: 'User', name: 'erin', apiGroup: RBAC_GROUP },
    ]);
    const answer = await review({
      user: 'erin',
      resource: { verb: 'get', resource: 'pods', namespace: 'team-a', name: 'p' },
    });
    expect(answer).toEqual({
      allowed: false,
      reason: 'RBAC: role.rbac.authorization.k8s.io "does-not-exist" not found',
    });
  });
});

describe('resourceNames restrict a rule to named objects and never match requests without a name', () => {
  it('allows get of the named object only, and never list or create', async () => {
    await clusterRole('one-secret', [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['the-one'], verbs: ['get', 'list', 'create'] },
    ]);
    await clusterBinding('frank-one-secret', 'one-secret', [{ kind: 'User', name: 'frank', apiGroup: RBAC_GROUP }]);
    const ask = (verb: string, name?: string) =>
      review({ user: 'frank', resource: { verb, resource: 'secrets', namespace: 'team-a', name } });
    expect((await ask('get', 'the-one')).allowed).toBe(true);
    expect((await ask('get', 'another')).allowed).toBe(false);
    expect((await ask('list')).allowed).toBe(false);
    expect((await ask('create')).allowed).toBe(false);
  });
});

describe('a list or watch narrowed by fieldSelector=metadata.name is authorized with that name (RequestInfoFactory)', () => {
  it('lets a resourceNames rule list and watch its one object, and nothing wider', async () => {
    await clusterRole('watch-one-secret', [
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['watched'], verbs: ['list', 'watch'] },
    ]);
    await roleBinding('team-a', 'ivy-watch-one', { kind: 'ClusterRole', name: 'watch-one-secret' }, [
      { kind: 'User', name: 'ivy', apiGroup: RBAC_GROUP },
    ]);
    emulator().registerToken('ivy-token', { username: 'ivy' });
    const asIvy = emulator().kubeConfig('ivy-token').makeApiClient(CoreV1Api);
    await core().createNamespacedSecret({
      namespace: 'team-a',
      body: { metadata: { name: 'watched' }, stringData: { k: 'v' } },
    });
    const narrowed = await asIvy.listNamespacedSecret({ namespace: 'team-a', fieldSelector: 'metadata.name=watched' });
    expect(narrowed.items.map((secret) => secret.metadata?.name)).toEqual(['watched']);
    expect((await statusOf(asIvy.listNamespacedSecret({ namespace: 'team-a' }))).code).toBe(403);
    expect(
      (await statusOf(asIvy.listNamespacedSecret({ namespace: 'team-a', fieldSelector: 'metadata.name=other' }))).code,
    ).toBe(403);
  });
});

describe('subresources are matched as resource/subresource', () => {
  it('needs the subresource named, or */subresource', async () => {
    await clusterRole('sa-reader', [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get', 'create'] }]);
    await clusterRole('any-status', [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['update'] }]);
    await clusterRole('sa-token', [{ apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] }]);
    await clusterBinding('gina-sa', 'sa-reader', [{ kind: 'User', name: 'gina', apiGroup: RBAC_GROUP }]);
    await clusterBinding('gina-status', 'any-status', [{ kind: 'User', name: 'gina', apiGroup: RBAC_GROUP }]);
    const ask = (verb: string, resource: string, subresource?: string) =>
      review({ user: 'gina', resource: { verb, resource, subresource, namespace: 'team-a', name: 'n' } });
    expect((await ask('create', 'serviceaccounts', 'token')).allowed).toBe(false);
    await clusterBinding('gina-token', 'sa-token', [{ kind: 'User', name: 'gina', apiGroup: RBAC_GROUP }]);
    expect((await ask('create', 'serviceaccounts', 'token')).allowed).toBe(true);
    expect((await ask('update', 'deployments', 'status')).allowed).toBe(true);
    expect((await ask('update', 'deployments')).allowed).toBe(false);
  });
});

describe('nonResourceURLs match exact paths and * suffixes', () => {
  it('matches /healthz exactly and /metrics/* by prefix', async () => {
    await clusterRole('probe-reader', [{ nonResourceURLs: ['/healthz', '/metrics/*'], verbs: ['get'] }]);
    await clusterBinding('probes', 'probe-reader', [{ kind: 'Group', name: 'probers', apiGroup: RBAC_GROUP }]);
    const ask = (path: string, verb = 'get') => review({ user: 'henry', groups: ['probers'], path, verb });
    expect((await ask('/healthz')).allowed).toBe(true);
    expect((await ask('/healthz/ready')).allowed).toBe(false);
    expect((await ask('/metrics/cadvisor')).allowed).toBe(true);
    expect((await ask('/metrics')).allowed).toBe(false);
    expect((await ask('/healthz', 'post')).allowed).toBe(false);
  });

  it('issue 23: /metrics is for the bootstrap system:monitoring group only, not for every authenticated user', async () => {
    const metrics = (groups: string[]) => review({ user: 'scraper', groups, path: '/metrics', verb: 'get' });
    expect((await metrics(['system:authenticated'])).allowed).toBe(false);
    expect(await metrics(['system:authenticated', 'system:monitoring'])).toMatchObject({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:monitoring" of ClusterRole "system:monitoring" to Group "system:monitoring"',
    });
  });

  it('every authenticated user may read discovery through the bootstrap system:discovery role', async () => {
    const answer = await review({
      user: 'anyone',
      groups: ['system:authenticated'],
      path: '/apis/rbac.authorization.k8s.io',
      verb: 'get',
    });
    expect(answer).toMatchObject({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
  });
});

describe('subjects: User, Group and ServiceAccount (username system:serviceaccount:<ns>:<name>)', () => {
  it('matches a ServiceAccount subject by its username, defaulting to the binding namespace', async () => {
    await clusterRole('cm-lister', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    await roleBinding('team-a', 'robot-cm', { kind: 'ClusterRole', name: 'cm-lister' }, [
      { kind: 'ServiceAccount', name: 'robot' },
    ]);
    const answer = await review({
      user: 'system:serviceaccount:team-a:robot',
      resource: { verb: 'list', resource: 'configmaps', namespace: 'team-a' },
    });
    expect(answer).toMatchObject({
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "robot-cm/team-a" of ClusterRole "cm-lister" to ServiceAccount "robot/team-a"',
    });
    expect(
      (
        await review({
          user: 'system:serviceaccount:team-b:robot',
          resource: { verb: 'list', resource: 'configmaps', namespace: 'team-a' },
        })
      ).allowed,
    ).toBe(false);
  });

  it('matches the system:serviceaccounts groups given in the review', async () => {
    await clusterRole('sa-cm-lister', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
    await clusterBinding('all-sa-in-team-b', 'sa-cm-lister', [
      { kind: 'Group', name: 'system:serviceaccounts:team-b', apiGroup: RBAC_GROUP },
    ]);
    const withGroups = await review({
      user: 'system:serviceaccount:team-b:x',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-b'],
      resource: { verb: 'list', resource: 'configmaps', namespace: 'team-a' },
    });
    const withoutGroups = await review({
      user: 'system:serviceaccount:team-b:x',
      resource: { verb: 'list', resource: 'configmaps', namespace: 'team-a' },
    });
    expect(withGroups).toMatchObject({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "all-sa-in-team-b" of ClusterRole "sa-cm-lister" to Group "system:serviceaccounts:team-b"',
    });
    expect(withoutGroups.allowed).toBe(false);
  });

  it('422 when a review names neither user nor groups', async () => {
    const authorization = emulator().kubeConfig().makeApiClient(AuthorizationV1Api);
    const status = await statusOf(
      authorization.createSubjectAccessReview({
        body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain('at least one of user or group must be specified');
  });
});

describe('callers with a registered token are authorized by RBAC', () => {
  it('answers 403 with the authorizer wording, until a binding grants the verb', async () => {
    emulator().registerToken('robot-token', {
      username: 'system:serviceaccount:team-b:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-b'],
    });
    const asRobot = emulator().kubeConfig('robot-token').makeApiClient(CoreV1Api);
    const status = await statusOf(asRobot.listNamespacedSecret({ namespace: 'team-b' }));
    expect(status).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message:
        'secrets is forbidden: User "system:serviceaccount:team-b:robot" cannot list resource "secrets" in API group "" in the namespace "team-b"',
      details: { kind: 'secrets' },
    });
    await clusterRole('robot-secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
    await roleBinding('team-b', 'robot-secrets', { kind: 'ClusterRole', name: 'robot-secret-reader' }, [
      { kind: 'ServiceAccount', name: 'robot', namespace: 'team-b' },
    ]);
    expect((await asRobot.listNamespacedSecret({ namespace: 'team-b' })).items).toEqual([]);
    const named = await statusOf(asRobot.readNamespace({ name: 'team-a' }));
    expect(named.message).toBe(
      'namespaces "team-a" is forbidden: User "system:serviceaccount:team-b:robot" cannot get resource "namespaces" in API group "" in the namespace "team-a"',
    );
  });

  it('counts every review so that clients can prove they cache', async () => {
    const before = emulator().counters.subjectAccessReviews;
    await review({ user: 'x', path: '/healthz', verb: 'get' });
    expect(emulator().counters.subjectAccessReviews).toBe(before + 1);
  });
});
