// Issue 45, item 2 for Workspace applies (docs/resources.md "Approving a plan for apply"): a Project's policy asks
// several distinct approvers of a plan, approvers from named groups and four eyes, counted by the stages' rule; each
// approval is recorded (who, when, its groups: `plan_approvals`, one row per approver, the database deciding a
// second one) and `POST .../runs/{plan}/apply` starts the apply only with the approval that meets the policy (201),
// answering 202 with the plan and who still has to approve before that; an approval can be withdrawn until the apply
// started (`POST .../runs/{plan}/withdraw`); the audit trail names both principals. Through the gateway.
import { CoreV1Api, RbacAuthorizationV1Api, type V1PolicyRule } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  bindRole,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const admin = callAs(platform, 'admin');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;

// Two approvers of TEAM_PROJECT's plans (ServiceAccounts of the test namespace, which may also start runs), and a
// release manager of a namespace of its own, so that its groups (system:serviceaccounts:<namespace>) are its alone.
const APPROVER_RULES: V1PolicyRule[] = [
  { apiGroups: [GROUP], resources: ['workspaces'], verbs: ['get', 'list'] },
  { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['get', 'list', 'create', 'approve'] },
];
const APPROVERS = ['plan-approver-1', 'plan-approver-2'] as const;
const RELEASE_NAMESPACE = 'plan-release-managers';
const RELEASE_GROUP = `system:serviceaccounts:${RELEASE_NAMESPACE}`;
type Who = (typeof APPROVERS)[number] | 'release-manager' | 'admin';
const userOf = (who: Who) =>
  who === 'admin'
    ? 'admin'
    : who === 'release-manager'
      ? `system:serviceaccount:${RELEASE_NAMESPACE}:release-manager`
      : `system:serviceaccount:${TEST_NAMESPACE}:${who}`;

const tokens = new Map<Who, string>();
beforeAll(async () => {
  const { cluster } = platform();
  for (const account of APPROVERS) {
    await cluster.createServiceAccount(account);
    await bindRole(cluster, TEAM_PROJECT, account, APPROVER_RULES, account);
    tokens.set(account, await cluster.mintToken(account));
  }
  const config = cluster.emulator.kubeConfig();
  const core = config.makeApiClient(CoreV1Api);
  const rbac = config.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  await core.createNamespacedServiceAccount({
    namespace: RELEASE_NAMESPACE,
    body: { metadata: { name: 'release-manager' } },
  });
  await rbac.createNamespacedRole({
    namespace: TEAM_PROJECT,
    body: { metadata: { name: 'plan-release-manager' }, rules: APPROVER_RULES },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: TEAM_PROJECT,
    body: {
      metadata: { name: 'plan-release-manager' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'plan-release-manager' },
      subjects: [{ kind: 'ServiceAccount', namespace: RELEASE_NAMESPACE, name: 'release-manager' }],
    },
  });
  const request = await core.createNamespacedServiceAccountToken({
    namespace: RELEASE_NAMESPACE,
    name: 'release-manager',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  tokens.set('release-manager', request.status!.token!);
});

const as =
  (who: Who) =>
  (method: string, path: string, body?: unknown): Promise<Response> =>
    send(platform().gateway.url, who === 'admin' ? platform().tokens.admin : tokens.get(who)!, method, path, body);

interface Approvals {
  count?: number;
  groups?: string[];
  distinctFromAuthor?: boolean;
}

let workspaces = 0;
/**
 * A Workspace of TEAM_PROJECT gated by the Project's policy as `approvals` asks (none: no policy at all), and a
 * succeeded plan of it started by `author`.
 */
async function gatedPlan(
  approvals: Approvals | null,
  author: Who = 'admin',
): Promise<{ id: string; workspace: string }> {
  const workspace = `plan-approvers-${++workspaces}`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(workspace)).then(
    expectStatus(201),
  );
  // A merge patch replaces the list: the policy of this test's Workspace alone.
  await admin(
    'PATCH',
    `${API}/projects/${TEAM_PROJECT}`,
    { spec: { approvalPolicy: approvals ? { applies: [{ workspace, approvals }] } : null } },
    { 'content-type': 'application/merge-patch+json' },
  ).then(expectStatus(200));
  const plan = await as(author)('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'plan' }).then(
    expectStatus(201),
  );
  const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
    expectStatus(200),
  );
  await controller('POST', `/internal/runs/${claimed.run.id}/phase`, {
    leaseId: claimed.lease.id,
    phase: 'Succeeded',
  }).then(expectStatus(200));
  return { id: plan.id, workspace };
}

