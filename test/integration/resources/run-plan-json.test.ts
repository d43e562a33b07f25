// Issue 48, item 2, through the gateway: "the task can fetch what it judges (the plan's JSON when the controller
// supplied it, the run's log) with the callback's token, and nothing else". The controller holding a plan run's
// lease uploads the plan's JSON (`POST /internal/runs/{run}/plan-json`, at most RUN_PLAN_JSON_MAX_BYTES); readers of
// the run's log read it; the requests of its tasks sent after it link it (`plan_json_api_url`), and the task server
// started by the test reads it with its request's access token. It goes with the run's log and with the run.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { RunHistoryRetention } from '../../../shared/domain/runs/history/run-history-retention.ts';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  runTaskObject,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import { type RunTaskServer, startRunTaskServer } from '../../support/run-task-server.ts';

const MAX_PLAN_JSON_BYTES = 64 * 1024;
const platform = usePlatform({ ...ENGINE_DELIVERY_ENV, RUN_PLAN_JSON_MAX_BYTES: String(MAX_PLAN_JSON_BYTES) });
const deliver = useEngineDelivery(platform, () => taskServer.received);
const admin = callAs(platform, 'admin');
// The OIDC user's Role grants every verb on `workspaces/runs` and `workspaces/log`; the CI ServiceAccount's grants
// `create`, `get` and `list` on `workspaces/runs`, and nothing on `workspaces/log`.
const developer = callAs(platform, 'oidcUser');
const ci = callAs(platform, 'serviceAccount');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const DAY_MS = 86_400_000;

/** A small plan's JSON as `terraform show -json` writes it: one bucket to create. */
const PLAN_JSON = {
  format_version: '1.2',
  terraform_version: '1.8.2',
  resource_changes: [
    {
      address: 'aws_s3_bucket.logs',
      mode: 'managed',
      type: 'aws_s3_bucket',
      name: 'logs',
      change: { actions: ['create'], before: null, after: { bucket: 'team-a-logs', acl: 'private' } },
    },
  ],
};

let taskServer: RunTaskServer;
beforeAll(async () => {
  taskServer = await startRunTaskServer(undefined, () => platform().gateway.url);
});
afterAll(async () => {
  await taskServer?.close();
});

let workspaces = 0;
/**
 * A Workspace of its own, with a RunTask that passes at pre_plan and pre_apply when `tasked`; it applies only
 * reviewed plans unless `applyWithoutPlan`.
 */
async function workspace(tasked: boolean, applyWithoutPlan = false): Promise<string> {
  const name = `plan-json-${++workspaces}`;
  const object = workspaceObject(name) as { spec: Record<string, unknown> };
  if (!applyWithoutPlan) delete object.spec.allowApplyWithoutPlan;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, object).then(expectStatus(201));
  if (tasked) {
    await admin(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
      runTaskObject(`${name}-check`, { url: taskServer.url, stages: ['pre_plan', 'pre_apply'], workspaces: [name] }),
    ).then(expectStatus(201));
    taskServer.verdicts.set(name, { status: 'passed', message: 'plan judged' });
  }
  return name;
}

/** The run once its tasks let it go (it left AwaitingTasks). */
const settled = (id: string) =>
  vi.waitFor(
    async () => {
      const run = await admin('GET', `${RUNS}/runs/${id}`).then(expectStatus(200));
      expect(run.phase).not.toBe('AwaitingTasks');
      return run;
    },
    { timeout: 30_000, interval: 100 },
  );

/** A run of `name` claimed by the controller: its id and lease. */
async function claimed(name: string, type: 'plan' | 'apply' = 'plan'): Promise<{ id: string; leaseId: string }> {
  const run = await admin('POST', `${RUNS}/workspaces/${name}/runs`, { type }).then(expectStatus(201));
  const claim = await controller('POST', '/internal/runs/claim', {
    project: TEAM_PROJECT,
    workspace: name,
    leaseSeconds: 600,
  }).then(expectStatus(200));
  expect(claim.run.id).toBe(run.id);
  return { id: run.id, leaseId: claim.lease.id };
}

const upload = (run: { id: string; leaseId: string }, document: unknown) =>
  controller('POST', `/internal/runs/${run.id}/plan-json`, document, { 'run-lease': run.leaseId });
const finish = (run: { id: string; leaseId: string }) =>
  controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: run.leaseId, phase: 'Succeeded' }).then(
    expectStatus(200),
  );
