// Run history through HTTP: starting runs (the recorded principal), listing them newest first by
// keyset, reading one; the workspace controller's internal routes; the run-log stream; and the
// database going down.
import { describe, expect, it } from 'vitest';
import { createFunctionHandler } from '../../../functions/function-registry.ts';
import { readEvents } from '../../support/server-sent-events.ts';
import {
  API,
  CALLER_ACCOUNT_USER,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

// A short heartbeat interval, so that the idle-stream test sees heartbeats within it.
const HEARTBEAT_MS = 400;
const platform = usePlatform({ RUN_LOG_HEARTBEAT_INTERVAL: `${HEARTBEAT_MS}ms` });
type Who = 'admin' | 'oidcUser' | 'serviceAccount' | 'controller';
const as = (who: Who) => (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens[who], method, path, body);
const runsOf = (project: string, workspace: string) => `/api/v1alpha1/projects/${project}/workspaces/${workspace}/runs`;
const countRuns = async (workspace: string) =>
  (await platform().database.pool.query('SELECT count(*)::int AS n FROM runs WHERE workspace = $1', [workspace]))
    .rows[0].n as number;

async function createWorkspace(project: string, name: string, spec: Record<string, unknown> = {}): Promise<void> {
  const object = workspaceObject(name);
  await as('admin')('POST', `${API}/namespaces/${project}/workspaces`, {
    ...object,
    spec: { ...(object.spec as object), ...spec },
  }).then(expectStatus(201));
}

describe('A run records the principal that started it: admin for the admin account, the username claim for OIDC, system:serviceaccount:<ns>:<name> for ServiceAccounts', () => {
  it.each([
    ['admin', 'admin', 'admin'],
    ['oidcUser', OIDC_USERNAME, 'oidc'],
    ['serviceAccount', CALLER_ACCOUNT_USER, 'serviceaccount'],
  ] as const)('%s → principal %s', async (who, principal, principalType) => {
    const workspace = `principal-${who.toLowerCase()}`;
    await createWorkspace(TEAM_PROJECT, workspace);
    const run = await as(who)('POST', runsOf(TEAM_PROJECT, workspace), { type: 'plan', message: 'from a test' }).then(
      expectStatus(201),
    );
    expect(run).toMatchObject({
      project: TEAM_PROJECT,
      workspace,
      type: 'plan',
      phase: 'Pending',
      principal,
      principalType,
      message: 'from a test',
      startedAt: null,
      finishedAt: null,
    });
    expect(
      await as(who)('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${run.id}`).then(expectStatus(200)),
    ).toEqual(run);
  });
});

describe('Starting a run is authorized as create on workspaces/runs; a denied start writes nothing', () => {
  it('refuses an OIDC user in a Project it has no Role in (403) and records no run', async () => {
    await createWorkspace(OTHER_PROJECT, 'not-alices');
    const denied = await as('oidcUser')('POST', runsOf(OTHER_PROJECT, 'not-alices'), { type: 'apply' }).then(
      expectStatus(403),
    );
    expect(denied).toMatchObject({ reason: 'Forbidden', error: expect.stringContaining('create workspaces/runs') });
    expect(await countRuns('not-alices')).toBe(0);
    await as('oidcUser')('GET', `/api/v1alpha1/projects/${OTHER_PROJECT}/runs`).then(expectStatus(403));
  });

  it('404 for a Workspace that does not exist, 409 for a suspended one, 400 for a bad body; none records a run', async () => {
    expect(
      await as('admin')('POST', runsOf(TEAM_PROJECT, 'no-such-workspace'), { type: 'plan' }).then(expectStatus(404)),
    ).toMatchObject({ reason: 'WorkspaceNotFound' });
    await createWorkspace(TEAM_PROJECT, 'suspended', { suspend: true });
    expect(
      await as('admin')('POST', runsOf(TEAM_PROJECT, 'suspended'), { type: 'plan' }).then(expectStatus(409)),
    ).toMatchObject({ reason: 'WorkspaceSuspended' });
    for (const body of [
      '{',
      JSON.stringify({ type: 'destroy' }),
      JSON.stringify({ type: 'plan', extra: 1 }),
      JSON.stringify({ type: 'plan', message: 7 }),
    ]) {
      expect(await as('admin')('POST', runsOf(TEAM_PROJECT, 'suspended'), body).then(expectStatus(400))).toMatchObject({
        reason: 'InvalidRun',
      });
    }
    expect(await countRuns('no-such-workspace')).toBe(0);
    expect(await countRuns('suspended')).toBe(0);
  });
});

describe('Runs of a Workspace or Project are listed newest first with keyset pagination', () => {
  it("pages through a Workspace's runs with limit and continue, newest first, none repeated", async () => {
    await createWorkspace(TEAM_PROJECT, 'paged');
    const started: string[] = [];
    for (let i = 0; i < 5; i++)
      started.push(
        (
          await as('admin')('POST', runsOf(TEAM_PROJECT, 'paged'), { type: i % 2 ? 'apply' : 'plan' }).then(
            expectStatus(201),
          )
        ).id,
      );
    const seen: string[] = [];
    let next = `${runsOf(TEAM_PROJECT, 'paged')}?limit=2`;
    for (;;) {
      const page = await as('oidcUser')('GET', next).then(expectStatus(200));
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((run: { id: string }) => run.id));
      if (!page.continue) break;
      next = `${runsOf(TEAM_PROJECT, 'paged')}?limit=2&continue=${encodeURIComponent(page.continue)}`;
    }
    expect(seen).toEqual([...started].reverse());
  });

  it('lists a whole Project across its Workspaces', async () => {
    // Its own runs in two Workspaces, whatever other tests of the file have run before.
    const started: string[] = [];
    for (const workspace of ['listed-a', 'listed-b']) {
      await createWorkspace(TEAM_PROJECT, workspace);
      started.push(
        (await as('admin')('POST', runsOf(TEAM_PROJECT, workspace), { type: 'plan' }).then(expectStatus(201))).id,
      );
    }
    const page = await as('serviceAccount')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs?limit=500`).then(
      expectStatus(200),
    );
    const listed = page.items.map((run: { id: string }) => run.id);
    expect(listed).toEqual(expect.arrayContaining(started));
    expect(listed.indexOf(started[1])).toBeLessThan(listed.indexOf(started[0]));
    for (const run of page.items as Array<{ project: string }>) expect(run.project).toBe(TEAM_PROJECT);
    const times = page.items.map((run: { createdAt: string }) => run.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('400 for a bad limit or continue token, 404 for an unknown run', async () => {
    await createWorkspace(TEAM_PROJECT, 'bad-queries');
    expect(
      await as('admin')('GET', `${runsOf(TEAM_PROJECT, 'bad-queries')}?limit=0`).then(expectStatus(400)),
    ).toMatchObject({ reason: 'InvalidLimit' });
    expect(
      await as('admin')('GET', `${runsOf(TEAM_PROJECT, 'bad-queries')}?continue=garbage`).then(expectStatus(400)),
    ).toMatchObject({ reason: 'InvalidContinueToken' });
    expect(
      await as('admin')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/0190a0a0-0000-7000-8000-000000000000`).then(
        expectStatus(404),
      ),
    ).toMatchObject({ reason: 'RunNotFound' });
  });

  it('a run is not visible through another Project', async () => {
    await createWorkspace(TEAM_PROJECT, 'private');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'private'), { type: 'plan' }).then(expectStatus(201));
    await as('admin')('GET', `/api/v1alpha1/projects/${OTHER_PROJECT}/runs/${run.id}`).then(expectStatus(404));
  });
});