const approve = (who: Who, plan: string) => as(who)('POST', `${RUNS}/runs/${plan}/apply`, {});
const withdraw = (who: Who, plan: string, approver?: string) =>
  as(who)('POST', `${RUNS}/runs/${plan}/withdraw`, approver === undefined ? {} : { approver });
const planAnswer = (plan: string) => admin('GET', `${RUNS}/runs/${plan}`).then(expectStatus(200));
const approversOf = async (plan: string): Promise<string[]> =>
  (await planAnswer(plan)).planApproval.approvals.map((approval: { approvedBy: string }) => approval.approvedBy);
const appliesOf = async (workspace: string) =>
  (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items.filter(
    (run: { type: string }) => run.type === 'apply',
  );

describe('Issue 45, item 2: an apply that needs two distinct approvers', () => {
  it('the first approval answers 202 with the plan (Location, its approvals, stillNeeded 1) and starts nothing; the second starts the apply (201)', async () => {
    const plan = await gatedPlan({ count: 2 });
    const first = await approve('plan-approver-1', plan.id);
    const answer = await expectStatus(202)(first);
    expect(first.headers.get('location')).toBe(`${RUNS}/runs/${plan.id}`);
    expect(answer).toMatchObject({
      id: plan.id,
      type: 'plan',
      planApproval: {
        applyable: true,
        approvals: [{ approvedBy: userOf('plan-approver-1'), groups: expect.any(Array) }],
        requirement: { count: 2, groups: [], distinctFromAuthor: false },
        stillNeeded: { approvers: 1, groups: [] },
      },
    });
    expect(Date.parse(answer.planApproval.approvals[0].approvedAt)).not.toBeNaN();
    expect(await appliesOf(plan.workspace)).toEqual([]);

    const apply = await approve('plan-approver-2', plan.id).then(expectStatus(201));
    expect(apply).toMatchObject({ type: 'apply', planRun: plan.id, principal: userOf('plan-approver-2') });
    expect(await appliesOf(plan.workspace)).toHaveLength(1);
    expect((await planAnswer(plan.id)).planApproval).toMatchObject({
      applyable: false,
      supersededBy: { id: apply.id, type: 'apply' },
      stillNeeded: { approvers: 0, groups: [] },
    });
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1'), userOf('plan-approver-2')]);
  });

  it('the same approver twice is 409 AlreadyApproved, and nothing more is recorded', async () => {
    const plan = await gatedPlan({ count: 2 });
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    expect((await approve('plan-approver-1', plan.id).then(expectStatus(409))).reason).toBe('AlreadyApproved');
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
    expect(await appliesOf(plan.workspace)).toEqual([]);
  });

  it('where the policy was lowered after approvals that now meet it, an approver repeating its approval starts the apply (201) instead of 409', async () => {
    const plan = await gatedPlan({ count: 2 });
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    await admin(
      'PATCH',
      `${API}/projects/${TEAM_PROJECT}`,
      { spec: { approvalPolicy: { applies: [{ workspace: plan.workspace, approvals: { count: 1 } }] } } },
      { 'content-type': 'application/merge-patch+json' },
    ).then(expectStatus(200));
    expect((await planAnswer(plan.id)).planApproval.stillNeeded).toEqual({ approvers: 0, groups: [] });
    const apply = await approve('plan-approver-1', plan.id).then(expectStatus(201));
    expect(apply).toMatchObject({ type: 'apply', planRun: plan.id });
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
    expect(await appliesOf(plan.workspace)).toHaveLength(1);
  });

  it('every run answer of a succeeded plan states its approvals, requirement and stillNeeded; without a policy one approval starts the apply and is recorded', async () => {
    const plan = await gatedPlan(null);
    const listed = await admin('GET', `${RUNS}/workspaces/${plan.workspace}/runs`).then(expectStatus(200));
    expect(listed.items[0].planApproval).toMatchObject({
      approvals: [],
      requirement: { count: 1, groups: [], distinctFromAuthor: false },
      stillNeeded: { approvers: 1, groups: [] },
    });
    await approve('plan-approver-1', plan.id).then(expectStatus(201));
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
  });

  it('a plan gone stale meanwhile is refused (409 PlanStale) before anything is recorded', async () => {
    const plan = await gatedPlan({ count: 2 });
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    await admin('POST', `${RUNS}/workspaces/${plan.workspace}/runs`, { type: 'plan' }).then(expectStatus(201));
    expect((await approve('plan-approver-2', plan.id).then(expectStatus(409))).reason).toBe('PlanStale');
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
  });
});

describe('Issue 45, item 2: an approver required from a named group', () => {
  it("an approver in none of the groups is recorded and the apply waits; a member's approval meets it and starts the apply", async () => {
    const plan = await gatedPlan({ groups: [RELEASE_GROUP] });
    const waiting = await approve('plan-approver-1', plan.id).then(expectStatus(202));
    expect(waiting.planApproval.stillNeeded).toEqual({ approvers: 0, groups: [RELEASE_GROUP] });
    expect(await appliesOf(plan.workspace)).toEqual([]);
    await approve('release-manager', plan.id).then(expectStatus(201));
    const approvals = (await planAnswer(plan.id)).planApproval.approvals;
    expect(
      approvals.find((approval: { approvedBy: string }) => approval.approvedBy === userOf('release-manager')),
    ).toMatchObject({ groups: expect.arrayContaining([RELEASE_GROUP]) });
    expect(await appliesOf(plan.workspace)).toHaveLength(1);
  });
});

describe("Issue 45, item 2: four eyes on an apply that needs two approvers (the plan's principal is its author)", () => {
  it("the author's approval is refused (409 ApproverIsAuthor) and not recorded; two others start the apply", async () => {
    const plan = await gatedPlan({ count: 2, distinctFromAuthor: true }, 'plan-approver-1');
    expect((await approve('plan-approver-1', plan.id).then(expectStatus(409))).reason).toBe('ApproverIsAuthor');
    expect(await approversOf(plan.id)).toEqual([]);
    const waiting = await approve('admin', plan.id).then(expectStatus(202));
    expect(waiting.planApproval).toMatchObject({
      requirement: { count: 2, distinctFromAuthor: true },
      stillNeeded: { approvers: 1 },
    });
    await approve('plan-approver-2', plan.id).then(expectStatus(201));
  });

  it("the admin's variant: the admin started the plan, and its approval is refused too", async () => {
    const plan = await gatedPlan({ count: 2, distinctFromAuthor: true }, 'admin');
    expect((await approve('admin', plan.id).then(expectStatus(409))).reason).toBe('ApproverIsAuthor');
    expect(await approversOf(plan.id)).toEqual([]);
  });
});

describe('Issue 45, item 2: withdrawing an approval of a plan (POST .../runs/{plan}/withdraw, authorized as approve)', () => {
  it('an approver withdraws its own approval (200 with the plan), which no longer counts; withdrawing again is 404 ApprovalNotFound; it may approve again', async () => {
    const plan = await gatedPlan({ count: 2 });
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    const response = await withdraw('plan-approver-1', plan.id);
    const answer = await expectStatus(200)(response);
    expect(answer).toMatchObject({
      id: plan.id,
      planApproval: { approvals: [], stillNeeded: { approvers: 2, groups: [] } },
    });
    expect(audit.completed(response)).toMatchObject({
      verb: 'approve',
      user: { username: userOf('plan-approver-1') },
      annotations: {
        'platform-api/withdrawn-approvers': userOf('plan-approver-1'),
        'platform-api/author': 'admin',
        'platform-api/plan-run': plan.id,
      },
    });
    expect((await withdraw('plan-approver-1', plan.id).then(expectStatus(404))).reason).toBe('ApprovalNotFound');
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    await approve('plan-approver-2', plan.id).then(expectStatus(201));
  });

  it("another approver withdraws an approver's approval (body approver); the audit event names both principals", async () => {
    const plan = await gatedPlan({ count: 2 });
    await approve('plan-approver-1', plan.id).then(expectStatus(202));
    const response = await withdraw('plan-approver-2', plan.id, userOf('plan-approver-1'));
    await expectStatus(200)(response);
    expect(await approversOf(plan.id)).toEqual([]);
    expect(audit.completed(response)).toMatchObject({
      user: { username: userOf('plan-approver-2') },
      annotations: { 'platform-api/withdrawn-approvers': userOf('plan-approver-1'), 'platform-api/author': 'admin' },
    });
  });

  it('once the approvals started the apply, a withdrawal is 409 ApplyAlreadyStarted and the approval stays; approving again is 409 PlanStale', async () => {
    const plan = await gatedPlan(null);
    await approve('plan-approver-1', plan.id).then(expectStatus(201));
    expect((await withdraw('plan-approver-1', plan.id).then(expectStatus(409))).reason).toBe('ApplyAlreadyStarted');
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
    expect((await approve('plan-approver-2', plan.id).then(expectStatus(409))).reason).toBe('PlanStale');
  });
});

describe('Issue 45, item 2: the audit event of each approval names both principals', () => {
  it('an approval that is recorded without starting the apply names the approver and the plan author', async () => {
    const plan = await gatedPlan({ count: 2 }, 'plan-approver-2');
    const response = await approve('plan-approver-1', plan.id);
    await expectStatus(202)(response);
    expect(audit.completed(response)).toMatchObject({
      verb: 'approve',
      user: { username: userOf('plan-approver-1') },
      annotations: {
        'platform-api/approver': userOf('plan-approver-1'),
        'platform-api/author': userOf('plan-approver-2'),
        'platform-api/plan-run': plan.id,
      },
    });
  });
});

describe('Issue 45, item 2: approvals given at once are serialised by the plan (the database decides)', () => {
  it('two approvers at once where two are needed: exactly one apply starts (one 201, one 202)', async () => {
    const plan = await gatedPlan({ count: 2 });
    const answers = await Promise.all(APPROVERS.map((who) => approve(who, plan.id)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 202]);
    expect(await appliesOf(plan.workspace)).toHaveLength(1);
    expect((await approversOf(plan.id)).sort()).toEqual(APPROVERS.map(userOf).sort());
  });

  it('two approvers at once where one is needed: exactly one apply starts, the other is 409 PlanStale and not recorded', async () => {
    const plan = await gatedPlan(null);
    const answers = await Promise.all(APPROVERS.map((who) => approve(who, plan.id)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(await appliesOf(plan.workspace)).toHaveLength(1);
    expect(await approversOf(plan.id)).toHaveLength(1);
  });

  it('the same approver twice at once where two are needed: one is recorded (202), the other 409 AlreadyApproved', async () => {
    const plan = await gatedPlan({ count: 2 });
    const answers = await Promise.all([approve('plan-approver-1', plan.id), approve('plan-approver-1', plan.id)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    expect(await approversOf(plan.id)).toEqual([userOf('plan-approver-1')]);
  });
});
