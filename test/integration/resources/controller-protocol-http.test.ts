// Issue 12 through HTTP: who may drive runs on /internal/* (only ServiceAccounts granted the
// internal non-resource URLs, and the admin), user cancellation, and a run's resolved variables.
import { describe, expect, it } from 'vitest';
import { capturingLogger } from '../../support/function-servers.ts';
import {
  ControllerClient,
  ReferenceController,
  type ControllerEvent,
  type ExecuteRun,
} from '../../../infra/development/controller/reference-controller.ts';
import {
  API,
  CALLER_ACCOUNT_USER,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const logger = capturingLogger();
const platform = usePlatform({ LOG_LEVEL: 'debug' }, { logger });
type Who = 'admin' | 'oidcUser' | 'serviceAccount' | 'controller';
const as = (who: Who) => callAs(platform, who);
const runsOf = (project: string, workspace: string) => `/api/v1alpha1/projects/${project}/workspaces/${workspace}/runs`;
const runPath = (project: string, runId: string) => `/api/v1alpha1/projects/${project}/runs/${runId}`;
const CONTROLLER_USER = 'system:serviceaccount:platform-system:workspace-controller';

async function createWorkspace(project: string, name: string, spec: Record<string, unknown> = {}): Promise<void> {
  const object = workspaceObject(name);
  await send(platform().gateway.url, platform().tokens.admin, 'POST', `${API}/namespaces/${project}/workspaces`, {
    ...object,
    spec: { ...(object.spec as object), ...spec },
  }).then(expectStatus(201));
}

async function startRun(project: string, workspace: string, message = 'from a test'): Promise<{ id: string }> {
  return as('admin')('POST', runsOf(project, workspace), { type: 'plan', message }).then(expectStatus(201));
}

/** What a run looks like in the database, lease and log included, to show that a refused call changed nothing. */
async function storedState(runId: string): Promise<unknown> {
  const { rows } = await platform().database.pool.query(
    'SELECT phase, lease_id, lease_expires_at, attempts, controller, status_message, last_log_seq, cancel_requested_at, (SELECT count(*) FROM run_log_lines WHERE run_id = $1) AS lines FROM runs WHERE id = $1',
    [runId],
  );
  return rows[0];
}

const claimIn = (who: Who, workspace: string, project = TEAM_PROJECT) =>
  as(who)('POST', '/internal/runs/claim', { project, workspace, leaseSeconds: 60 });

describe('Only ServiceAccounts granted the internal non-resource URLs, and the admin, may claim, renew, append or read variables; anyone else gets 403 and nothing changes', () => {
  it('refuses an OIDC user and a ServiceAccount without the rule on every controller call, leaving the run as it was', async () => {
    await createWorkspace(TEAM_PROJECT, 'guarded');
    const waiting = await startRun(TEAM_PROJECT, 'guarded');
    for (const who of ['oidcUser', 'serviceAccount'] as const) {
      expect(await claimIn(who, 'guarded').then(expectStatus(403))).toMatchObject({ reason: 'Forbidden' });
    }
    expect(await storedState(waiting.id)).toMatchObject({
      phase: 'Pending',
      lease_id: null,
      attempts: 0,
      controller: null,
    });

    const { lease } = await claimIn('controller', 'guarded').then(expectStatus(200));
    const before = await storedState(waiting.id);
    for (const who of ['oidcUser', 'serviceAccount'] as const) {
      await as(who)('POST', `/internal/runs/${waiting.id}/lease`, { leaseId: lease.id, leaseSeconds: 600 }).then(
        expectStatus(403),
      );
      await as(who)('POST', `/internal/runs/${waiting.id}/logs`, {
        leaseId: lease.id,
        firstSeq: 1,
        lines: ['forged'],
      }).then(expectStatus(403));
      await as(who)('POST', `/internal/runs/${waiting.id}/phase`, {
        leaseId: lease.id,
        phase: 'Succeeded',
        message: 'forged',
      }).then(expectStatus(403));
      await as(who)('GET', `/internal/runs/${waiting.id}/variables`, undefined, { 'run-lease': lease.id }).then(
        expectStatus(403),
      );
    }
    expect(await storedState(waiting.id)).toEqual(before);
  });

  it("lets the granted ServiceAccount and the admin (the spec's bypass) drive runs, each recorded as the controller", async () => {
    await createWorkspace(TEAM_PROJECT, 'driven');
    const byController = await startRun(TEAM_PROJECT, 'driven');
    const byAdmin = await startRun(TEAM_PROJECT, 'driven');
    const first = await claimIn('controller', 'driven').then(expectStatus(200));
    const second = await claimIn('admin', 'driven').then(expectStatus(200));
    expect([first.run.id, second.run.id]).toEqual([byController.id, byAdmin.id]);
    expect(first.run.controller).toBe(CONTROLLER_USER);
    expect(second.run.controller).toBe('admin');
    const renewed = await as('admin')('POST', `/internal/runs/${byAdmin.id}/lease`, { leaseId: second.lease.id }).then(
      expectStatus(200),
    );
    expect(renewed.lease).toMatchObject({ id: second.lease.id, cancelRequested: false });
    await as('admin')('POST', `/internal/runs/${byAdmin.id}/logs`, {
      leaseId: second.lease.id,
      firstSeq: 1,
      lines: ['by admin'],
    }).then(expectStatus(200));
    await as('admin')('GET', `/internal/runs/${byAdmin.id}/variables`, undefined, {
      'run-lease': second.lease.id,
    }).then(expectStatus(200));
    expect(
      await as('admin')('POST', `/internal/runs/${byAdmin.id}/phase`, {
        leaseId: second.lease.id,
        phase: 'Succeeded',
      }).then(expectStatus(200)),
    ).toMatchObject({ phase: 'Succeeded' });
  });

  it("refuses another controller's lease with 409 LeaseNotHeld", async () => {
    await createWorkspace(TEAM_PROJECT, 'contested');
    const run = await startRun(TEAM_PROJECT, 'contested');
    await claimIn('controller', 'contested').then(expectStatus(200));
    const before = await storedState(run.id);
    const stranger = '0190a0a0-0000-7000-8000-000000000009';
    expect(
      await as('admin')('POST', `/internal/runs/${run.id}/logs`, { leaseId: stranger, firstSeq: 1, lines: ['x'] }).then(
        expectStatus(409),
      ),
    ).toMatchObject({ reason: 'LeaseNotHeld' });
    expect(
      await as('admin')('POST', `/internal/runs/${run.id}/lease`, { leaseId: stranger }).then(expectStatus(409)),
    ).toMatchObject({ reason: 'LeaseNotHeld' });
    expect(
      await as('admin')('GET', `/internal/runs/${run.id}/variables`, undefined, { 'run-lease': stranger }).then(
        expectStatus(409),
      ),
    ).toMatchObject({ reason: 'LeaseNotHeld' });
    expect(await as('admin')('GET', `/internal/runs/${run.id}/variables`).then(expectStatus(400))).toMatchObject({
      reason: 'InvalidLease',
    });
    expect(await storedState(run.id)).toEqual(before);
  });
});

describe('Issue 20: a lease is bound to the principal that claimed it: another controller, or the admin, presenting its id gets 409 LeaseNotHeld on every lease-bearing route and learns nothing', () => {
  it('refuses renew, logs, phase and variables with the lease id from another ServiceAccount and from the admin, answering as for an id never issued, changing nothing', async () => {
    await createWorkspace(TEAM_PROJECT, 'bound-lease');
    const run = await startRun(TEAM_PROJECT, 'bound-lease');
    const claimed = await claimIn('controller', 'bound-lease').then(expectStatus(200));
    const leaseId: string = claimed.lease.id;
    // A second controller, granted the same internal paths as the first.
    await platform().cluster.createServiceAccount('second-controller');
    await platform().cluster.allowPaths('second-controller', ['/internal', '/internal/*'], ['get', 'post']);
    const secondController = await platform().cluster.mintToken('second-controller');
    const callWithToken =
      (token: string) =>
      (method: string, path: string, body?: unknown, headers = {}) =>
        fetch(`${platform().gateway.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
    const leaseBearingCalls = (call: ReturnType<typeof callWithToken>, id: string) => [
      call('POST', `/internal/runs/${run.id}/lease`, { leaseId: id }),
      call('POST', `/internal/runs/${run.id}/logs`, { leaseId: id, firstSeq: 1, lines: ['forged'] }),
      call('POST', `/internal/runs/${run.id}/phase`, { leaseId: id, phase: 'Failed', message: 'forged' }),
      call('GET', `/internal/runs/${run.id}/variables`, undefined, { 'run-lease': id }),
    ];
    const answers = async (calls: Promise<Response>[]) =>
      Promise.all(calls.map(async (call) => ({ status: (await call).status, body: await (await call).json() })));
    const before = await storedState(run.id);
    const neverIssued = await answers(
      leaseBearingCalls(callWithToken(secondController), '0190a0a0-0000-7000-8000-00000000000a'),
    );
    for (const token of [secondController, platform().tokens.admin]) {
      const refused = await answers(leaseBearingCalls(callWithToken(token), leaseId));
      for (const answer of refused) expect(answer).toMatchObject({ status: 409, body: { reason: 'LeaseNotHeld' } });
      // Word for word what an id never issued gets: no variables, no hint that the lease exists.
      expect(refused).toEqual(neverIssued);
      expect(JSON.stringify(refused)).not.toContain('"variables"');
    }
    expect(await storedState(run.id)).toEqual(before);
    // The holder still holds it.
    await as('controller')('POST', `/internal/runs/${run.id}/lease`, { leaseId }).then(expectStatus(200));
    await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, { 'run-lease': leaseId }).then(
      expectStatus(200),
    );
  });
});

describe('Issue 20: pipelined log chunks through HTTP are stored once each, in order, with no 409', () => {
  it('two controllers pipelining 100 chunks each (every request sent before any answer): all 200, every line once, in order', async () => {
    const CHUNKS = 100;
    await platform().cluster.createServiceAccount('pipelining-controller');
    await platform().cluster.allowPaths('pipelining-controller', ['/internal', '/internal/*'], ['get', 'post']);
    const tokens = [platform().tokens.controller, await platform().cluster.mintToken('pipelining-controller')];
    const pipeline = async (token: string, index: number) => {
      const workspace = `pipelined-${index}`;
      await createWorkspace(TEAM_PROJECT, workspace);
      const run = await startRun(TEAM_PROJECT, workspace);
      const post = (path: string, body: unknown) =>
        fetch(`${platform().gateway.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const claimed = await post('/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(expectStatus(200));
      expect(claimed.run.id).toBe(run.id);
      const lines = (chunk: number) => [`${workspace} chunk ${chunk} a`, `${workspace} chunk ${chunk} b`];
      const answers = await Promise.all(
        Array.from({ length: CHUNKS }, (_, chunk) =>
          post(`/internal/runs/${run.id}/logs`, {
            leaseId: claimed.lease.id,
            firstSeq: 1 + 2 * chunk,
            lines: lines(chunk),
          }),
        ),
      );
      const bodies = await Promise.all(
        answers.map(async (answer) => ({ status: answer.status, body: await answer.json() })),
      );
      expect(bodies.filter(({ status }) => status !== 200)).toEqual([]);
      const { rows } = await platform().database.pool.query(
        'SELECT seq::int, line FROM run_log_lines WHERE run_id = $1 ORDER BY seq',
        [run.id],
      );
      expect(rows).toEqual(
        Array.from({ length: CHUNKS }, (_, chunk) => lines(chunk))
          .flat()
          .map((line, position) => ({ seq: position + 1, line })),
      );
    };
    await Promise.all(tokens.map(pipeline));
  }, 60_000);
});

describe('The user who may start runs in a Workspace may cancel them: a pending run at once, a running one marked, seen at the next renewal and acknowledged', () => {
  it('cancels a Pending run at once and records who did', async () => {
    await createWorkspace(TEAM_PROJECT, 'cancel-me');
    const run = await startRun(TEAM_PROJECT, 'cancel-me');
    const cancelled = await as('serviceAccount')('POST', `${runPath(TEAM_PROJECT, run.id)}/cancel`).then(
      expectStatus(200),
    );
    expect(cancelled).toMatchObject({
      phase: 'Cancelled',
      cancelRequestedBy: CALLER_ACCOUNT_USER,
      finishedAt: expect.any(String),
      message: 'from a test',
    });
    expect((await claimIn('controller', 'cancel-me')).status).toBe(204);
  });

  it('marks a Running run; the controller sees it when it renews and acknowledges with Cancelled', async () => {
    await createWorkspace(TEAM_PROJECT, 'cancel-running');
    const run = await startRun(TEAM_PROJECT, 'cancel-running');
    const { lease } = await claimIn('controller', 'cancel-running').then(expectStatus(200));
    const marked = await as('oidcUser')('POST', `${runPath(TEAM_PROJECT, run.id)}/cancel`).then(expectStatus(200));
    expect(marked).toMatchObject({
      phase: 'Running',
      cancelRequestedBy: OIDC_USERNAME,
      cancelRequestedAt: expect.any(String),
    });
    const renewed = await as('controller')('POST', `/internal/runs/${run.id}/lease`, { leaseId: lease.id }).then(
      expectStatus(200),
    );
    expect(renewed.lease.cancelRequested).toBe(true);
    const done = await as('controller')('POST', `/internal/runs/${run.id}/phase`, {
      leaseId: lease.id,
      phase: 'Cancelled',
      message: 'stopped before apply',
    }).then(expectStatus(200));
    expect(done).toMatchObject({ phase: 'Cancelled', statusMessage: 'stopped before apply', message: 'from a test' });
    // The user's answer is the controller's run, with what the run routes add (planApproval: issue 44, item 15).
    expect(await as('oidcUser')('GET', runPath(TEAM_PROJECT, run.id)).then(expectStatus(200))).toEqual({
      ...done,
      planApproval: null,
    });
  });

  it('refuses a caller who may not start runs there (403) and changes nothing; a finished run is 409; an unknown one 404', async () => {
    await createWorkspace(OTHER_PROJECT, 'not-theirs');
    const run = await startRun(OTHER_PROJECT, 'not-theirs');
    expect(
      await as('oidcUser')('POST', `${runPath(OTHER_PROJECT, run.id)}/cancel`).then(expectStatus(403)),
    ).toMatchObject({ reason: 'Forbidden', error: expect.stringContaining('create workspaces/runs') });
    expect(await as('admin')('GET', runPath(OTHER_PROJECT, run.id)).then(expectStatus(200))).toMatchObject({
      phase: 'Pending',
      cancelRequestedAt: null,
    });

    const { lease } = await claimIn('controller', 'not-theirs', OTHER_PROJECT).then(expectStatus(200));
    await as('controller')('POST', `/internal/runs/${run.id}/phase`, { leaseId: lease.id, phase: 'Succeeded' }).then(
      expectStatus(200),
    );
    expect(await as('admin')('POST', `${runPath(OTHER_PROJECT, run.id)}/cancel`).then(expectStatus(409))).toMatchObject(
      { reason: 'InvalidPhaseTransition' },
    );
    expect(
      await as('admin')('POST', `${runPath(OTHER_PROJECT, '0190a0a0-0000-7000-8000-000000000000')}/cancel`).then(
        expectStatus(404),
      ),
    ).toMatchObject({ reason: 'RunNotFound' });
  });
});

describe("A run's variables, on the internal API only: merged from the Workspace's VariableSets in order, sensitive values read from their Secrets, never logged", () => {
  const SECRET_VALUE = 'hunter2-never-in-a-log';

  it('resolves later VariableSets over earlier ones, reads sensitive values from their Secret, and logs none of them', async () => {
    const variableSet = (name: string, variables: unknown[]) => ({
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'VariableSet',
      metadata: { name },
      spec: { variables },
    });
    const post = (body: unknown) =>
      send(
        platform().gateway.url,
        platform().tokens.admin,
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
        body,
      ).then(expectStatus(201));
    await post(
      variableSet('base', [
        { name: 'region', value: 'eu-west-1' },
        { name: 'db_password', sensitive: true, value: SECRET_VALUE },
        { name: 'TF_LOG', category: 'env', value: 'WARN' },
      ]),
    );
    await post(
      variableSet('production', [
        { name: 'region', value: 'eu-central-1' },
        { name: 'TF_LOG', category: 'env', value: 'DEBUG' },
        { name: 'replicas', hcl: true, value: '3' },
      ]),
    );
    await createWorkspace(TEAM_PROJECT, 'with-variables', {
      variableSetRefs: [{ name: 'base' }, { name: 'production' }],
    });
    const run = await startRun(TEAM_PROJECT, 'with-variables');
    const { lease } = await claimIn('controller', 'with-variables').then(expectStatus(200));
    const answer = await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, {
      'run-lease': lease.id,
    }).then(expectStatus(200));
    expect(answer.variables).toEqual([
      { name: 'TF_LOG', category: 'env', hcl: false, sensitive: false, value: 'DEBUG', variableSet: 'production' },
      {
        name: 'db_password',
        category: 'terraform',
        hcl: false,
        sensitive: true,
        value: SECRET_VALUE,
        variableSet: 'base',
      },
      {
        name: 'region',
        category: 'terraform',
        hcl: false,
        sensitive: false,
        value: 'eu-central-1',
        variableSet: 'production',
      },
      { name: 'replicas', category: 'terraform', hcl: true, sensitive: false, value: '3', variableSet: 'production' },
    ]);
    const publicView = await send(
      platform().gateway.url,
      platform().tokens.oidcUser,
      'GET',
      `${API}/namespaces/${TEAM_PROJECT}/variablesets/base`,
    ).then(expectStatus(200));
    expect(JSON.stringify(publicView)).not.toContain(SECRET_VALUE);
    expect(
      JSON.stringify(await as('oidcUser')('GET', runPath(TEAM_PROJECT, run.id)).then(expectStatus(200))),
    ).not.toContain(SECRET_VALUE);
    expect(logger.lines.some((line) => line.includes(`/internal/runs/${run.id}/variables`))).toBe(true);
    expect(logger.lines.join('\n')).not.toContain(SECRET_VALUE);
  });

  it('says which VariableSet is missing (409 VariableSetNotFound)', async () => {
    await createWorkspace(TEAM_PROJECT, 'dangling', { variableSetRefs: [{ name: 'never-created' }] });
    const run = await startRun(TEAM_PROJECT, 'dangling');
    const { lease } = await claimIn('controller', 'dangling').then(expectStatus(200));
    const refused = await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, {
      'run-lease': lease.id,
    }).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'VariableSetNotFound', error: expect.stringContaining('never-created') });
  });

  it("never reads a Secret other than the VariableSet's own: a reference elsewhere is 409 VariableSecretNotAllowed and reveals nothing", async () => {
    const elsewhere = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cloud-credentials', namespace: TEAM_PROJECT },
      stringData: { key: 'not-for-variable-set-writers' },
    };
    await platform().clusterAdmin.send({
      method: 'POST',
      path: `/api/v1/namespaces/${TEAM_PROJECT}/secrets`,
      body: elsewhere,
    });
    const reference = { name: 'stolen', valueFrom: { secretKeyRef: { name: 'cloud-credentials', key: 'key' } } };
    const body = {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'VariableSet',
      metadata: { name: 'borrowing' },
      spec: { variables: [reference] },
    };
    await send(
      platform().gateway.url,
      platform().tokens.oidcUser,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
      body,
    ).then(expectStatus(201));
    await createWorkspace(TEAM_PROJECT, 'borrower', { variableSetRefs: [{ name: 'borrowing' }] });
    const run = await startRun(TEAM_PROJECT, 'borrower');
    const { lease } = await claimIn('controller', 'borrower').then(expectStatus(200));
    const refused = await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, {
      'run-lease': lease.id,
    }).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'VariableSecretNotAllowed' });
    expect(JSON.stringify(refused)).not.toContain('not-for-variable-set-writers');
  });

  it('a VariableSet reference that is not a valid name is never sent to the cluster (409 VariableSetNotFound)', async () => {
    await createWorkspace(TEAM_PROJECT, 'odd-refs', { variableSetRefs: [{ name: '..' }] });
    const run = await startRun(TEAM_PROJECT, 'odd-refs');
    const { lease } = await claimIn('controller', 'odd-refs').then(expectStatus(200));
    const refused = await as('controller')('GET', `/internal/runs/${run.id}/variables`, undefined, {
      'run-lease': lease.id,
    }).then(expectStatus(409));
    expect(refused).toMatchObject({ reason: 'VariableSetNotFound' });
  });
});

