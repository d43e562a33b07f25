// Issue 48, item 3: a task that never answers. With RUN_TASK_TIMEOUT short, its result is errored once the deadline
// passes (the controller's next claim settles it), which fails a run of a mandatory task naming it and lets a run of
// an advisory one go on; the access token of the request dies with the deadline. A post_plan task that never answers
// is errored the same way, without moving its plan's phase, and blocks the plan's approval as a mandatory failure.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  runTaskObject,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { postPlanRuns } from '../../support/post-plan-runs.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import {
  type RunTaskServer,
  sendCallback,
  startRunTaskServer,
  taskResultDocument,
} from '../../support/run-task-server.ts';

const TIMEOUT_SECONDS = 2;
const platform = usePlatform({ ...ENGINE_DELIVERY_ENV, RUN_TASK_TIMEOUT: `${TIMEOUT_SECONDS}s` });
const deliver = useEngineDelivery(platform, () => taskServer.received);
const admin = callAs(platform, 'admin');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;
const plans = postPlanRuns(platform, () => taskServer.url, 'silent-post-plan');

let taskServer: RunTaskServer;
beforeAll(async () => {
  // It answers no run: every Workspace's verdict is silence.
  taskServer = await startRunTaskServer(undefined, () => platform().gateway.url);
});
afterAll(async () => {
  await taskServer?.close();
});

/** A run of a Workspace of its own whose one task (without an HMAC key) never answers; its request was delivered. */
async function runOfSilentTask(enforcement: 'advisory' | 'mandatory') {
  const workspace = `silent-${enforcement}`;
  const task = `${workspace}-check`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(workspace)).then(
    expectStatus(201),
  );
  await admin(
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
    runTaskObject(task, { url: taskServer.url, enforcement, workspaces: [workspace] }),
  ).then(expectStatus(201));
  const run = await admin('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'plan' }).then(expectStatus(201));
  expect(run.phase).toBe('AwaitingTasks');
  const request = await deliver(run.id);
  // Unsigned, as HCP Terraform sends the requests of a task without an HMAC key.
  expect(request.signature).toBeUndefined();
  return { workspace, task, run, request };
}

/** The run once the deadline has passed and a claim (the controller's poll) settled its tasks. */
const settledByClaims = (runId: string) =>
  vi.waitFor(
    async () => {
      await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace: 'no-such-workspace' });
      const run = await admin('GET', `${RUNS}/runs/${runId}`).then(expectStatus(200));
      expect(run.phase).not.toBe('AwaitingTasks');
      return run;
    },
    { timeout: 30_000, interval: 250 },
  );

describe('Issue 48, item 3: a task that never answers, with a documented timeout (RUN_TASK_TIMEOUT)', () => {
  it('a mandatory task with no answer before the deadline is errored and fails the run naming it; its token is refused after', async () => {
    const { task, run, request } = await runOfSilentTask('mandatory');
    const failed = await settledByClaims(run.id);
    expect(failed.phase).toBe('Failed');
    expect(failed.statusMessage).toContain(`mandatory run task ${task} errored`);
    const [result] = (await admin('GET', `${RUNS}/runs/${run.id}/task-results`).then(expectStatus(200))).items;
    expect(result).toMatchObject({ status: 'errored', message: expect.stringContaining('RUN_TASK_TIMEOUT') });
    const late = await sendCallback(
      request.callbackUrl,
      request.payload.access_token,
      taskResultDocument('passed', 'too late'),
    );
    expect(late.status).toBe(401);
  });

  it('an advisory task with no answer lets the run go on', async () => {
    const { workspace, run } = await runOfSilentTask('advisory');
    const moved = await settledByClaims(run.id);
    expect(moved.phase).toBe('Pending');
    const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
      expectStatus(200),
    );
    expect(claimed.runTasks).toMatchObject({
      mayProceed: true,
      results: [expect.objectContaining({ status: 'errored' })],
    });
  });
});

describe('Issue 48, item 1: a post_plan task that never answers times out (errored) and blocks the plan as a mandatory failure', () => {
  it('its result is errored after the deadline, the plan stays Succeeded, and approving it is 409 RunTaskFailed naming the task', async () => {
    const { task, workspace } = await plans.workspaceWithPostPlanTask('mandatory');
    const plan = await plans.succeededPlan(workspace);
    expect((await deliver(plan.id)).payload.stage).toBe('post_plan');
    // Reading the results settles deadlines, as the claim and the sweep do.
    await vi.waitFor(
      async () => {
        const [result] = (await admin('GET', `${RUNS}/runs/${plan.id}/task-results`).then(expectStatus(200))).items;
        expect(result).toMatchObject({ stage: 'post_plan', status: 'errored' });
      },
      { timeout: 30_000, interval: 250 },
    );
    const answered = await admin('GET', `${RUNS}/runs/${plan.id}`).then(expectStatus(200));
    expect(answered.phase).toBe('Succeeded');
    expect(answered.planApproval).toMatchObject({ applyable: false, blockedBy: { reason: 'RunTaskFailed' } });
    const refused = await admin('POST', `${RUNS}/runs/${plan.id}/apply`, {});
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body).toMatchObject({ reason: 'RunTaskFailed' });
    expect(body.error).toContain(`mandatory run task ${task} errored at post_plan`);
  });
});
