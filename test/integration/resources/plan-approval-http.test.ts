// Issue 37, build item 3 ("apply what was reviewed"), through the gateway: a succeeded plan run approved for
// apply (`POST .../runs/{plan}/apply`, authorized as `approve` on `workspaces/runs`) becomes an apply run bound to
// it, which the controller is handed on claim; stale plans and anything but a succeeded plan are refused (409);
// "Start apply" without a plan only where the Workspace allows it; the audit trail names both principals.
import { describe, expect, it } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  API,
  CALLER_ACCOUNT_USER,
  OIDC_USERNAME,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  usePlatform,
  variableSetObject,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const audit = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [audit] });
const admin = callAs(platform, 'admin');
// The OIDC user's Role grants every verb on `workspaces/runs`, `approve` included; the CI ServiceAccount's
// grants `create`, `get` and `list` there, not `approve`.
const approver = callAs(platform, 'oidcUser');
const ci = callAs(platform, 'serviceAccount');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const UNKNOWN_RUN = '0190f4c8-0000-7000-8000-000000000000';

let workspaces = 0;
/** A Workspace that applies only reviewed plans (`allowApplyWithoutPlan` unset, false by default). */
async function reviewedWorkspace(): Promise<string> {
  const name = `reviewed-${++workspaces}`;
  const object = workspaceObject(name) as { spec: Record<string, unknown> };
  delete object.spec.allowApplyWithoutPlan;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, object).then(expectStatus(201));
  return name;
}

const start = (workspace: string, type: 'plan' | 'apply', as = admin) =>
  as('POST', `${RUNS}/workspaces/${workspace}/runs`, { type });

/** A plan run of `workspace` started by the admin and taken by the controller to `phase`. */
async function plan(workspace: string, phase: 'Succeeded' | 'Failed' = 'Succeeded'): Promise<{ id: string }> {
  const run = await start(workspace, 'plan').then(expectStatus(201));
  const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
    expectStatus(200),
  );
  expect(claimed.run.id).toBe(run.id);
  await controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: claimed.lease.id, phase }).then(
    expectStatus(200),
  );
  return run;
}

const applyPlan = (planRun: string, as = approver, body?: unknown) => as('POST', `${RUNS}/runs/${planRun}/apply`, body);
const runsOf = async (workspace: string) =>
  (
    (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items as Array<{
      type: string;
      phase: string;
    }>
  ).map((run) => `${run.type}:${run.phase}`);

describe('issue 37: "Start apply" without a plan only where the Workspace allows it (spec.allowApplyWithoutPlan)', () => {
  it('a Workspace that applies only reviewed plans refuses an apply run with 409 ApplyNeedsPlan, and records nothing; a plan starts', async () => {
    const workspace = await reviewedWorkspace();
    const refused = await start(workspace, 'apply').then(expectStatus(409));
    expect(refused).toMatchObject({
      reason: 'ApplyNeedsPlan',
      error: expect.stringContaining('allowApplyWithoutPlan'),
    });
    expect(await runsOf(workspace)).toEqual([]);
    await start(workspace, 'plan').then(expectStatus(201));
  });

  it('a Workspace with allowApplyWithoutPlan: true starts an apply run directly, with no plan', async () => {
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('apply-directly')).then(
      expectStatus(201),
    );
    expect(await start('apply-directly', 'apply').then(expectStatus(201))).toMatchObject({
      type: 'apply',
      planRun: null,
    });
  });
});

