// Issue 38, item 5: kube-apiserver takes `timeout` on every request as its deadline, and client-go sends it
// on every request (`kubectl --request-timeout=20s` is `?timeout=20s`). Here the cluster (the emulator) and
// the database stop answering behind a stalling proxy: a request whose deadline passes while it waits on
// them is answered 504 `Timeout` in time, as kube-apiserver words it, and what it waited on is abandoned
// (the server closes its call to the cluster, cancels its statement). The real kubectl: test/kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { loginToken, startTestGateway } from '../../support/function-servers.ts';
import { startStallingProxy, type StallingProxy } from '../../support/stalling-proxy.ts';
import { API, expectStatus, GROUP, projectObject, send, workspaceObject } from '../../support/platform-fixture.ts';

const PROJECT = 'deadlines';
const WORKSPACE = 'stalled';
const DEADLINE_MS = 1000;
// The answer must come at the deadline, not at the cluster client's own 10 s bound: generous for a shared machine.
const IN_TIME_MS = 4000;

let emulator: KubeEmulator;
let database: TestDatabase;
let cluster: StallingProxy;
let postgres: StallingProxy;
let gateway: RunningServer;
let token = '';

beforeAll(async () => {
  [emulator, database] = await Promise.all([startKubeEmulator(), startTestDatabase()]);
  await installPlatformCrds(emulator.kubeConfig(), GROUP);
  const emulatorUrl = new URL(emulator.url);
  cluster = await startStallingProxy({ host: emulatorUrl.hostname, port: Number(emulatorUrl.port) });
  const databaseUrl = new URL(database.connectionString);
  postgres = await startStallingProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port) });
  databaseUrl.port = String(postgres.port);
  const kubeConfig = emulator.kubeConfig();
  kubeConfig.clusters[0] = { ...kubeConfig.clusters[0]!, server: `http://127.0.0.1:${cluster.port}` };
  gateway = await startTestGateway(adminEnv({ DATABASE_URL: databaseUrl.toString() }), { kubeConfig });
  token = await loginToken(gateway.url, ADMIN_PASSWORD);
  await send(gateway.url, token, 'POST', `${API}/projects`, projectObject(PROJECT)).then(expectStatus(201));
  await send(gateway.url, token, 'POST', `${API}/namespaces/${PROJECT}/workspaces`, workspaceObject(WORKSPACE)).then(
    expectStatus(201),
  );
}, 60_000);

afterAll(async () => {
  cluster?.resume();
  postgres?.resume();
  await gateway?.close();
  await Promise.all([cluster?.close(), postgres?.close()]);
  await Promise.all([emulator?.close(), database?.destroy()]);
});

/**
 * Sends a request while `proxy` stalls; answers its status, body, how long it took, and whether the
 * server abandoned what it had sent the proxy (a connection closed with a request still held) before
 * the proxy resumes.
 */
