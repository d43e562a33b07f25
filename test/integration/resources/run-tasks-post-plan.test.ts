// Issue 48, item 1, the "after plan" stage (HCP Terraform's post_plan), through the gateway, with a task server started
// by the test: a RunTask at post_plan is asked once a plan run has Succeeded (the controller's report records its
// pending result); the plan stays Succeeded, and until the result is final it may not be approved for apply (409
// RunTasksPending); a mandatory failure makes it unapplyable (409 RunTaskFailed) unless a person with `override`
// lets it through with a reason; an advisory failure is recorded and shown. The run answer says so in
// `planApproval.blockedBy`. A task that never answers: run-task-timeout.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import { TEAM_PROJECT, callAs, expectStatus, usePlatform } from '../../support/platform-fixture.ts';
import { postPlanRuns } from '../../support/post-plan-runs.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import { type RunTaskServer, startRunTaskServer } from '../../support/run-task-server.ts';

const audit = new AuditCapture();
const platform = usePlatform(ENGINE_DELIVERY_ENV, { auditSinks: [audit] });
// Requests go out through the outbound engine, as in production.
const deliver = useEngineDelivery(platform, () => taskServer.received);
const plans = postPlanRuns(platform, () => taskServer.url, 'post-plan');
const admin = callAs(platform, 'admin');
// The OIDC user's Role grants every verb on `workspaces/runs`, `override` included; the CI ServiceAccount's grants
// `create`, `get` and `list` there.
const developer = callAs(platform, 'oidcUser');
const ci = callAs(platform, 'serviceAccount');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;

let taskServer: RunTaskServer;
beforeAll(async () => {
  taskServer = await startRunTaskServer(undefined, () => platform().gateway.url);
});
afterAll(async () => {
  await taskServer?.close();
});

const getRun = (id: string) => admin('GET', `${RUNS}/runs/${id}`).then(expectStatus(200));
const resultsOf = async (id: string) =>
  (await admin('GET', `${RUNS}/runs/${id}/task-results`).then(expectStatus(200))).items;
const approve = (plan: string) => admin('POST', `${RUNS}/runs/${plan}/apply`, { message: 'ship it' });
const appliesOf = async (workspace: string) =>
  (
    (await admin('GET', `${RUNS}/workspaces/${workspace}/runs`).then(expectStatus(200))).items as { type: string }[]
  ).filter((run) => run.type === 'apply').length;
/** The plan's post_plan result once the task has given its final answer. */
const finalResult = (plan: string) =>
  vi.waitFor(
    async () => {
      const [result] = await resultsOf(plan);
      expect(result?.status).toMatch(/^(passed|failed)$/);
      return result;
    },
    { timeout: 30_000, interval: 100 },
  );

/** A succeeded plan of a Workspace whose post_plan task answers `verdict`, and the request the task received. */
async function checkedPlan(
  enforcement: 'advisory' | 'mandatory',
  verdict: { status: 'passed' | 'failed'; message: string } | { silent: true },
) {
  const { workspace, task } = await plans.workspaceWithPostPlanTask(enforcement);
  taskServer.verdicts.set(workspace, verdict);
  const plan = await plans.succeededPlan(workspace);
  const request = await deliver(plan.id);
  return { workspace, task, plan, request };
}

describe('Issue 48, item 1: a task at post_plan is asked once a plan run has Succeeded; the plan stays Succeeded', () => {
  it("the controller's report of success records the task's pending result, and the task is sent the request with stage post_plan", async () => {
    const { workspace, task } = await plans.workspaceWithPostPlanTask('mandatory');
    taskServer.verdicts.set(workspace, { silent: true });
    const plan = await plans.succeededPlan(workspace);
    expect(plan.phase).toBe('Succeeded');
    expect(await resultsOf(plan.id)).toEqual([
      expect.objectContaining({ task, stage: 'post_plan', enforcement: 'mandatory', status: 'pending' }),
    ]);
    const request = await deliver(plan.id);
    expect(request.payload).toMatchObject({
      stage: 'post_plan',
      run_id: plan.id,
      run_type: 'plan',
      workspace_name: workspace,
      task_result_enforcement_level: 'mandatory',
    });
    expect((await getRun(plan.id)).phase).toBe('Succeeded');
  });

  it('a passed post_plan task lets the plan be approved for apply (201)', async () => {
    const { plan, workspace } = await checkedPlan('mandatory', { status: 'passed', message: 'no findings' });
    expect(await finalResult(plan.id)).toMatchObject({ stage: 'post_plan', status: 'passed' });
    expect((await getRun(plan.id)).planApproval).toMatchObject({ applyable: true, blockedBy: null });
    const apply = await approve(plan.id).then(expectStatus(201));
    expect(apply).toMatchObject({ type: 'apply', planRun: plan.id });
    expect(await appliesOf(workspace)).toBe(1);
  });
});