describe('issue 37: approving a succeeded plan for apply is the `approve` verb on workspaces/runs, and binds the apply to the plan', () => {
  it('a caller who may start runs but not approve gets 403 naming the verb, and nothing is recorded', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const refused = await applyPlan(reviewed.id, ci).then(expectStatus(403));
    expect(refused).toMatchObject({
      reason: 'Forbidden',
      error: `${CALLER_ACCOUNT_USER} may not approve workspaces/runs.platform.dev "${workspace}" in namespace "${TEAM_PROJECT}"`,
    });
    expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
  });

  it('an approver gets 201 with the apply run (Location, planRun, its principal and message); the controller is handed the plan id on claim', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const response = await applyPlan(reviewed.id, approver, { message: 'reviewed in CAB-12' });
    const apply = await expectStatus(201)(response);
    expect(apply).toMatchObject({
      workspace,
      type: 'apply',
      phase: 'Pending',
      principal: OIDC_USERNAME,
      principalType: 'oidc',
      message: 'reviewed in CAB-12',
      planRun: reviewed.id,
    });
    expect(response.headers.get('location')).toBe(`${RUNS}/runs/${apply.id}`);
    expect(await admin('GET', `${RUNS}/runs/${apply.id}`).then(expectStatus(200))).toEqual(apply);

    const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
      expectStatus(200),
    );
    expect(claimed.run).toMatchObject({ id: apply.id, type: 'apply', planRun: reviewed.id });
  });

  it('no body is an empty message; an unknown field is 400 InvalidRun', async () => {
    const reviewed = await plan(await reviewedWorkspace());
    await applyPlan(reviewed.id, approver, { message: 'x', planRun: UNKNOWN_RUN })
      .then(expectStatus(400))
      .then((body) => expect(body.reason).toBe('InvalidRun'));
    expect(await applyPlan(reviewed.id).then(expectStatus(201))).toMatchObject({ message: '', planRun: reviewed.id });
  });

  it("the audit event names the approver and the plan's author, the plan and the new apply run", async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const response = await applyPlan(reviewed.id);
    const apply = await expectStatus(201)(response);
    const event = audit.completed(response);
    expect(event).toMatchObject({
      verb: 'approve',
      user: { username: OIDC_USERNAME },
      objectRef: {
        resource: 'workspaces',
        subresource: 'runs',
        namespace: TEAM_PROJECT,
        name: workspace,
        uid: reviewed.id,
      },
      responseStatus: { code: 201 },
    });
    expect(event.annotations).toMatchObject({
      'authorization.k8s.io/decision': 'allow',
      'platform-api/approver': OIDC_USERNAME,
      'platform-api/author': 'admin',
      'platform-api/plan-run': reviewed.id,
      'platform-api/run': apply.id,
    });
  });
});