async function whileStalled(proxy: StallingProxy, method: string, path: string, body?: unknown) {
  const abandonedBefore = proxy.abandoned();
  proxy.stall();
  try {
    const started = Date.now();
    const response = await send(gateway.url, token, method, path, body);
    const answer = {
      status: response.status,
      auditId: response.headers.get('audit-id'),
      body: (await response.json()) as Record<string, unknown>,
      ms: Date.now() - started,
    };
    const deadline = Date.now() + 2000;
    while (proxy.abandoned() === abandonedBefore && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return { ...answer, abandoned: proxy.abandoned() > abandonedBefore };
  } finally {
    proxy.resume();
  }
}

const TIMEOUT_STATUS = {
  kind: 'Status',
  status: 'Failure',
  reason: 'Timeout',
  code: 504,
  message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
};

describe('A deadline that passes while the cluster stalls: 504 Timeout at the deadline, the call abandoned', () => {
  it('a read of a Workspace: a Status as kube-apiserver answers it, and the call to the cluster closed', async () => {
    const answer = await whileStalled(
      cluster,
      'GET',
      `${API}/namespaces/${PROJECT}/workspaces/${WORKSPACE}?timeout=${DEADLINE_MS}ms`,
    );
    expect(answer.body).toMatchObject(TIMEOUT_STATUS);
    expect(answer.status).toBe(504);
    expect(answer.auditId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(answer.ms).toBeLessThan(IN_TIME_MS);
    // The server gave up its call: the proxy saw the connection close with the request still held.
    expect(answer.abandoned).toBe(true);
  });

  it("the start of a run (its Workspace is read first) is 504 in time, the platform's error shape", async () => {
    const answer = await whileStalled(
      cluster,
      'POST',
      `/api/v1alpha1/projects/${PROJECT}/workspaces/${WORKSPACE}/runs?timeout=1s`,
      { type: 'plan' },
    );
    expect([answer.status, answer.body.reason]).toEqual([504, 'Timeout']);
    expect(answer.ms).toBeLessThan(IN_TIME_MS);
  });

  it('the server serves as before once the cluster answers again', async () => {
    const response = await send(
      gateway.url,
      token,
      'GET',
      `${API}/namespaces/${PROJECT}/workspaces/${WORKSPACE}?timeout=5s`,
    );
    expect(response.status).toBe(200);
  });
});

describe('A deadline that passes while the database stalls: 504 at the deadline, the statement abandoned', () => {
  it('a list of runs is 504 in time, and its connection to the database is given up', async () => {
    const answer = await whileStalled(postgres, 'GET', `/api/v1alpha1/projects/${PROJECT}/runs?timeout=1s`);
    expect([answer.status, answer.body.reason]).toEqual([504, 'Timeout']);
    expect(answer.ms).toBeLessThan(IN_TIME_MS);
    expect(answer.abandoned).toBe(true);
  });

  it('a statement the database is slow to answer (waiting on a lock) is cancelled there at the deadline', async () => {
    const holder = await database.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE runs IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await send(gateway.url, token, 'GET', `/api/v1alpha1/projects/${PROJECT}/runs?timeout=1s`);
      expect([response.status, ((await response.json()) as { reason: string }).reason]).toEqual([504, 'Timeout']);
      expect(Date.now() - started).toBeLessThan(IN_TIME_MS);
      // No statement of the server's still waits on the lock: it was cancelled, not left to run.
      const waiting = async () =>
        (
          await database.pool.query<{ count: string }>(
            `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM runs%'`,
          )
        ).rows[0]!.count;
      const deadline = Date.now() + 2000;
      while ((await waiting()) !== '0' && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await waiting()).toBe('0');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('the runs are listed as before once it answers again', async () => {
    const response = await send(gateway.url, token, 'GET', `/api/v1alpha1/projects/${PROJECT}/runs?timeout=5s`);
    expect(response.status).toBe(200);
  });
});

describe('timeout as kube-apiserver reads it', () => {
  it('a malformed timeout is 400 with its words, on a Kubernetes route and on a run route', async () => {
    const resource = await send(gateway.url, token, 'GET', `${API}/namespaces/${PROJECT}/workspaces?timeout=soon`);
    expect(resource.status).toBe(400);
    expect(await resource.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
    });
    const runs = await send(gateway.url, token, 'GET', `/api/v1alpha1/projects/${PROJECT}/runs?timeout=20`);
    expect([runs.status, ((await runs.json()) as { reason: string }).reason]).toEqual([400, 'BadRequest']);
  });

  it('a timeout over the maximum (60 s), zero or negative is the maximum, not a refusal', async () => {
    for (const timeout of ['10m', '0', '-5s', '1h30m']) {
      const response = await send(
        gateway.url,
        token,
        'GET',
        `/api/v1alpha1/projects/${PROJECT}/runs?timeout=${timeout}`,
      );
      expect(response.status, timeout).toBe(200);
    }
  });

  it('a watch is long-running: its timeout does not end it (timeoutSeconds does), a malformed one is still 400', async () => {
    const { port } = new URL(gateway.url);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port,
          path: `${API}/namespaces/${PROJECT}/workspaces?watch=true&timeout=1s`,
          headers: { authorization: `Bearer ${token}` },
        },
        (incoming) => {
          incoming.resume();
          // Still open past the timeout: the watch is not cut by it.
          setTimeout(() => {
            resolve(incoming.complete ? -1 : (incoming.statusCode ?? 0));
            outgoing.destroy();
          }, 1500);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(status).toBe(200);
    const malformed = await send(
      gateway.url,
      token,
      'GET',
      `${API}/namespaces/${PROJECT}/workspaces?watch=true&timeout=x`,
    );
    expect(malformed.status).toBe(400);
  });
});
