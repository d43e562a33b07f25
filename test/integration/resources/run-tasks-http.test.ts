// Issue 48 (run tasks), through the gateway, with a task server started by the test that speaks HCP Terraform's run
// task protocol: a run whose Project has a RunTask for its Workspace waits in AwaitingTasks; the task is sent the
// signed request and calls back with its access token; passed and advisory failures let the run be claimed, a
// mandatory failure fails it naming the task, and only `override` on the Workspace's runs lets it proceed, with a
// reason in the audit trail. The access token answers for its own task result alone.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  runTaskObject,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery, useRunTaskRequests } from '../../support/run-task-delivery.ts';
import {
  type RunTaskServer,
  sendCallback,
  startRunTaskServer,
  taskResultDocument,
} from '../../support/run-task-server.ts';

const HMAC_KEY = 'a-task-servers-shared-secret';
const audit = new AuditCapture();
const platform = usePlatform(ENGINE_DELIVERY_ENV, { auditSinks: [audit] });
// Requests go out through the outbound engine (issue 48, item 4), as in production.
const deliver = useEngineDelivery(platform, () => taskServer.received);
const requestFor = useRunTaskRequests(platform);
const admin = callAs(platform, 'admin');
// The OIDC user's Role grants every verb on `workspaces/runs`, `override` included; the CI ServiceAccount's grants
// `create`, `get` and `list` there.
const developer = callAs(platform, 'oidcUser');
const ci = callAs(platform, 'serviceAccount');
const controller = callAs(platform, 'controller');
const RUNS = `/api/v1alpha1/projects/${TEAM_PROJECT}`;

let taskServer: RunTaskServer;
beforeAll(async () => {
  taskServer = await startRunTaskServer(HMAC_KEY, () => platform().gateway.url);
  await platform().clusterAdmin.send({
    method: 'POST',
    path: `/api/v1/namespaces/${TEAM_PROJECT}/secrets`,
    body: {
      metadata: { name: 'task-hmac', labels: { 'platform.dev/run-task-secret': 'true' } },
      stringData: { key: HMAC_KEY },
    },
  });
  await platform().clusterAdmin.send({
    method: 'POST',
    path: `/api/v1/namespaces/${TEAM_PROJECT}/secrets`,
    body: {
      metadata: { name: 'wrong-hmac', labels: { 'platform.dev/run-task-secret': 'true' } },
      stringData: { key: 'not-the-task-servers-key' },
    },
  });
});
afterAll(async () => {
  await taskServer?.close();
});

let workspaces = 0;
/** A Workspace of its own with one RunTask for it (named after it), calling the test's task server. */
async function workspaceWithTask(
  enforcement: 'advisory' | 'mandatory',
  secret = 'task-hmac',
): Promise<{ workspace: string; task: string }> {
  const workspace = `tasked-${++workspaces}`;
  const task = `${workspace}-check`;
  await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(workspace)).then(
    expectStatus(201),
  );
  await admin(
    'POST',
    `${API}/namespaces/${TEAM_PROJECT}/runtasks`,
    runTaskObject(task, {
      url: taskServer.url,
      stages: ['pre_plan', 'pre_apply'],
      enforcement,
      workspaces: [workspace],
      hmacKeySecretRef: { name: secret, key: 'key' },
    }),
  ).then(expectStatus(201));
  return { workspace, task };
}

const startPlan = (workspace: string) =>
  admin('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'plan', message: 'plan with checks' }).then(
    expectStatus(201),
  );
const getRun = (id: string) => admin('GET', `${RUNS}/runs/${id}`).then(expectStatus(200));
const resultsOf = async (id: string) =>
  (await admin('GET', `${RUNS}/runs/${id}/task-results`).then(expectStatus(200))).items;
/** The run once it has left AwaitingTasks (the task's callback moved it). */
const settled = (id: string) =>
  vi.waitFor(
    async () => {
      const run = await getRun(id);
      expect(run.phase).not.toBe('AwaitingTasks');
      return run;
    },
    { timeout: 30_000, interval: 100 },
  );
