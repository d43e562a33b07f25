// Issue 44, item 3: "Locally, a run never starts." `npm start` runs a development controller by
// default (LOCAL_CONTROLLER=false turns it off): a ServiceAccount of the built-in emulator with the
// chart's controller role, calling the server's routes through the gateway. Proved through the
// public API only: a plan run goes Pending → Succeeded with a plan summary in its log (and its plan's
// JSON, issue 48), a run asked to fail ends Failed, the demo Rollout stops at its approval stage and
// finishes after an approve; with the setting off nothing claims.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1ClusterRole } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controllerRoleRules } from '../../../infra/development/controller/controller-identity.ts';
import { FAIL_MARKER, PLAN_SUMMARY, simulatedPlanJson } from '../../../infra/development/controller/simulated-run.ts';
import { findObject, helmTemplate } from '../../support/helm.ts';
import { loginToken, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';

const API = '/api/v1alpha1/projects/demo';
const ROLLOUT = '/apis/platform.dev/v1alpha1/namespaces/demo/rollouts/network-v2';
// Generous bounds on conditions waited for, not sleeps: a loaded two-core machine is slow.
const WAIT = { timeout: 90_000, interval: 200 };

interface LocalMode {
  gateway: FunctionProcess;
  token: string;
  dataDir: string;
}

async function startLocalMode(env: Record<string, string> = {}): Promise<LocalMode> {
  const dataDir = await mkdtemp(join(tmpdir(), 'local-dev-controller-'));
  const gateway = await spawnNodeProcess(
    'infra/development/gateway/local-gateway.ts',
    { NODE_ENV: 'development', LOCAL_DATA_DIR: dataDir, ...env },
    '/readyz',
    { startTimeoutMs: 120_000 },
  );
  return { gateway, dataDir, token: await loginToken(gateway.url) };
}

async function stopLocalMode(mode: LocalMode | undefined): Promise<void> {
  await mode?.gateway.stop();
  if (mode) await rm(mode.dataDir, { recursive: true, force: true });
}

async function call(mode: LocalMode, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${mode.gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${mode.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

async function startRun(mode: LocalMode, workspace: string, message: string): Promise<{ id: string; phase: string }> {
  const answer = await call(mode, 'POST', `${API}/workspaces/${workspace}/runs`, { type: 'plan', message });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; phase: string };
}

async function runOf(mode: LocalMode, id: string): Promise<{ phase: string; controller: string | null }> {
  return (await (await call(mode, 'GET', `${API}/runs/${id}`)).json()) as { phase: string; controller: string | null };
}

/** The whole log of a finished run, as its stream sends it (it ends once the run is final). */
async function logOf(mode: LocalMode, id: string): Promise<string> {
  return (await call(mode, 'GET', `/api/v1alpha1/run-logs/demo/${id}`)).text();
}

async function rolloutStatus(
  mode: LocalMode,
): Promise<{ phase?: string; stages?: Array<{ workspace: string; phase?: string }> }> {
  return ((await (await call(mode, 'GET', ROLLOUT)).json()) as { status?: object }).status ?? {};
}

describe('Issue 44, item 3: npm start runs a development controller by default', () => {
  let mode: LocalMode;
  beforeAll(async () => {
    mode = await startLocalMode();
  }, 180_000);
  afterAll(() => stopLocalMode(mode));

  it('a plan run goes Pending → Succeeded, claimed by the ServiceAccount, with a plan summary in its log', async () => {
    const run = await startRun(mode, 'network-staging', 'widen the subnet');
    expect(run.phase).toBe('Pending');
    await expect.poll(async () => (await runOf(mode, run.id)).phase, WAIT).toBe('Succeeded');
    expect((await runOf(mode, run.id)).controller).toBe(
      'system:serviceaccount:platform-system:platform-dev-controller',
    );
    const log = await logOf(mode, run.id);
    expect(log).toContain(PLAN_SUMMARY);
    expect(log).toContain('\u001b[32m'); // the colours a terminal shows
    expect(log).toContain('aws_subnet.private[0]');
  }, 120_000);

  it("Issue 48, item 2: after a plan it uploads the plan's JSON, which a reader of the run's log reads", async () => {
    const run = await startRun(mode, 'network-staging', 'show the plan as JSON');
    await expect.poll(async () => (await runOf(mode, run.id)).phase, WAIT).toBe('Succeeded');
    const answer = await call(mode, 'GET', `${API}/runs/${run.id}/plan-json`);
    expect(answer.status).toBe(200);
    const document = (await answer.json()) as { format_version: string; resource_changes: Array<{ address: string }> };
    expect(document).toEqual(simulatedPlanJson());
    expect(document.resource_changes.map((change) => change.address)).toEqual([
      'aws_subnet.private[0]',
      'aws_subnet.private[1]',
      'aws_vpc.main',
    ]);
  }, 120_000);

  it(`a run whose message carries "${FAIL_MARKER}" ends Failed`, async () => {
    const run = await startRun(mode, 'network-production', `try the error path ${FAIL_MARKER}`);
    await expect.poll(async () => (await runOf(mode, run.id)).phase, WAIT).toBe('Failed');
    expect(await logOf(mode, run.id)).toContain('Error:');
  }, 120_000);

  it('the demo Rollout advances to its approval stage, waits there, and finishes after an approve', async () => {
    await expect.poll(async () => (await rolloutStatus(mode)).phase, WAIT).toBe('AwaitingApproval');
    expect((await rolloutStatus(mode)).stages).toEqual([
      { workspace: 'network-staging', phase: 'Applied' },
      { workspace: 'network-production', phase: 'AwaitingApproval' },
    ]);
    const approve = await call(mode, 'POST', `${API}/rollouts/network-v2/approve`, { stage: 'network-production' });
    expect(approve.status).toBe(200);
    await expect.poll(async () => (await rolloutStatus(mode)).phase, WAIT).toBe('Succeeded');
    expect((await rolloutStatus(mode)).stages?.map((stage) => stage.phase)).toEqual(['Applied', 'Applied']);
  }, 200_000);
});

describe('Issue 44, item 3: LOCAL_CONTROLLER=false runs no development controller', () => {
  let mode: LocalMode;
  beforeAll(async () => {
    mode = await startLocalMode({ LOCAL_CONTROLLER: 'false' });
  }, 180_000);
  afterAll(() => stopLocalMode(mode));

  it('says so at start, and a run started stays Pending until someone claims it', async () => {
    // Logged once the gateway serves (the controller starts after it): waited for, not raced.
    await expect
      .poll(() => mode.gateway.output(), WAIT)
      .toContain('development controller off (LOCAL_CONTROLLER=false)');
    const run = await startRun(mode, 'network-staging', 'nobody claims this');
    // The admin may claim runs itself: it gets this one, first attempt, so nothing had claimed it.
    const claim = await call(mode, 'POST', '/internal/runs/claim', { project: 'demo', leaseSeconds: 30 });
    expect(claim.status).toBe(200);
    expect(await claim.json()).toMatchObject({ run: { id: run.id, attempts: 1 }, lease: { attempt: 1 } });
    expect((await rolloutStatus(mode)).phase).toBeUndefined();
  }, 120_000);
});

describe("Issue 44, item 3: the development controller's ServiceAccount has the chart's controller role", () => {
  it('its ClusterRole rules are those the chart renders for the controller', async () => {
    const chart = await helmTemplate({}, { namespace: 'platform-system' });
    const role = findObject(chart, 'ClusterRole', 'platform-controller') as unknown as V1ClusterRole;
    expect(controllerRoleRules('platform.dev')).toEqual(role.rules);
  }, 60_000);
});
