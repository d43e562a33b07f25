// Issue 24, item 5: the RBAC rules a SelfSubjectRulesReview lists for a user, read from the emulator's bindings as
// kube-apiserver's rule resolver reads them: ClusterRoleBindings and the namespace's RoleBindings (to a Role there or
// a ClusterRole) whose subjects name the user, a ServiceAccount it is, or one of its groups; `incomplete` when a
// bound role is missing; 503 when the cluster cannot be read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { RbacRulesReader } from '../../../shared/authz/rbac-rules.ts';
import type { RbacUser } from '../../../shared/authz/subject-rules.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

const GROUP = 'platform.dev';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const OTHER_NAMESPACE = 'rules-elsewhere';
const robot: RbacUser = {
  user: `system:serviceaccount:${TEST_NAMESPACE}:robot`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${TEST_NAMESPACE}`, 'system:authenticated'],
};
const alice: RbacUser = { user: 'alice', groups: ['auditors'] };
const nobody: RbacUser = { user: 'nobody', groups: [] };
// Bound to one ClusterRole three times (two ClusterRoleBindings, one RoleBinding) and to a Role of the same name.
const carol: RbacUser = { user: 'carol', groups: ['shared-readers'] };
// Bound only to roles that do not exist, one of each kind.
const dave: RbacUser = { user: 'dave', groups: [] };
const READER_TOKEN = 'bindings-but-not-roles';

let cluster: IdentityCluster;
let reader: RbacRulesReader;

beforeAll(async () => {
  cluster = await startIdentityCluster();
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  const roleRef = (kind: 'Role' | 'ClusterRole', name: string) => ({ apiGroup: RBAC_GROUP, kind, name });
  await rbac.createNamespacedRole({
    namespace: TEST_NAMESPACE,
    body: {
      metadata: { name: 'edit-workspaces' },
      rules: [{ apiGroups: [GROUP], resources: ['workspaces'], resourceNames: ['web'], verbs: ['update'] }],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: TEST_NAMESPACE,
    body: {
      metadata: { name: 'robot-edits' },
      roleRef: roleRef('Role', 'edit-workspaces'),
      subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: 'robot' }],
    },
  });
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'rules-readers' },
      rules: [
        { apiGroups: [GROUP], resources: ['projects'], verbs: ['get', 'list'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      ],
    },
  });
  // A group every ServiceAccount of the namespace is in, cluster-wide.
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'namespace-accounts-read' },
      roleRef: roleRef('ClusterRole', 'rules-readers'),
      subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: `system:serviceaccounts:${TEST_NAMESPACE}` }],
    },
  });
  // A User, through a RoleBinding to a ClusterRole: its rules apply in that namespace only.
  await rbac.createNamespacedRoleBinding({
    namespace: TEST_NAMESPACE,
    body: {
      metadata: { name: 'alice-reads-here' },
      roleRef: roleRef('ClusterRole', 'rules-readers'),
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' }],
    },
  });
  // Bindings that name the robot among others, and only others.
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'rules-rollouts' },
      rules: [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: ['watch'] }],
    },
  });
  await rbac.createClusterRole({
    body: { metadata: { name: 'rules-secrets' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'robot-among-others' },
      roleRef: roleRef('ClusterRole', 'rules-rollouts'),
      subjects: [
        { kind: 'User', apiGroup: RBAC_GROUP, name: 'someone-else' },
        { kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: 'robot' },
      ],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'others-only' },
      roleRef: roleRef('ClusterRole', 'rules-secrets'),
      subjects: [
        { kind: 'User', apiGroup: RBAC_GROUP, name: 'someone-else' },
        { kind: 'Group', apiGroup: RBAC_GROUP, name: 'other-group' },
        { kind: 'ServiceAccount', namespace: 'other-namespace', name: 'robot' },
      ],
    },
  });
  // A binding to a role that does not exist.
  await rbac.createNamespacedRoleBinding({
    namespace: TEST_NAMESPACE,
    body: {
      metadata: { name: 'auditors-dangling' },
      roleRef: roleRef('Role', 'no-such-role'),
      subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'auditors' }],
    },
  });
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'rules-shared' },
      rules: [
        { apiGroups: [GROUP], resources: ['rollouts'], verbs: ['get'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
    },
  });
  await rbac.createNamespacedRole({
    namespace: TEST_NAMESPACE,
    body: {
      metadata: { name: 'rules-shared' },
      rules: [{ apiGroups: [GROUP], resources: ['variablesets'], verbs: ['list'] }],
    },
  });
  const carolBindings: Array<[string, 'Role' | 'ClusterRole', string, 'User' | 'Group', string]> = [
    ['carol-shared-cluster', 'ClusterRole', 'rules-shared', 'User', 'carol'],
    ['readers-shared-cluster', 'ClusterRole', 'rules-shared', 'Group', 'shared-readers'],
    ['carol-shared-here', 'ClusterRole', 'rules-shared', 'User', 'carol'],
    ['carol-role-here', 'Role', 'rules-shared', 'User', 'carol'],
    ['dave-gone-cluster', 'ClusterRole', 'gone-cluster-role', 'User', 'dave'],
    ['dave-gone-here', 'Role', 'gone-role', 'User', 'dave'],
  ];
  for (const [name, kind, role, subjectKind, subject] of carolBindings) {
    const body = {
      metadata: { name },
      roleRef: roleRef(kind, role),
      subjects: [{ kind: subjectKind, apiGroup: RBAC_GROUP, name: subject }],
    };
    if (name.endsWith('-cluster')) await rbac.createClusterRoleBinding({ body });
    else await rbac.createNamespacedRoleBinding({ namespace: TEST_NAMESPACE, body });
  }
  // A subject of a kind RBAC does not know (the API server refuses one; the reader must not depend on it) names nobody.
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'unknown-kind-cluster' },
      roleRef: roleRef('ClusterRole', 'rules-secrets'),
      subjects: [{ kind: 'Robot', apiGroup: RBAC_GROUP, name: 'carol' }],
    },
  });
  // A reader whose own credentials may list the bindings but not read the roles they name.
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'bindings-lister' },
      rules: [{ apiGroups: [RBAC_GROUP], resources: ['clusterrolebindings', 'rolebindings'], verbs: ['list'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'bindings-lister' },
      roleRef: roleRef('ClusterRole', 'bindings-lister'),
      subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'bindings-lister' }],
    },
  });
  cluster.emulator.registerToken(READER_TOKEN, { username: 'bindings-lister' });
  reader = new RbacRulesReader(cluster.emulator.kubeConfig(), silentLogger);
});

/** A rule list in one order (the bindings' list order is the cluster's): the same rules, as many times each. */
const sorted = <T>(rules: T[]) => rules.map((rule) => JSON.stringify(rule)).sort();

/** The RBAC reads (method and path) the emulator receives while `work` runs. */
async function readsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const reads: string[] = [];
  const stop = cluster.emulator.observeRequests((request) => {
    if (request.rawUrl.startsWith(`/apis/${RBAC_GROUP}/`)) reads.push(`${request.method} ${request.rawUrl}`);
  });
  try {
    await work();
  } finally {
    stop();
  }
  return reads.sort();
}
afterAll(() => cluster.close());

describe('RBAC rules for a user in a namespace, read from the bindings (issue 24, item 5)', () => {
  it("a ServiceAccount: its own RoleBinding's Role (resourceNames kept) and its group's ClusterRoleBinding", async () => {
    const rules = await reader.rulesFor([robot], TEST_NAMESPACE);
    expect(rules.incomplete).toBe(false);
    expect(rules).not.toHaveProperty('evaluationError');
    expect(rules.resourceRules).toEqual(
      expect.arrayContaining([
        { verbs: ['update'], apiGroups: [GROUP], resources: ['workspaces'], resourceNames: ['web'] },
        { verbs: ['get', 'list'], apiGroups: [GROUP], resources: ['projects'] },
      ]),
    );
    expect(rules.resourceRules.find((rule) => rule.resources.includes('projects'))).not.toHaveProperty('resourceNames');
    expect(rules.nonResourceRules).toEqual(expect.arrayContaining([{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]));
    // No rule holds both kinds: resource rules have no URLs, URL rules no resources.
    expect(rules.resourceRules.every((rule) => !('nonResourceURLs' in rule) && rule.resources.length > 0)).toBe(true);
    expect(rules.nonResourceRules.every((rule) => !('resources' in rule) && rule.nonResourceURLs.length > 0)).toBe(
      true,
    );
    // A binding naming it among others counts; one naming only others (a same-named account elsewhere) does not.
    expect(rules.resourceRules.some((rule) => rule.resources.includes('rollouts'))).toBe(true);
    expect(rules.resourceRules.some((rule) => rule.resources.includes('secrets'))).toBe(false);
  });

  it("in another namespace: the cluster-wide rules only, not the namespace's RoleBindings", async () => {
    const rules = await reader.rulesFor([robot], OTHER_NAMESPACE);
    expect(rules.resourceRules.some((rule) => rule.resources.includes('workspaces'))).toBe(false);
    expect(rules.resourceRules.some((rule) => rule.resources.includes('projects'))).toBe(true);
  });

  it('a User by name, through a RoleBinding to a ClusterRole: there, and not elsewhere', async () => {
    const here = await reader.rulesFor([{ ...alice, groups: [] }], TEST_NAMESPACE);
    expect(here.resourceRules).toEqual(
      expect.arrayContaining([{ verbs: ['get', 'list'], apiGroups: [GROUP], resources: ['projects'] }]),
    );
    const elsewhere = await reader.rulesFor([{ ...alice, groups: [] }], OTHER_NAMESPACE);
    expect(elsewhere.resourceRules.some((rule) => rule.resources.includes('projects'))).toBe(false);
  });

  it('a binding to a missing role: incomplete, and the evaluation error names it', async () => {
    const rules = await reader.rulesFor([alice], TEST_NAMESPACE);
    expect(rules.incomplete).toBe(true);
    expect(rules.evaluationError).toBe('bound roles not found: Role no-such-role');
    // What could be read is still listed.
    expect(rules.resourceRules.some((rule) => rule.resources.includes('projects'))).toBe(true);
  });

  it('a user no binding names gets no rule of these bindings; several users get the union', async () => {
    const none = await reader.rulesFor([nobody], TEST_NAMESPACE);
    expect(none.resourceRules.some((rule) => rule.resources.includes('workspaces'))).toBe(false);
    expect(none.incomplete).toBe(false);
    const both = await reader.rulesFor([nobody, robot], TEST_NAMESPACE);
    expect(both.resourceRules.some((rule) => rule.resourceNames?.includes('web'))).toBe(true);
  });

  it("exactly the bound roles' rules, once per binding: a ClusterRole and a Role of the same name are two roles, each read once", async () => {
    let rules: Awaited<ReturnType<RbacRulesReader['rulesFor']>> | undefined;
    const reads = await readsDuring(async () => (rules = await reader.rulesFor([carol], TEST_NAMESPACE)));
    const rollouts = { verbs: ['get'], apiGroups: [GROUP], resources: ['rollouts'] };
    const healthz = { verbs: ['get'], nonResourceURLs: ['/healthz'] };
    expect({
      ...rules!,
      resourceRules: sorted(rules!.resourceRules),
      nonResourceRules: sorted(rules!.nonResourceRules),
    }).toStrictEqual({
      resourceRules: sorted([
        rollouts,
        rollouts,
        rollouts,
        { verbs: ['list'], apiGroups: [GROUP], resources: ['variablesets'] },
      ]),
      nonResourceRules: sorted([healthz, healthz, healthz]),
      incomplete: false,
    });
    expect(reads).toEqual([
      `GET /apis/${RBAC_GROUP}/v1/clusterrolebindings`,
      `GET /apis/${RBAC_GROUP}/v1/clusterroles/rules-shared`,
      `GET /apis/${RBAC_GROUP}/v1/namespaces/${TEST_NAMESPACE}/rolebindings`,
      `GET /apis/${RBAC_GROUP}/v1/namespaces/${TEST_NAMESPACE}/roles/rules-shared`,
    ]);
  });

  it('without a namespace (a cluster-scoped request): the ClusterRoleBindings only, and no RoleBinding is listed', async () => {
    let rules: Awaited<ReturnType<RbacRulesReader['rulesFor']>> | undefined;
    const reads = await readsDuring(async () => (rules = await reader.rulesFor([carol], undefined)));
    const rollouts = { verbs: ['get'], apiGroups: [GROUP], resources: ['rollouts'] };
    const healthz = { verbs: ['get'], nonResourceURLs: ['/healthz'] };
    expect({
      ...rules!,
      resourceRules: sorted(rules!.resourceRules),
      nonResourceRules: sorted(rules!.nonResourceRules),
    }).toStrictEqual({
      resourceRules: sorted([rollouts, rollouts]),
      nonResourceRules: sorted([healthz, healthz]),
      incomplete: false,
    });
    expect(reads).toEqual([
      `GET /apis/${RBAC_GROUP}/v1/clusterrolebindings`,
      `GET /apis/${RBAC_GROUP}/v1/clusterroles/rules-shared`,
    ]);
  });

  it("every missing role is named, ClusterRoleBindings' first, comma separated", async () => {
    expect(await reader.rulesFor([dave], TEST_NAMESPACE)).toStrictEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'bound roles not found: ClusterRole gone-cluster-role, Role gone-role',
    });
  });

  it('a role the server may not read: 503 naming the read in the log, never a role treated as missing', async () => {
    const logger = capturingLogger();
    const failure = await new RbacRulesReader(cluster.emulator.kubeConfig(READER_TOKEN), logger)
      .rulesFor([carol], undefined)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect(logger.lines.map((line) => JSON.parse(line).message)).toEqual([
      'Kubernetes API did not answer a read of ClusterRole rules-shared',
    ]);
  });

  it('a cluster that cannot be reached: 503, never an empty list', async () => {
    const down = emulatorKubeConfig({ server: 'http://127.0.0.1:9' }, 't');
    const logger = capturingLogger();
    const failure = await new RbacRulesReader(down, logger).rulesFor([robot], TEST_NAMESPACE).catch((e) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect(logger.lines.map((line) => JSON.parse(line).message)).toEqual([
      'Kubernetes API did not answer a list of RBAC bindings',
    ]);
  });
});