/** Claims the oldest Pending run of a Workspace as the controller; resolves to `{run, lease}`. */
async function claim(workspace: string): Promise<{ run: { id: string }; lease: { id: string; nextLogSeq: number } }> {
  return as('controller')('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace, leaseSeconds: 60 }).then(
    expectStatus(200),
  );
}

describe('Internal routes: the workspace controller, authorized as a non-resource SubjectAccessReview on /internal/*', () => {
  it('claims Pending runs oldest first with a lease, appends numbered log chunks and ends the run', async () => {
    await createWorkspace(TEAM_PROJECT, 'controlled');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'controlled'), {
      type: 'apply',
      message: 'first apply',
    }).then(expectStatus(201));
    const controller = as('controller');
    const pending = await controller('GET', '/internal/runs?phase=Pending&limit=500').then(expectStatus(200));
    const ids = pending.items.map((item: { id: string }) => item.id);
    expect(ids).toContain(run.id);
    expect(ids).toEqual([...ids].sort());
    const { run: running, lease } = await claim('controlled');
    expect(running).toMatchObject({
      id: run.id,
      phase: 'Running',
      startedAt: expect.any(String),
      attempts: 1,
      controller: 'system:serviceaccount:platform-system:workspace-controller',
    });
    const append = (firstSeq: number, lines: string[]) =>
      controller('POST', `/internal/runs/${run.id}/logs`, { leaseId: lease.id, firstSeq, lines });
    expect(await append(1, ['one', 'two']).then(expectStatus(200))).toEqual({
      firstSeq: 1,
      lastSeq: 2,
      nextSeq: 3,
      duplicate: false,
      storedBefore: 0,
    });
    expect(await append(3, ['three']).then(expectStatus(200))).toEqual({
      firstSeq: 3,
      lastSeq: 3,
      nextSeq: 4,
      duplicate: false,
      storedBefore: 0,
    });
    const done = await controller('POST', `/internal/runs/${run.id}/phase`, {
      leaseId: lease.id,
      phase: 'Succeeded',
      message: 'applied',
    }).then(expectStatus(200));
    expect(done).toMatchObject({
      phase: 'Succeeded',
      message: 'first apply',
      statusMessage: 'applied',
      finishedAt: expect.any(String),
    });
    expect(
      await controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: lease.id, phase: 'Failed' }).then(
        expectStatus(409),
      ),
    ).toMatchObject({ reason: 'LeaseNotHeld' });
    expect(
      (
        await platform().database.pool.query('SELECT line FROM run_log_lines WHERE run_id = $1 ORDER BY seq', [run.id])
      ).rows.map((row) => row.line),
    ).toEqual(['one', 'two', 'three']);
  });

  it('answers malformed calls with 400 and unknown runs with 404', async () => {
    const controller = as('controller');
    const unknownRun = '0190a0a0-0000-7000-8000-000000000000';
    const leaseId = '0190a0a0-0000-7000-8000-000000000001';
    expect(await controller('GET', '/internal/runs?phase=Succeeded').then(expectStatus(400))).toMatchObject({
      reason: 'InvalidPhase',
    });
    expect(
      await controller('POST', `/internal/runs/${unknownRun}/phase`, { leaseId, phase: 'Succeeded' }).then(
        expectStatus(404),
      ),
    ).toMatchObject({ reason: 'RunNotFound' });
    expect(
      await controller('POST', `/internal/runs/${unknownRun}/phase`, { leaseId, phase: 'Running' }).then(
        expectStatus(400),
      ),
    ).toMatchObject({ reason: 'InvalidPhase' });
    expect(
      await controller('POST', `/internal/runs/${unknownRun}/logs`, { leaseId, firstSeq: 1, lines: [1] }).then(
        expectStatus(400),
      ),
    ).toMatchObject({ reason: 'InvalidLogLines' });
    expect(
      await controller('POST', `/internal/runs/${unknownRun}/logs`, { leaseId, firstSeq: 0, lines: ['a'] }).then(
        expectStatus(400),
      ),
    ).toMatchObject({ reason: 'InvalidLogLines' });
    expect(
      await controller('POST', `/internal/runs/${unknownRun}/lease`, { leaseSeconds: 5 }).then(expectStatus(400)),
    ).toMatchObject({ reason: 'InvalidLease' });
    expect(await controller('POST', '/internal/runs/claim', { leaseSeconds: 0 }).then(expectStatus(400))).toMatchObject(
      { reason: 'InvalidLease' },
    );
    expect(await controller('POST', '/internal/runs/claim', { workspace: 'w' }).then(expectStatus(400))).toMatchObject({
      reason: 'InvalidClaim',
    });
    expect((await controller('POST', '/internal/runs/claim', { project: 'no-runs-here' })).status).toBe(204);
  });

  it('refuses a ServiceAccount without the non-resource rule (403), and writes nothing', async () => {
    await createWorkspace(TEAM_PROJECT, 'uncontrolled');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'uncontrolled'), { type: 'plan' }).then(
      expectStatus(201),
    );
    await as('serviceAccount')('POST', `/internal/runs/${run.id}/phase`, { phase: 'Running' }).then(expectStatus(403));
    await as('serviceAccount')('GET', '/internal/runs').then(expectStatus(403));
    expect(
      await as('admin')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${run.id}`).then(expectStatus(200)),
    ).toMatchObject({ phase: 'Pending' });
  });
});

describe("Run-log stream: server-sent events of a run's log lines (the only route that takes ?access_token=)", () => {
  const streamPath = (runId: string) => `/api/v1alpha1/run-logs/${TEAM_PROJECT}/${runId}`;

  it('sends stored and new lines with id = line number, then event: end once the run is final', async () => {
    await createWorkspace(TEAM_PROJECT, 'streamed');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'streamed'), {
      type: 'apply',
      message: 'apply it',
    }).then(expectStatus(201));
    const controller = as('controller');
    const { lease } = await claim('streamed');
    await controller('POST', `/internal/runs/${run.id}/logs`, {
      leaseId: lease.id,
      firstSeq: 1,
      lines: ['stored 1', 'stored 2'],
    }).then(expectStatus(200));
    const response = await fetch(
      `${platform().gateway.url}${streamPath(run.id)}?access_token=${platform().tokens.admin}`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const appendLater = (async () => {
      await controller('POST', `/internal/runs/${run.id}/logs`, {
        leaseId: lease.id,
        firstSeq: 3,
        lines: ['live 3', 'multi\nline 4'],
      }).then(expectStatus(200));
      await controller('POST', `/internal/runs/${run.id}/phase`, {
        leaseId: lease.id,
        phase: 'Failed',
        message: 'exit 1',
      }).then(expectStatus(200));
    })();
    const events = await readEvents(response, (seen) => seen.some((event) => event.event === 'end'));
    await appendLater;
    expect(events).toEqual([
      { id: '1', data: 'stored 1' },
      { id: '2', data: 'stored 2' },
      { id: '3', data: 'live 3' },
      { id: '4', data: 'multi\nline 4' },
      { event: 'end', data: JSON.stringify({ phase: 'Failed', message: 'apply it', statusMessage: 'exit 1' }) },
    ]);
  });

  it('resumes after Last-Event-ID, and ends at once for a finished run', async () => {
    await createWorkspace(TEAM_PROJECT, 'resumed');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'resumed'), { type: 'plan' }).then(expectStatus(201));
    const controller = as('controller');
    const { lease } = await claim('resumed');
    await controller('POST', `/internal/runs/${run.id}/logs`, {
      leaseId: lease.id,
      firstSeq: 1,
      lines: ['a', 'b', 'c'],
    }).then(expectStatus(200));
    await controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: lease.id, phase: 'Succeeded' }).then(
      expectStatus(200),
    );
    const response = await fetch(`${platform().gateway.url}${streamPath(run.id)}`, {
      headers: { authorization: `Bearer ${platform().tokens.oidcUser}`, 'last-event-id': '2' },
    });
    expect(response.status).toBe(200);
    const events = await readEvents(response, () => false);
    expect(events).toEqual([
      { id: '3', data: 'c' },
      { event: 'end', data: JSON.stringify({ phase: 'Succeeded', message: '', statusMessage: '' }) },
    ]);
  });

  it('keeps an idle stream open with a `:` heartbeat comment every RUN_LOG_HEARTBEAT_INTERVAL', async () => {
    await createWorkspace(TEAM_PROJECT, 'idle');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'idle'), { type: 'plan' }).then(expectStatus(201));
    const response = await fetch(
      `${platform().gateway.url}${streamPath(run.id)}?access_token=${platform().tokens.admin}`,
    );
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const opened = Date.now();
    const heartbeatTimes: number[] = [];
    let text = '';
    try {
      while (heartbeatTimes.length < 2) {
        const { value, done } = await reader.read();
        expect(done, 'the idle stream ended').toBe(false);
        text += value;
        const heartbeats = text.split('\n').filter((line) => line.startsWith(':')).length;
        while (heartbeatTimes.length < heartbeats) heartbeatTimes.push(Date.now() - opened);
      }
    } finally {
      await reader.cancel();
    }
    // Nothing but the reconnect delay and comments: no event, no end, while the run is idle.
    expect(text.split('\n').filter((line) => line !== '' && !line.startsWith(':'))).toEqual(['retry: 3000']);
    // Heartbeats are paced by the interval: never before it (a timer can run late on a loaded
    // machine, never early), and the wait for them is bounded generously, not tightly.
    expect(heartbeatTimes[1]! - heartbeatTimes[0]!).toBeGreaterThanOrEqual(HEARTBEAT_MS - 50);
    expect(heartbeatTimes[1]).toBeLessThan(HEARTBEAT_MS * 25);
  });

  it('is authorized as get on workspaces/log: a ServiceAccount without it gets 403; an unknown run is 404', async () => {
    await createWorkspace(TEAM_PROJECT, 'guarded');
    const run = await as('admin')('POST', runsOf(TEAM_PROJECT, 'guarded'), { type: 'plan' }).then(expectStatus(201));
    expect(
      (await fetch(`${platform().gateway.url}${streamPath(run.id)}?access_token=${platform().tokens.serviceAccount}`))
        .status,
    ).toBe(403);
    expect((await fetch(`${platform().gateway.url}${streamPath(run.id)}?access_token=not-a-token`)).status).toBe(401);
    const missing = await fetch(
      `${platform().gateway.url}${streamPath('0190a0a0-0000-7000-8000-000000000000')}?access_token=${platform().tokens.admin}`,
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ reason: 'RunNotFound' });
  });
});

// Each container answers its own /readyz (the gateway sends the public one to public-config).
const DATABASE_FUNCTIONS = ['resources', 'internal', 'run-logs'] as const;
const readiness = (name: (typeof DATABASE_FUNCTIONS)[number]) =>
  createFunctionHandler(
    name,
    platform().gateway.context,
  )({
    method: 'GET',
    path: '/readyz',
    query: new URLSearchParams(),
    headers: {},
    body: new Uint8Array(),
    remoteAddress: '127.0.0.1',
  });

describe('A run started while the database is down gets 503 with Retry-After, and nothing is half-written; /readyz of the functions using it says so; history survives the restart', () => {
  it('answers 503 DatabaseUnavailable while stopped, records nothing, and serves the old history once back', async () => {
    await createWorkspace(TEAM_PROJECT, 'outage');
    const before = await as('admin')('POST', runsOf(TEAM_PROJECT, 'outage'), { type: 'plan' }).then(expectStatus(201));
    await platform().database.stopServer();
    try {
      const response = await as('admin')('POST', runsOf(TEAM_PROJECT, 'outage'), { type: 'apply' });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toMatchObject({ reason: 'DatabaseUnavailable', error: expect.any(String) });
      expect((await as('oidcUser')('GET', runsOf(TEAM_PROJECT, 'outage'))).status).toBe(503);
      for (const name of DATABASE_FUNCTIONS) expect((await readiness(name)).status, name).toBe(503);
    } finally {
      await platform().database.startServer();
    }
    const after = await as('admin')('GET', runsOf(TEAM_PROJECT, 'outage')).then(expectStatus(200));
    expect(after.items).toEqual([before]);
    for (const name of DATABASE_FUNCTIONS) expect((await readiness(name)).status, name).toBe(200);
  });
});
