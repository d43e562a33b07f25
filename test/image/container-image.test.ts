import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, adminEnv } from '../support/admin-fixtures.ts';
import { startTestDatabase, type TestDatabase } from '../support/test-database.ts';
import { testRuns } from '../support/test-runs.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../shared/contract/routes/route-table.ts';
import {
  CONTAINER_DATABASE_PORT,
  FunctionContainer,
  imageSize,
  imageUnderTest,
  nodeImage,
  podman,
} from './function-container.ts';
import { startRelay } from './socket-relay.ts';

// Issue 16: the shipped image, built with podman (infra/image/build.sh) and run as Knative runs it.
const WHO_AM_I = '/api/v1alpha1/auth/whoami';
const LOGIN = '/api/v1alpha1/auth/login';
/** Functions whose handlers need neither the cluster nor the database. */
const SELF_CONTAINED: FunctionName[] = ['login', 'public-config'];

let database: TestDatabase;
let databaseRelay: Server;
let databaseSocketDir: string;
const containers = new Map<FunctionName, FunctionContainer>();
/** Printed at the end: the image's size and each function's cold start. */
const figures: string[] = [];
const env = adminEnv({ API_BASE_URL: 'https://platform.example.test' });

/** Every JSON log line of a container at error level (string levels, or pino's numbers: 50 and up). */
function errorLines(logs: string): string[] {
  return logs.split('\n').filter((line) => {
    try {
      const { level } = JSON.parse(line) as { level?: string | number };
      return level === 'error' || level === 'fatal' || (typeof level === 'number' && level >= 50);
    } catch {
      return false;
    }
  });
}

async function loginToken(container: FunctionContainer): Promise<string> {
  const answer = await container.send(LOGIN, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
  });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { idToken: string }).idToken;
}

beforeAll(async () => {
  database = await startTestDatabase();
  // The containers reach it as if through a database proxy sidecar on their own loopback.
  databaseSocketDir = await mkdtemp(join(tmpdir(), 'platform-api-db-'));
  const hostUrl = new URL(database.connectionString);
  databaseRelay = await startRelay(`unix:${join(databaseSocketDir, 'postgres.sock')}`, `tcp:127.0.0.1:${hostUrl.port}`);
  const containerUrl = new URL(hostUrl);
  containerUrl.port = String(CONTAINER_DATABASE_PORT);
  const databaseUrl = containerUrl.href;
  // One at a time, so that each cold start is measured on a machine not busy starting the others.
  for (const name of FUNCTION_NAMES) {
    const needsDatabase = !SELF_CONTAINED.includes(name);
    containers.set(
      name,
      await FunctionContainer.start(
        name,
        needsDatabase ? { ...env, DATABASE_URL: databaseUrl } : env,
        needsDatabase ? { databaseSocket: join(databaseSocketDir, 'postgres.sock') } : {},
      ),
    );
  }
});

afterAll(async () => {
  for (const [name, container] of containers)
    figures.push(
      `cold start ${name.padEnd(14)} ${Math.round(container.coldStartMs)} ms (podman run to the first 200 of /healthz)`,
    );
  console.log(figures.join('\n'));
  await Promise.all([...containers.values()].map((container) => container.remove()));
  databaseRelay?.close();
  await database?.destroy();
  if (databaseSocketDir) await rm(databaseSocketDir, { recursive: true, force: true });
});

describe('Issue 16, the image runs as Knative runs it: non-root, read-only root file system, Node as PID 1', () => {
  it('runs as 1000:1000, the image user, with Node as PID 1 and a root file system it cannot write', async () => {
    expect(await podman('image', 'inspect', '--format', '{{.Config.User}}', imageUnderTest())).toBe('1000:1000');
    const login = containers.get('login')!;
    expect(await podman('exec', login.id, 'id', '-u')).toBe('1000');
    expect(await podman('exec', login.id, 'cat', '/proc/1/comm')).toBe('node');
    await expect(podman('exec', login.id, 'touch', '/app/written')).rejects.toThrow(/Read-only file system/);
  });

  it('has no network but loopback', async () => {
    const interfaces = await podman(
      'exec',
      containers.get('login')!.id,
      'node',
      '-p',
      'Object.keys(require("os").networkInterfaces()).join()',
    );
    expect(interfaces).toBe('lo');
  });
});