const requestOf = (runId: string) => taskServer.received.findLast((request) => request.payload.run_id === runId)!;
const claim = (workspace: string) => controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace });

describe('Issue 48, item 3: a run waits in a visible phase while its tasks run', () => {
  it('a plan run of a Workspace with a RunTask at pre_plan is recorded AwaitingTasks with a pending result, and no controller can claim it', async () => {
    const { workspace, task } = await workspaceWithTask('mandatory');
    const run = await startPlan(workspace);
    expect(run.phase).toBe('AwaitingTasks');
    expect(await resultsOf(run.id)).toEqual([
      expect.objectContaining({ task, stage: 'pre_plan', enforcement: 'mandatory', status: 'pending' }),
    ]);
    expect((await claim(workspace)).status).toBe(204);
  });

  it('a Workspace no RunTask names runs as before: Pending at once, no results', async () => {
    await admin('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('untasked')).then(
      expectStatus(201),
    );
    const run = await startPlan('untasked');
    expect(run.phase).toBe('Pending');
    expect(await resultsOf(run.id)).toEqual([]);
  });
});

describe("Issue 48, item 2: the protocol teams' tools already speak (HCP Terraform's run task request and callback)", () => {
  it('the request carries the payload fields, signed with HMAC-SHA512 of the body in X-TFC-Task-Signature; a passed callback lets the controller claim the run, and its claim says it may proceed', async () => {
    const { workspace, task } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, {
      status: 'passed',
      message: '3 checks passed',
      url: 'https://scanner.example.com/results/1',
      runningFirst: true,
      outcomes: [
        {
          type: 'task-result-outcomes',
          attributes: {
            'outcome-id': 'CHK-1',
            description: 'No public buckets',
            body: '## Fine',
            tags: { Status: [{ label: 'Passed', level: 'info' }] },
          },
        },
      ],
    });
    const run = await startPlan(workspace);
    const request = await deliver(run.id);
    expect(request.signatureValid).toBe(true);
    expect(request.payload).toMatchObject({
      payload_version: 1,
      stage: 'pre_plan',
      access_token: expect.stringMatching(/^rtt_/),
      capabilities: { outcomes: true },
      is_speculative: false,
      organization_name: TEAM_PROJECT,
      run_id: run.id,
      run_message: 'plan with checks',
      run_created_by: 'admin',
      run_created_at: run.createdAt,
      task_result_enforcement_level: 'mandatory',
      task_result_callback_url: expect.stringMatching(/\/api\/v1alpha1\/task-results\/[0-9a-f-]{36}\/callback$/),
      workspace_name: workspace,
      workspace_id: expect.stringMatching(/.+/),
    });
    expect(request.payload).toHaveProperty('plan_json_api_url', null);
    const moved = await settled(run.id);
    expect(moved).toMatchObject({ phase: 'Pending', statusMessage: expect.stringContaining(`${task} passed`) });
    expect(await resultsOf(run.id)).toEqual([
      expect.objectContaining({
        id: request.payload.task_result_id,
        status: 'passed',
        message: '3 checks passed',
        url: 'https://scanner.example.com/results/1',
        outcomes: [expect.objectContaining({ outcomeId: 'CHK-1', description: 'No public buckets', body: '## Fine' })],
      }),
    ]);
    const claimed = await claim(workspace).then(expectStatus(200));
    expect(claimed.run.id).toBe(run.id);
    expect(claimed.runTasks).toMatchObject({ mayProceed: true, results: [expect.objectContaining({ task })] });
  });

  it('a failed advisory task is recorded and shown, and the run goes on', async () => {
    const { workspace, task } = await workspaceWithTask('advisory');
    taskServer.verdicts.set(workspace, { status: 'failed', message: 'cost rises by 40 %' });
    const run = await startPlan(workspace);
    await deliver(run.id);
    expect(await settled(run.id)).toMatchObject({
      phase: 'Pending',
      statusMessage: expect.stringContaining(`${task} failed (advisory)`),
    });
    expect(await resultsOf(run.id)).toEqual([
      expect.objectContaining({ status: 'failed', enforcement: 'advisory', message: 'cost rises by 40 %' }),
    ]);
    expect((await claim(workspace).then(expectStatus(200))).runTasks.mayProceed).toBe(true);
  });

  it('a failed mandatory task ends the run as Failed, naming the task; no controller gets it', async () => {
    const { workspace, task } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, { status: 'failed', message: 'public bucket found' });
    const run = await startPlan(workspace);
    await deliver(run.id);
    const failed = await settled(run.id);
    expect(failed).toMatchObject({ phase: 'Failed', finishedAt: expect.any(String) });
    expect(failed.statusMessage).toContain(`mandatory run task ${task} failed at pre_plan: public bucket found`);
    expect((await claim(workspace)).status).toBe(204);
  });

  it('an apply run waits for the tasks at pre_apply', async () => {
    const { workspace } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, { status: 'passed', message: 'ok' });
    const run = await admin('POST', `${RUNS}/workspaces/${workspace}/runs`, { type: 'apply' }).then(expectStatus(201));
    expect(run.phase).toBe('AwaitingTasks');
    await deliver(run.id);
    expect(requestOf(run.id).payload.stage).toBe('pre_apply');
    expect((await settled(run.id)).phase).toBe('Pending');
  });

  it('a request signed with another key is refused by the task, which then never answers: the run keeps waiting', async () => {
    const { workspace } = await workspaceWithTask('mandatory', 'wrong-hmac');
    const run = await startPlan(workspace);
    expect((await deliver(run.id)).signatureValid).toBe(false);
    expect((await getRun(run.id)).phase).toBe('AwaitingTasks');
  });
});