describe('The reference controller speaks the protocol: it acknowledges a cancellation it sees at its next renewal, and fails a run it cannot prepare instead of letting its lease lapse', () => {
  const runController = (workspace: string, execute: ExecuteRun) => {
    const events: ControllerEvent[] = [];
    const controller = new ReferenceController({
      client: new ControllerClient(platform().gateway.url, platform().tokens.controller),
      leaseSeconds: 1,
      concurrency: 1,
      idleDelayMs: 50,
      filter: { project: TEAM_PROJECT, workspace },
      execute,
      onEvent: (event) => events.push(event),
    });
    controller.start();
    return { controller, events };
  };

  it('stops a running run a user cancelled and finishes it as Cancelled', async () => {
    await createWorkspace(TEAM_PROJECT, 'reference-cancel');
    const run = await startRun(TEAM_PROJECT, 'reference-cancel');
    let working: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (working = resolve));
    const { controller, events } = runController('reference-cancel', async (_run, work) => {
      await work.log(['working']);
      working();
      while (!work.shouldStop()) await new Promise((resolve) => setTimeout(resolve, 50));
      return { phase: 'Succeeded', message: 'not reached' };
    });
    try {
      await started;
      await as('oidcUser')('POST', `${runPath(TEAM_PROJECT, run.id)}/cancel`).then(expectStatus(200));
      await expect.poll(() => events.some((event) => event.event === 'finished'), { timeout: 15_000 }).toBe(true);
    } finally {
      await controller.stop();
    }
    expect(await as('oidcUser')('GET', runPath(TEAM_PROJECT, run.id)).then(expectStatus(200))).toMatchObject({
      phase: 'Cancelled',
      statusMessage: 'stopped: a user cancelled the run',
      message: 'from a test',
    });
    expect(events).toContainEqual({ event: 'finished', runId: run.id, phase: 'Cancelled' });
  });

  it('fails a run whose variables cannot be resolved, saying why', async () => {
    await createWorkspace(TEAM_PROJECT, 'reference-broken', { variableSetRefs: [{ name: 'missing-set' }] });
    const run = await startRun(TEAM_PROJECT, 'reference-broken');
    const { controller, events } = runController('reference-broken', async () => ({
      phase: 'Succeeded',
      message: 'not reached',
    }));
    try {
      await expect.poll(() => events.some((event) => event.event === 'finished'), { timeout: 15_000 }).toBe(true);
    } finally {
      await controller.stop();
    }
    expect(await as('admin')('GET', runPath(TEAM_PROJECT, run.id)).then(expectStatus(200))).toMatchObject({
      phase: 'Failed',
      statusMessage: expect.stringContaining('VariableSetNotFound'),
      attempts: 1,
    });
  });
});