describe('Issue 16, a small image: the Node base without npm, plus the bundles and no node_modules', () => {
  it('the application adds at most 15 MB to the Node base, and the image has no npm and no node_modules', async () => {
    const image = await imageSize(imageUnderTest());
    const base = await imageSize(nodeImage());
    const login = containers.get('login')!;
    const application = Number((await podman('exec', login.id, 'du', '-sb', '/app')).split('\t')[0]);
    figures.push(
      `image ${(image / 1e6).toFixed(1)} MB; Node base ${(base / 1e6).toFixed(1)} MB; /app ${(application / 1e6).toFixed(1)} MB`,
    );
    expect(application).toBeLessThanOrEqual(15e6);
    expect(image).toBeLessThanOrEqual(base + 15e6);
    // As root: the image user cannot read every folder.
    expect(await podman('exec', '--user=0', login.id, 'find', '/', '-xdev', '-name', 'node_modules')).toBe('');
    await expect(
      podman('exec', login.id, 'sh', '-c', 'command -v npm || command -v npx || command -v corepack'),
    ).rejects.toThrow();
  });
});

describe('Issue 16, every function answers /healthz, /readyz and a real request of its own', () => {
  it.each(FUNCTION_NAMES.filter((name) => name !== 'resources').map((name) => [name]))(
    '%s answers /healthz and /readyz with 200',
    async (name) => {
      const container = containers.get(name as FunctionName)!;
      expect((await container.get('/healthz')).status).toBe(200);
      const ready = await container.get('/readyz');
      expect(ready.status, ready.body).toBe(200);
    },
  );

  it('resources, with no cluster to serve from, is alive but not ready (/readyz 503 KubernetesUnavailable)', async () => {
    const container = containers.get('resources')!;
    expect((await container.get('/healthz')).status).toBe(200);
    const ready = await container.get('/readyz');
    expect(ready.status, ready.body).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ reason: 'KubernetesUnavailable' });
  });

  it('login: the known password gets a token; a wrong one gets 403 InvalidPassword', async () => {
    const login = containers.get('login')!;
    expect((await loginToken(login)).split('.')).toHaveLength(3);
    const wrong = await login.send(LOGIN, { method: 'POST', headers: { authorization: 'Bearer not-the-password' } });
    expect(wrong.status).toBe(403);
    expect(JSON.parse(wrong.body)).toMatchObject({ reason: 'InvalidPassword' });
  });

  it('public-config: the public configuration, without a token', async () => {
    const answer = await containers.get('public-config')!.get('/api/v1alpha1/system/public-config');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ adminAccountEnabled: true });
  });

  it('resources: whoami with the token login issued is the admin; without a token 401', async () => {
    const token = await loginToken(containers.get('login')!);
    const resources = containers.get('resources')!;
    const answer = await resources.get(WHO_AM_I, token);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ type: 'admin', name: 'admin' });
    expect((await resources.get(WHO_AM_I)).status).toBe(401);
  });

  it("internal and run-logs: the controller's calls write a run that run-logs then streams, over the real database", async () => {
    const token = await loginToken(containers.get('login')!);
    const run = await testRuns(database.pool).records.createRun({
      project: 'image-test',
      workspace: 'network',
      type: 'plan',
      principal: 'admin',
      principalType: 'admin',
    });
    const internal = containers.get('internal')!;
    const pending = await internal.get('/internal/runs?phase=Pending', token);
    expect(pending.status, pending.body).toBe(200);
    expect(pending.body).toContain(run.id);
    const json = (body: unknown) => ({
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const claimed = await internal.send(
      '/internal/runs/claim',
      json({ project: 'image-test', workspace: 'network', leaseSeconds: 600 }),
    );
    expect(claimed.status, claimed.body).toBe(200);
    const { run: held, lease } = JSON.parse(claimed.body) as { run: { id: string }; lease: { id: string } };
    expect(held.id).toBe(run.id);
    expect(
      (
        await internal.send(
          `/internal/runs/${run.id}/logs`,
          json({ leaseId: lease.id, firstSeq: 1, lines: ['Plan: 1 to add'] }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await internal.send(`/internal/runs/${run.id}/phase`, json({ leaseId: lease.id, phase: 'Succeeded' }))).status,
    ).toBe(200);

    const stream = await containers.get('run-logs')!.get(`/api/v1alpha1/run-logs/image-test/${run.id}`, token);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.body).toContain('data: Plan: 1 to add');
    expect(stream.body).toMatch(/event: end\ndata: \{"phase":"Succeeded"/);
  });
});

describe('Issue 16, quiet, honest start-up: a function that needs neither the cluster nor the database does not reach for them', () => {
  it.each(SELF_CONTAINED.map((name) => [name]))(
    '%s logs nothing at error level and never mentions Kubernetes',
    async (name) => {
      const logs = await containers.get(name as FunctionName)!.logs();
      expect(errorLines(logs)).toEqual([]);
      expect(logs).not.toMatch(/kubernetes|cluster|issuer discovery|DATABASE_URL/i);
    },
  );
});

describe('Issue 16, honest start-up: a function that needs the cluster says once that none is configured, and does not try it', () => {
  it('resources logs the one error line "no Kubernetes cluster configured" and asks no issuer discovery', async () => {
    const resources = containers.get('resources')!;
    // It connects on first use (issue 25): the readiness probe is the first use. Log lines are batched (at most 1 s late).
    expect((await resources.get('/readyz')).status).toBe(503);
    expect((await resources.get('/readyz')).status).toBe(503);
    await waitFor(async () => (await resources.logs()).includes('no Kubernetes cluster configured'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const logs = await resources.logs();
    // Once, however many probes: an unconfigured cluster is not asked, so no failed call is logged per probe.
    expect(errorLines(logs)).toEqual([expect.stringContaining('no Kubernetes cluster configured')]);
    expect(logs).not.toMatch(/issuer discovery/);
  });
});

describe('Issue 16, SIGTERM drains an in-flight request, then the container exits 0', () => {
  it('a login acknowledged (100 Continue) before SIGTERM is answered 200 after it, then exit 0', async () => {
    const container = await FunctionContainer.start('login', env);
    try {
      const inFlight = await container.openRequest(LOGIN, { authorization: `Bearer ${ADMIN_PASSWORD}` });
      await container.signal('SIGTERM');
      // The shutdown line proves the signal arrived while the request was still waiting for its body.
      await waitFor(async () => (await container.logs()).includes('shutting down'));
      const answer = await inFlight.finish('{}');
      expect(answer.status).toBe(200);
      expect(await container.exitCode()).toBe(0);
      const logs = await container.logs();
      expect(logs.indexOf('shutting down')).toBeLessThan(logs.indexOf('admin login succeeded'));
    } finally {
      await container.remove();
    }
  });
});

describe('Issue 16, a bad FUNCTION_TARGET stops the container with exit 1 and a message naming it', () => {
  it('exits 1 and names FUNCTION_TARGET', async () => {
    const id = await podman(
      'run',
      '--detach',
      '--network=none',
      '--read-only',
      '--env',
      'FUNCTION_TARGET=everything',
      imageUnderTest(),
    );
    try {
      expect(await podman('wait', id)).toBe('1');
      expect(await podman('logs', id)).toContain('refusing to start: FUNCTION_TARGET');
    } finally {
      await podman('rm', '--force', id);
    }
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
