// Issue 45, items 1 and 2 (docs/resources.md "Approvals"): the approval policy lives on the Project, which the
// people it gates cannot change. Replays attacks 1 and 2 (the author switches four eyes off and approves; a writer
// removes a gated stage and adds it back, or re-creates the Rollout) against a policy, and the permission that
// changing the policy needs (`update` on projects/approvalpolicy) on every write path.
import { RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { createRollout, rolloutPath, useApprovalCallers, type ApprovalCaller } from '../../support/approval-callers.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  projectObject,
  send,
  usePlatform,
} from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const tokenOf = useApprovalCallers(platform);

const PROJECT_WRITES: V1PolicyRule = {
  apiGroups: [GROUP],
  resources: ['projects'],
  verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
};
/** Cluster-wide callers (Projects are cluster-scoped): one edits Projects, the other owns their approval policy too. */
const CLUSTER_ROLES = {
  'project-editor': [PROJECT_WRITES],
  'policy-owner': [PROJECT_WRITES, { apiGroups: [GROUP], resources: ['projects/approvalpolicy'], verbs: ['update'] }],
} satisfies Record<string, V1PolicyRule[]>;
type ClusterCaller = keyof typeof CLUSTER_ROLES;
const clusterTokens = new Map<string, string>();
beforeAll(async () => {
  const { cluster } = platform();
  const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  for (const [caller, rules] of Object.entries(CLUSTER_ROLES)) {
    await cluster.createServiceAccount(caller);
    await rbac.createClusterRole({ body: { metadata: { name: caller }, rules } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: caller },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: caller },
        subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: caller }],
      },
    });
    clusterTokens.set(caller, await cluster.mintToken(caller));
  }
});

type Who = ApprovalCaller | ClusterCaller | 'admin';
const token = (who: Who) =>
  who === 'admin' ? platform().tokens.admin : (clusterTokens.get(who) ?? tokenOf(who as ApprovalCaller));
const as =
  (who: Who) =>
  (method: string, path: string, body?: unknown, contentType?: string): Promise<Response> =>
    send(platform().gateway.url, token(who), method, path, body, contentType);
const MERGE = 'application/merge-patch+json';
const approveRoute = (name: string) => `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${name}/approve`;
const projectPath = (name: string) => `${API}/projects/${name}`;

interface Stage {
  workspace: string;
  approved?: boolean;
  approval?: { required?: boolean; distinctFromAuthor?: boolean };
}
const storedStages = async (name: string) =>
  ((await as('admin')('GET', rolloutPath(name)).then(expectStatus(200))).spec.stages as Stage[]) ?? [];
const stageOf = async (name: string, workspace: string) =>
  (await storedStages(name)).find((stage) => stage.workspace === workspace);

/** Sets TEAM_PROJECT's policy (as the admin): each Rollout named gates `staging` (ungated in its own spec). */
async function gateStaging(rollouts: string[], distinctFromAuthor: boolean) {
  await as('admin')(
    'PATCH',
    projectPath(TEAM_PROJECT),
    {
      spec: {
        approvalPolicy: {
          stages: rollouts.map((rollout) => ({
            rollout,
            stage: 'staging',
            approvals: { count: 1, distinctFromAuthor },
          })),
        },
      },
    },
    MERGE,
  ).then(expectStatus(200));
}

describe('Issue 45, attack 1: the author switches four eyes off on the Rollout, then approves its own revision', () => {
  for (const author of ['rollout-approver', 'admin'] as const)
    it(`as ${author}: the Project's four eyes hold; switching them off is written back as the policy asks, and the approval is 409 ApproverIsAuthor`, async () => {
      const name = `four-eyes-${author}`;
      await gateStaging([name], true);
      await createRollout(() => platform(), token(author), name);
      expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true, distinctFromAuthor: true });

      const switched = await as(author)(
        'PATCH',
        rolloutPath(name),
        [{ op: 'add', path: '/spec/stages/0/approval', value: { required: true, distinctFromAuthor: false } }],
        'application/json-patch+json',
      );
      expect(switched.status).toBe(200);
      expect(switched.headers.get('warning')).toContain("the Project's approval policy gates stage staging");
      expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ distinctFromAuthor: true });

      const refused = await as(author)('POST', approveRoute(name), { stage: 'staging' }).then(expectStatus(409));
      expect(refused.reason).toBe('ApproverIsAuthor');
      expect((await stageOf(name, 'staging'))?.approved).not.toBe(true);

      await as('second-approver')('POST', approveRoute(name), { stage: 'staging' }).then(expectStatus(200));
    });
});