const readPlanJson = (id: string, as = developer) => as('GET', `${RUNS}/runs/${id}/plan-json`);
const storedRows = async (id: string) =>
  (await platform().database.pool.query('SELECT 1 FROM run_plan_json WHERE run_id = $1', [id])).rowCount;
/** A plan of a Workspace without tasks, held by the controller. */
const heldPlan = async () => claimed(await workspace(false));

describe("Issue 48, item 2: the controller supplies the plan's JSON; the task fetches it with the callback's token", () => {
  it("the holder of a plan run's lease uploads its JSON; a reader of the run's log reads it as sent, one without `get` on workspaces/log is refused", async () => {
    const plan = await heldPlan();
    await upload(plan, PLAN_JSON).then(expectStatus(204));
    await finish(plan);
    const read = await readPlanJson(plan.id);
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await read.text()).toBe(JSON.stringify(PLAN_JSON));
    expect((await readPlanJson(plan.id, ci)).status).toBe(403);
  });

  it("the pre_apply request of the plan's apply links the plan's JSON (`plan_json_api_url`), and the task reads it with its access token; the pre_plan request links none", async () => {
    const name = await workspace(true);
    const planRun = await admin('POST', `${RUNS}/workspaces/${name}/runs`, { type: 'plan' }).then(expectStatus(201));
    expect((await deliver(planRun.id)).payload).toHaveProperty('plan_json_api_url', null);
    expect((await settled(planRun.id)).phase).toBe('Pending');
    const claim = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace: name }).then(
      expectStatus(200),
    );
    const plan = { id: planRun.id as string, leaseId: claim.lease.id as string };
    await upload(plan, PLAN_JSON).then(expectStatus(204));
    await finish(plan);
    const apply = await developer('POST', `${RUNS}/runs/${plan.id}/apply`).then(expectStatus(201));
    expect(apply.phase).toBe('AwaitingTasks');
    const request = await deliver(apply.id);
    expect(request.payload.stage).toBe('pre_apply');
    expect(request.payload.plan_json_api_url).toMatch(
      new RegExp(`/api/v1alpha1/task-results/${request.payload.task_result_id}/plan-json$`),
    );
    expect(request.planJson).toEqual({ status: 200, body: JSON.stringify(PLAN_JSON) });
    expect((await settled(apply.id)).phase).toBe('Pending');
  });

  it("the token reads only its own task's plan JSON: another run's token is refused 403, a forged one 401, and the user route refuses it 401", async () => {
    const names = [await workspace(true), await workspace(true)];
    const requests = [];
    for (const name of names) {
      const planRun = await admin('POST', `${RUNS}/workspaces/${name}/runs`, { type: 'plan' }).then(expectStatus(201));
      await deliver(planRun.id);
      await settled(planRun.id);
      const claim = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace: name }).then(
        expectStatus(200),
      );
      const plan = { id: planRun.id as string, leaseId: claim.lease.id as string };
      await upload(plan, { ...PLAN_JSON, terraform_version: name }).then(expectStatus(204));
      await finish(plan);
      const apply = await developer('POST', `${RUNS}/runs/${plan.id}/apply`).then(expectStatus(201));
      requests.push({ plan: plan.id, request: await deliver(apply.id) });
    }
    const [a, b] = requests as [(typeof requests)[0], (typeof requests)[0]];
    const read = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const tokenB = b.request.payload.access_token as string;
    const crossed = await read(a.request.planJsonUrl!, tokenB);
    expect(crossed.status).toBe(403);
    expect(await crossed.json()).toMatchObject({ reason: 'TaskResultTokenMismatch' });
    const forged = await read(a.request.planJsonUrl!, 'rtt_forged');
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ reason: 'InvalidTaskResultToken' });
    expect((await read(`${platform().gateway.url}${RUNS}/runs/${b.plan}/plan-json`, tokenB)).status).toBe(401);
    const own = await read(b.request.planJsonUrl!, tokenB);
    expect(JSON.parse(await own.text())).toMatchObject({ terraform_version: names[1] });
  });

  it('a plan whose controller uploaded no JSON: its apply is asked with `plan_json_api_url` null, and reading it answers 404 PlanJsonNotFound', async () => {
    const name = await workspace(true);
    const planRun = await admin('POST', `${RUNS}/workspaces/${name}/runs`, { type: 'plan' }).then(expectStatus(201));
    await deliver(planRun.id);
    await settled(planRun.id);
    const claim = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace: name }).then(
      expectStatus(200),
    );
    await finish({ id: planRun.id, leaseId: claim.lease.id });
    const apply = await developer('POST', `${RUNS}/runs/${planRun.id}/apply`).then(expectStatus(201));
    const request = await deliver(apply.id);
    expect(request.payload).toHaveProperty('plan_json_api_url', null);
    const missing = await readPlanJson(planRun.id);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ reason: 'PlanJsonNotFound' });
  });
});