describe('issue 37: a stale plan, or anything but a succeeded plan, is refused with 409 and nothing is recorded', () => {
  it('a plan is applied at most once: approving it again is PlanStale', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await applyPlan(reviewed.id).then(expectStatus(201));
    const again = await applyPlan(reviewed.id).then(expectStatus(409));
    expect(again).toMatchObject({ reason: 'PlanStale', error: expect.stringContaining('a newer apply run') });
    expect(await runsOf(workspace)).toEqual(['apply:Pending', 'plan:Succeeded']);
  });

  it('a plan superseded by a newer plan of the Workspace is PlanStale', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const newer = await start(workspace, 'plan').then(expectStatus(201));
    const refused = await applyPlan(reviewed.id).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'PlanStale', error: expect.stringContaining(newer.id) });
    expect(await runsOf(workspace)).toEqual(['plan:Pending', 'plan:Succeeded']);
  });

  it('a plan older than PLAN_APPROVAL_MAX_AGE (24h by default) is PlanStale', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await platform().database.pool.query("UPDATE runs SET finished_at = now() - interval '25 hours' WHERE id = $1", [
      reviewed.id,
    ]);
    const refused = await applyPlan(reviewed.id).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'PlanStale', error: expect.stringContaining('PLAN_APPROVAL_MAX_AGE') });
    expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
  });

  it('a failed plan, a pending plan and an apply run are NotASucceededPlan', async () => {
    const failed = await plan(await reviewedWorkspace(), 'Failed');
    const pending = await start(await reviewedWorkspace(), 'plan').then(expectStatus(201));
    const direct = await start('apply-directly', 'apply').then(expectStatus(201));
    for (const run of [failed, pending, direct])
      expect((await applyPlan(run.id).then(expectStatus(409))).reason).toBe('NotASucceededPlan');
  });

  it('an unknown run is 404 RunNotFound; a suspended Workspace is 409 WorkspaceSuspended', async () => {
    expect((await applyPlan(UNKNOWN_RUN).then(expectStatus(404))).reason).toBe('RunNotFound');
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await admin(
      'PATCH',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces/${workspace}`,
      { spec: { suspend: true } },
      { 'content-type': 'application/merge-patch+json' },
    ).then(expectStatus(200));
    expect((await applyPlan(reviewed.id).then(expectStatus(409))).reason).toBe('WorkspaceSuspended');
    expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
  });
});

describe('issue 37, build item 4: a SelfSubjectAccessReview answers truly whether a caller may approve runs', () => {
  const mayApprove = async (as: typeof admin) =>
    (
      await as('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        spec: {
          resourceAttributes: {
            verb: 'approve',
            group: 'platform.dev',
            resource: 'workspaces',
            subresource: 'runs',
            namespace: TEAM_PROJECT,
            name: 'any',
          },
        },
      }).then(expectStatus(201))
    ).status.allowed;

  it('yes for the approver and the admin, no for the CI account that may only start runs', async () => {
    expect([await mayApprove(approver), await mayApprove(admin), await mayApprove(ci)]).toEqual([true, true, false]);
  });
});

describe('Issue 44, item 15: the run answer says whether a succeeded plan may still be applied, as the approval decides it', () => {
  const hours = 3_600_000;
  // Issue 45, item 2: no approval yet, and no policy: one approval from anybody starts the apply.
  const NOT_YET_APPROVED = {
    approvals: [],
    requirement: { count: 1, groups: [], distinctFromAuthor: false },
    stillNeeded: { approvers: 1, groups: [] },
  };
  const getRun = async (id: string) => admin('GET', `${RUNS}/runs/${id}`).then(expectStatus(200));
  const listed = async (workspace: string, id: string) =>
    (
      (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items as Array<{
        id: string;
      }>
    ).find((run) => run.id === id);

  it('a fresh plan, the newest run of its Workspace, is applyable until it finished + PLAN_APPROVAL_MAX_AGE (24h), in the run and in the list', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const answer = await getRun(reviewed.id);
    expect(answer.planApproval).toEqual({
      applyable: true,
      applyableUntil: new Date(Date.parse(answer.finishedAt) + 24 * hours).toISOString(),
      supersededBy: null,
      ...NOT_YET_APPROVED,
      blockedBy: null,
    });
    expect(await listed(workspace, reviewed.id)).toEqual(answer);
    await applyPlan(reviewed.id).then(expectStatus(201));
  });

  it('a plan that finished longer ago than PLAN_APPROVAL_MAX_AGE is not applyable, and approving it is PlanStale', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await platform().database.pool.query("UPDATE runs SET finished_at = now() - interval '25 hours' WHERE id = $1", [
      reviewed.id,
    ]);
    const answer = await getRun(reviewed.id);
    expect(answer.planApproval).toEqual({
      applyable: false,
      applyableUntil: new Date(Date.parse(answer.finishedAt) + 24 * hours).toISOString(),
      supersededBy: null,
      ...NOT_YET_APPROVED,
      blockedBy: null,
    });
    expect(Date.parse(answer.planApproval.applyableUntil)).toBeLessThan(Date.now());
    expect((await applyPlan(reviewed.id).then(expectStatus(409))).reason).toBe('PlanStale');
  });

  it('a plan superseded by a newer plan, or already applied, is not applyable and names the run that superseded it', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    const newer = await start(workspace, 'plan').then(expectStatus(201));
    expect((await getRun(reviewed.id)).planApproval).toMatchObject({
      applyable: false,
      supersededBy: { id: newer.id, type: 'plan' },
    });
    expect((await applyPlan(reviewed.id).then(expectStatus(409))).reason).toBe('PlanStale');

    const applied = await plan(await reviewedWorkspace());
    const apply = await applyPlan(applied.id).then(expectStatus(201));
    expect((await getRun(applied.id)).planApproval).toMatchObject({
      applyable: false,
      supersededBy: { id: apply.id, type: 'apply' },
    });
  });

  it('every other run (a pending or failed plan, an apply run) answers planApproval: null', async () => {
    const pending = await start(await reviewedWorkspace(), 'plan').then(expectStatus(201));
    const failed = await plan(await reviewedWorkspace(), 'Failed');
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('applies-directly')).then(
      expectStatus(201),
    );
    const direct = await start('applies-directly', 'apply').then(expectStatus(201));
    expect(pending.planApproval).toBeNull();
    for (const run of [pending, failed, direct]) expect((await getRun(run.id)).planApproval).toBeNull();
  });
});

describe('Issue 45, item 1 (attack 4): an approved plan is applied only to the Workspace object and spec it was planned for', () => {
  const workspacePath = (name: string) => `${API}/namespaces/${TEAM_PROJECT}/workspaces/${name}`;
  const mergePatch = (path: string, body: unknown) =>
    admin('PATCH', path, body, { 'content-type': 'application/merge-patch+json' }).then(expectStatus(200));
  const refusedAsChanged = async (planRun: string, workspace: string, change: string | RegExp) => {
    const refused = await applyPlan(planRun).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'PlanWorkspaceChanged', error: expect.stringMatching(change) });
    expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
  };

  it("after the Workspace's repository changed: 409 PlanWorkspaceChanged naming its spec, and nothing is recorded", async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await mergePatch(workspacePath(workspace), {
      spec: { source: { repository: 'https://git.example.com/attacker.git' } },
    });
    await refusedAsChanged(reviewed.id, workspace, /spec changed since the plan/);
  });

  it('after the Workspace was deleted and re-created with another repository: 409 naming the re-creation', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await admin('DELETE', workspacePath(workspace)).then(expectStatus(200));
    const object = workspaceObject(workspace) as { spec: Record<string, unknown> };
    delete object.spec.allowApplyWithoutPlan;
    object.spec.source = { repository: 'https://git.example.com/attacker.git', path: 'network' };
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, object).then(expectStatus(201));
    await refusedAsChanged(reviewed.id, workspace, /deleted and re-created/);
  });

  it('after a VariableSet it refers to changed (a plain value, then a sensitive one): 409 naming the VariableSet', async () => {
    for (const variable of [
      { name: 'region', value: 'eu-west-1' },
      { name: 'token', value: 's3cret-2', sensitive: true },
    ]) {
      const workspace = await reviewedWorkspace();
      const set = `${workspace}-vars`;
      await admin(
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
        variableSetObject(set, [
          { name: 'region', value: 'us-east-1' },
          { name: 'token', value: 's3cret-1', sensitive: true },
        ]),
      ).then(expectStatus(201));
      await mergePatch(workspacePath(workspace), { spec: { variableSetRefs: [{ name: set }] } });
      const reviewed = await plan(workspace);
      const current = await admin('GET', `${API}/namespaces/${TEAM_PROJECT}/variablesets/${set}`).then(
        expectStatus(200),
      );
      const variables = (current.spec.variables as Array<{ name: string }>).map((stored) =>
        stored.name === variable.name ? variable : stored,
      );
      await mergePatch(`${API}/namespaces/${TEAM_PROJECT}/variablesets/${set}`, { spec: { variables } });
      await refusedAsChanged(reviewed.id, workspace, new RegExp(`VariableSet "${set}" changed`));
    }
  });

  it('the Workspace unchanged but for its labels: approved', async () => {
    const workspace = await reviewedWorkspace();
    const reviewed = await plan(workspace);
    await mergePatch(workspacePath(workspace), { metadata: { labels: { team: 'a' } } });
    await applyPlan(reviewed.id).then(expectStatus(201));
  });
});

describe("Issue 45, item 2: the Project's approval policy gates a Workspace's applies (spec.approvalPolicy.applies)", () => {
  const projectPath = `${API}/projects/${TEAM_PROJECT}`;
  const gateApplies = (workspace: string, distinctFromAuthor: boolean) =>
    admin(
      'PATCH',
      projectPath,
      { spec: { approvalPolicy: { applies: [{ workspace, approvals: { count: 1, distinctFromAuthor } }] } } },
      { 'content-type': 'application/merge-patch+json' },
    ).then(expectStatus(200));

  it('an apply without a plan is 409 ApplyNeedsPlan naming the policy, although the Workspace allows it', async () => {
    const name = 'policy-gated-direct';
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(name)).then(expectStatus(201));
    await gateApplies(name, false);
    const refused = await start(name, 'apply').then(expectStatus(409));
    expect(refused).toMatchObject({
      reason: 'ApplyNeedsPlan',
      error: expect.stringContaining('spec.approvalPolicy.applies'),
    });
    expect(await runsOf(name)).toEqual([]);
  });

  it("under four eyes the plan's author may not approve it for apply (the admin included); another approver may", async () => {
    const workspace = await reviewedWorkspace();
    await gateApplies(workspace, true);
    const reviewed = await plan(workspace); // started by the admin
    const refused = await applyPlan(reviewed.id, admin).then(expectStatus(409));
    expect(refused.reason).toBe('ApproverIsAuthor');
    expect(await runsOf(workspace)).toEqual(['plan:Succeeded']);
    await applyPlan(reviewed.id, approver).then(expectStatus(201));
  });
});