describe("Issue 48, item 3: override on the Workspace's runs lets a named person proceed after a mandatory failure, with a reason, audited", () => {
  const failedRun = async () => {
    const { workspace, task } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, { status: 'failed', message: 'ticket missing' });
    const run = await startPlan(workspace);
    await deliver(run.id);
    expect((await settled(run.id)).phase).toBe('Failed');
    return { run, workspace, task };
  };

  it('without the override verb the caller is refused 403 and the run stays Failed', async () => {
    const { run } = await failedRun();
    const refused = await ci('POST', `${RUNS}/runs/${run.id}/override-tasks`, { reason: 'hotfix' });
    expect(refused.status).toBe(403);
    expect((await getRun(run.id)).phase).toBe('Failed');
  });

  it('with it, the run is Pending again for the controller, the result names who and why, and the audit event carries the reason', async () => {
    const { run, workspace } = await failedRun();
    const noReason = await developer('POST', `${RUNS}/runs/${run.id}/override-tasks`, {});
    expect(noReason.status).toBe(400);
    const response = await developer('POST', `${RUNS}/runs/${run.id}/override-tasks`, {
      reason: 'change CHG-42 approved',
    });
    const overridden = await expectStatus(200)(response.clone());
    expect(overridden).toMatchObject({ phase: 'Pending', finishedAt: null });
    expect(overridden.statusMessage).toContain('change CHG-42 approved');
    expect(await resultsOf(run.id)).toEqual([
      expect.objectContaining({
        status: 'failed',
        overriddenBy: 'oidc:alice@example.com',
        overrideReason: 'change CHG-42 approved',
      }),
    ]);
    await vi.waitFor(() =>
      expect(audit.completed(response).annotations).toMatchObject({
        'platform-api/override-reason': 'change CHG-42 approved',
      }),
    );
    expect((await claim(workspace).then(expectStatus(200))).run.id).toBe(run.id);
    const again = await developer('POST', `${RUNS}/runs/${run.id}/override-tasks`, { reason: 'twice' });
    expect(again.status).toBe(409);
  });
});