describe("Issue 48, item 2: only the holder of a plan run's lease uploads, within RUN_PLAN_JSON_MAX_BYTES", () => {
  it('a document over RUN_PLAN_JSON_MAX_BYTES is refused 413 with a JSON error, and nothing is kept', async () => {
    const plan = await heldPlan();
    const large = { ...PLAN_JSON, padding: 'x'.repeat(MAX_PLAN_JSON_BYTES) };
    const refused = await upload(plan, large);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ reason: 'PayloadTooLarge' });
    expect(await storedRows(plan.id)).toBe(0);
    expect((await readPlanJson(plan.id)).status).toBe(404);
  });

  it('an apply run has no plan JSON: 409 NotAPlanRun, nothing kept', async () => {
    const apply = await claimed(await workspace(false, true), 'apply');
    const refused = await upload(apply, PLAN_JSON);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ reason: 'NotAPlanRun' });
    expect(await storedRows(apply.id)).toBe(0);
  });

  it("a lease that is not the holder's is refused 409 LeaseNotHeld (after the run ended, too); no Run-Lease header 400; a body that is no plan JSON 400 InvalidPlanJson", async () => {
    const plan = await heldPlan();
    const wrongLease = await upload({ id: plan.id, leaseId: '0190f4c8-0000-7000-8000-000000000000' }, PLAN_JSON);
    expect(wrongLease.status).toBe(409);
    expect(await wrongLease.json()).toMatchObject({ reason: 'LeaseNotHeld' });
    const noLease = await controller('POST', `/internal/runs/${plan.id}/plan-json`, PLAN_JSON);
    expect(noLease.status).toBe(400);
    expect(await noLease.json()).toMatchObject({ reason: 'InvalidLease' });
    const notPlanJson = await upload(plan, { resource_changes: [] });
    expect(notPlanJson.status).toBe(400);
    expect(await notPlanJson.json()).toMatchObject({ reason: 'InvalidPlanJson' });
    await finish(plan);
    const afterEnd = await upload(plan, PLAN_JSON);
    expect(afterEnd.status).toBe(409);
    expect(await afterEnd.json()).toMatchObject({ reason: 'LeaseNotHeld' });
    expect(await storedRows(plan.id)).toBe(0);
  });
});

describe("Issue 48, item 2: the plan's JSON goes with the run's log (RUN_LOG_RETENTION) and with the run (RUN_HISTORY_RETENTION)", () => {
  const finishedAgo = (id: string, ms: number) =>
    platform().database.pool.query(
      "UPDATE runs SET finished_at = date_trunc('milliseconds', now()) - $2 * interval '1 millisecond' WHERE id = $1",
      [id, ms],
    );
  const removeExpired = (policy: { historyMs: number; logMs: number }) =>
    new RunHistoryRetention(poolDatabase(platform().database.pool), policy).removeExpired();

  it("a plan past the log retention keeps its record and loses its log and its plan's JSON", async () => {
    const plan = await heldPlan();
    await upload(plan, PLAN_JSON).then(expectStatus(204));
    await finish(plan);
    await finishedAgo(plan.id, 3 * DAY_MS);
    await removeExpired({ historyMs: 365 * DAY_MS, logMs: 2 * DAY_MS });
    expect(await storedRows(plan.id)).toBe(0);
    expect((await admin('GET', `${RUNS}/runs/${plan.id}`).then(expectStatus(200))).logRemovedAt).not.toBeNull();
    expect((await readPlanJson(plan.id)).status).toBe(404);
  });

  it("whatever removes a run removes its plan's JSON (ON DELETE CASCADE)", async () => {
    const plan = await heldPlan();
    await upload(plan, PLAN_JSON).then(expectStatus(204));
    await finish(plan);
    expect(await storedRows(plan.id)).toBe(1);
    await platform().database.pool.query('DELETE FROM runs WHERE id = $1', [plan.id]);
    expect(await storedRows(plan.id)).toBe(0);
  });
});