describe('Issue 45, attack 2: a writer without approve removes a gated stage and adds it back, or re-creates the Rollout', () => {
  it("JSON patch remove, then add without its gate: the Project's gate still holds (the approve route needs approving)", async () => {
    const name = 'two-writes';
    await gateStaging([name], false);
    await createRollout(() => platform(), token('rollout-approver'), name);
    const writer = as('rollout-writer');
    await writer(
      'PATCH',
      rolloutPath(name),
      [{ op: 'remove', path: '/spec/stages/0' }],
      'application/json-patch+json',
    ).then(expectStatus(200));
    await writer(
      'PATCH',
      rolloutPath(name),
      [{ op: 'add', path: '/spec/stages/0', value: { workspace: 'staging' } }],
      'application/json-patch+json',
    ).then(expectStatus(200));
    expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true });
    // Approving it by a write is still `approve`: the writer is refused, an approver is not.
    await writer(
      'PATCH',
      rolloutPath(name),
      [{ op: 'add', path: '/spec/stages/0/approved', value: true }],
      'application/json-patch+json',
    ).then(expectStatus(403));
    await as('second-approver')('POST', approveRoute(name), { stage: 'staging' }).then(expectStatus(200));
  });

  it('deleted (by anyone) and re-created without the gate, by POST and by server-side apply: the gate is there', async () => {
    const name = 're-created';
    await gateStaging([name], false);
    await createRollout(() => platform(), token('rollout-writer'), name);
    await as('admin')('DELETE', rolloutPath(name)).then(expectStatus(200));
    await createRollout(() => platform(), token('rollout-writer'), name);
    expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true });
    await as('admin')('DELETE', rolloutPath(name)).then(expectStatus(200));
    await as('rollout-writer')(
      'PATCH',
      `${rolloutPath(name)}?fieldManager=writer`,
      {
        apiVersion: `${GROUP}/v1alpha1`,
        kind: 'Rollout',
        metadata: { name },
        spec: { revision: 'r2', stages: [{ workspace: 'staging' }] },
      },
      'application/apply-patch+yaml',
    ).then(expectStatus(201));
    expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true });
    await as('rollout-writer')('POST', approveRoute(name), { stage: 'staging' }).then(expectStatus(403));
  });

  it('a PUT and a merge patch that drop the gate are written with it', async () => {
    const name = 'put-and-merge';
    await gateStaging([name], false);
    await createRollout(() => platform(), token('rollout-writer'), name);
    const current = await as('admin')('GET', rolloutPath(name)).then(expectStatus(200));
    await as('rollout-writer')('PUT', rolloutPath(name), {
      ...current,
      spec: { ...current.spec, stages: [{ workspace: 'staging', approval: { required: false } }] },
    }).then(expectStatus(200));
    expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true });
    await as('rollout-writer')(
      'PATCH',
      rolloutPath(name),
      { spec: { stages: [{ workspace: 'staging', approval: { required: false } }] } },
      MERGE,
    ).then(expectStatus(200));
    expect((await stageOf(name, 'staging'))?.approval).toMatchObject({ required: true });
  });
});

describe("Issue 45: changing a Project's approval policy needs update on projects/approvalpolicy, on every write path", () => {
  const policy = { stages: [{ rollout: 'web', stage: 'prod', approvals: { count: 1, distinctFromAuthor: true } }] };
  let projects = 0;
  const newProject = async () => {
    const name = `policy-${++projects}`;
    await as('admin')('POST', `${API}/projects`, projectObject(name)).then(expectStatus(201));
    return name;
  };
  const WRITES: Record<string, (who: Who, name: string) => Promise<Response>> = {
    'merge patch': (who, name) => as(who)('PATCH', projectPath(name), { spec: { approvalPolicy: policy } }, MERGE),
    'JSON patch': (who, name) =>
      as(who)(
        'PATCH',
        projectPath(name),
        [{ op: 'add', path: '/spec/approvalPolicy', value: policy }],
        'application/json-patch+json',
      ),
    'server-side apply': (who, name) =>
      as(who)(
        'PATCH',
        `${projectPath(name)}?fieldManager=owner&force=true`,
        { ...projectObject(name), spec: { approvalPolicy: policy } },
        'application/apply-patch+yaml',
      ),
    PUT: async (who, name) => {
      const current = await as('admin')('GET', projectPath(name)).then(expectStatus(200));
      return as(who)('PUT', projectPath(name), { ...current, spec: { ...current.spec, approvalPolicy: policy } });
    },
  };
  for (const [path, write] of Object.entries(WRITES))
    it(`by ${path}: 403 without it and nothing changes; 200 with it`, async () => {
      const name = await newProject();
      const refused = await write('project-editor', name);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        error: expect.stringContaining(`may not update projects/approvalpolicy.${GROUP} "${name}"`),
      });
      expect(audit.completed(refused).annotations).toMatchObject({
        'platform-api/approval-policy': 'changed',
        'authorization.k8s.io/decision': 'forbid',
      });
      expect((await as('admin')('GET', projectPath(name)).then(expectStatus(200))).spec.approvalPolicy).toBeUndefined();
      const allowed = await write('policy-owner', name);
      expect(allowed.status).toBe(200);
      expect(audit.completed(allowed).annotations).toMatchObject({ 'platform-api/approval-policy': 'changed' });
      expect((await as('admin')('GET', projectPath(name)).then(expectStatus(200))).spec.approvalPolicy).toEqual(policy);
      // Removing it is a change too.
      await as('project-editor')('PATCH', projectPath(name), { spec: { approvalPolicy: null } }, MERGE).then(
        expectStatus(403),
      );
    });

  it('a create with a policy (a Project deleted and re-created) needs it too; other fields do not', async () => {
    const refused = await as('project-editor')('POST', `${API}/projects`, {
      ...projectObject('policy-created'),
      spec: { approvalPolicy: policy },
    });
    expect(refused.status).toBe(403);
    const name = await newProject();
    await as('project-editor')('PATCH', projectPath(name), { spec: { description: 'ours' } }, MERGE).then(
      expectStatus(200),
    );
  });

  it('kubectl auth can-i update projects/approvalpolicy answers truly (SelfSubjectAccessReview through the server)', async () => {
    const mayChange = async (who: Who) =>
      (
        await as(who)('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
          spec: {
            resourceAttributes: {
              verb: 'update',
              group: GROUP,
              resource: 'projects',
              subresource: 'approvalpolicy',
              name: TEAM_PROJECT,
            },
          },
        }).then(expectStatus(201))
      ).status.allowed;
    expect([await mayChange('policy-owner'), await mayChange('project-editor'), await mayChange('admin')]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