describe('Issue 48, item 2: the callback token is short-lived, bound to one run and one task result, and opens nothing else', () => {
  it('a forged token is refused 401 on the callback; a token reused for another run is refused 403 and changes nothing there', async () => {
    const first = await workspaceWithTask('mandatory');
    const second = await workspaceWithTask('mandatory');
    const runA = await startPlan(first.workspace);
    const runB = await startPlan(second.workspace);
    await deliver(runA.id);
    await deliver(runB.id);
    const tokenA = requestOf(runA.id).payload.access_token as string;
    const callbackB = requestOf(runB.id).callbackUrl;
    const forged = await sendCallback(callbackB, 'rtt_forged', taskResultDocument('passed', 'trust me'));
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body)).toMatchObject({ reason: 'InvalidTaskResultToken' });
    const reused = await sendCallback(callbackB, tokenA, taskResultDocument('passed', 'trust me'));
    expect(reused.status).toBe(403);
    expect(JSON.parse(reused.body)).toMatchObject({ reason: 'TaskResultTokenMismatch' });
    expect((await resultsOf(runB.id))[0]).toMatchObject({ status: 'pending' });
    expect((await getRun(runB.id)).phase).toBe('AwaitingTasks');
  });

  it("the token reads its run's log and nothing else: not another result's log, not the run's record, not the cluster", async () => {
    const first = await workspaceWithTask('advisory');
    const second = await workspaceWithTask('advisory');
    const runA = await startPlan(first.workspace);
    const runB = await startPlan(second.workspace);
    await deliver(runA.id);
    await deliver(runB.id);
    const token = requestOf(runA.id).payload.access_token;
    const logUrl = requestOf(runA.id).runLogUrl;
    const read = (url: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const own = await read(logUrl);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await read(requestOf(runB.id).runLogUrl)).status).toBe(403);
    expect((await read(`${platform().gateway.url}${RUNS}/runs/${runA.id}`)).status).toBe(401);
    expect((await read(`${platform().gateway.url}${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(401);
  });

  it('a new request of the same task result replaces its token: the earlier one is refused', async () => {
    const { workspace, task } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, { silent: true });
    const run = await startPlan(workspace);
    const delivered = await deliver(run.id);
    const callback = delivered.callbackUrl;
    const earlier = delivered.payload as { task_result_id: string; access_token: string };
    // A new request of the same result (the engine's next attempt builds one the same way).
    const again = await requestFor(run.id, task);
    if ('drop' in again) throw new Error(again.drop);
    const later = JSON.parse(again.request.body) as { task_result_id: string; access_token: string };
    expect(later.task_result_id).toBe(earlier.task_result_id);
    expect(later.access_token).not.toBe(earlier.access_token);
    const stale = await sendCallback(callback, earlier.access_token, taskResultDocument('passed', 'x'));
    expect(stale.status).toBe(401);
    const current = await sendCallback(callback, later.access_token, taskResultDocument('passed', 'x'));
    expect(current.status).toBe(200);
    expect((await settled(run.id)).phase).toBe('Pending');
    const afterFinal = await sendCallback(callback, later.access_token, taskResultDocument('failed', 'y'));
    expect(afterFinal.status).toBe(409);
    expect(JSON.parse(afterFinal.body)).toMatchObject({ reason: 'TaskResultFinal' });
  });

  it('a callback that is not a task result document is refused 400 naming the field', async () => {
    const { workspace } = await workspaceWithTask('mandatory');
    taskServer.verdicts.set(workspace, { silent: true });
    const run = await startPlan(workspace);
    const { callbackUrl: url, payload } = await deliver(run.id);
    const token = payload.access_token;
    const refused = await sendCallback(url, token, { data: { type: 'task-results', attributes: { status: 'done' } } });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({
      reason: 'InvalidTaskResult',
      error: expect.stringContaining('data.attributes.status'),
    });
  });
});