describe('Issue 48, item 1: until its post_plan results are final the plan may not be approved for apply (409 RunTasksPending)', () => {
  it('a task still running blocks the approval, naming the task; the run answer says so in planApproval.blockedBy', async () => {
    const { plan, task, workspace } = await checkedPlan('advisory', { silent: true });
    const refused = await approve(plan.id);
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body).toMatchObject({ reason: 'RunTasksPending' });
    expect(body.error).toContain(task);
    const answered = await getRun(plan.id);
    expect(answered.phase).toBe('Succeeded');
    expect(answered.planApproval).toMatchObject({
      applyable: false,
      blockedBy: { reason: 'RunTasksPending', message: body.error },
    });
    expect(await appliesOf(workspace)).toBe(0);
  });
});

describe('Issue 48, item 1: a mandatory post_plan failure makes the plan unapplyable (409 RunTaskFailed naming the task)', () => {
  it('the approval is refused, nothing is recorded, and the run answer says why in planApproval.blockedBy', async () => {
    const { plan, task, workspace } = await checkedPlan('mandatory', { status: 'failed', message: 'cost rises 40 %' });
    expect(await finalResult(plan.id)).toMatchObject({ status: 'failed', enforcement: 'mandatory' });
    const refused = await approve(plan.id);
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body).toMatchObject({ reason: 'RunTaskFailed' });
    expect(body.error).toContain(`mandatory run task ${task} failed at post_plan: cost rises 40 %`);
    expect(await appliesOf(workspace)).toBe(0);
    const answered = await getRun(plan.id);
    expect(answered).toMatchObject({ phase: 'Succeeded' });
    expect(answered.planApproval).toMatchObject({
      applyable: false,
      blockedBy: { reason: 'RunTaskFailed', message: body.error },
    });
  });
});

describe('Issue 48, item 1: override-tasks on the plan lets a person with `override` proceed after a mandatory post_plan failure, with a reason, audited', () => {
  const failedCheck = async () => {
    const checked = await checkedPlan('mandatory', { status: 'failed', message: 'ticket missing' });
    await finalResult(checked.plan.id);
    return checked;
  };

  it('without the override verb the caller is refused 403 and the plan stays unapplyable', async () => {
    const { plan } = await failedCheck();
    const refused = await ci('POST', `${RUNS}/runs/${plan.id}/override-tasks`, { reason: 'hotfix' });
    expect(refused.status).toBe(403);
    expect((await resultsOf(plan.id))[0]).toMatchObject({ overriddenBy: null });
    expect((await approve(plan.id)).status).toBe(409);
  });

  it('with it, the result names who and why, the audit event carries the reason, and the plan can be approved', async () => {
    const { plan, workspace } = await failedCheck();
    const response = await developer('POST', `${RUNS}/runs/${plan.id}/override-tasks`, {
      reason: 'change CHG-7 approved',
    });
    const overridden = await expectStatus(200)(response.clone());
    expect(overridden).toMatchObject({ id: plan.id, phase: 'Succeeded' });
    expect(await resultsOf(plan.id)).toEqual([
      expect.objectContaining({
        stage: 'post_plan',
        status: 'failed',
        overriddenBy: 'oidc:alice@example.com',
        overrideReason: 'change CHG-7 approved',
      }),
    ]);
    await vi.waitFor(() =>
      expect(audit.completed(response).annotations).toMatchObject({
        'platform-api/override-reason': 'change CHG-7 approved',
      }),
    );
    expect((await getRun(plan.id)).planApproval).toMatchObject({ applyable: true, blockedBy: null });
    await approve(plan.id).then(expectStatus(201));
    expect(await appliesOf(workspace)).toBe(1);
    const again = await developer('POST', `${RUNS}/runs/${plan.id}/override-tasks`, { reason: 'twice' });
    expect(again.status).toBe(409);
  });
});

describe('Issue 48, item 1: an advisory post_plan failure is recorded and shown, and the plan may be approved', () => {
  it('the failed advisory result is kept with the plan, the answer is applyable, the approval 201', async () => {
    const { plan } = await checkedPlan('advisory', { status: 'failed', message: 'cost rises by 5 %' });
    expect(await finalResult(plan.id)).toMatchObject({
      stage: 'post_plan',
      enforcement: 'advisory',
      status: 'failed',
      message: 'cost rises by 5 %',
    });
    expect((await getRun(plan.id)).planApproval).toMatchObject({ applyable: true, blockedBy: null });
    await approve(plan.id).then(expectStatus(201));
  });
});
