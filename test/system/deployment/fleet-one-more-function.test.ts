// Issue 21, local development as solid as the product: a function started alone beside a running
// fleet, by the one command the fleet prints, accepts the fleet's admin tokens and shares its
// cluster and database; a token it does not trust is refused naming both issuers.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../../../infra/development/fleet/fleet.ts';
import { FLEET_START_BOUND_MS, REPLICA_START_BOUND_MS } from '../../support/fleet-start.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { capturingLogger, loginToken, REPO_ROOT } from '../../support/function-servers.ts';

let fleet: Fleet;
let database: TestDatabase;
let folder: string;
const logger = capturingLogger();
let exitListenersAdded: number;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'platform-api-fleet-join-'));
  database = await startTestDatabase();
  const env = { PORT: '0', DATABASE_URL: database.connectionString, LOG_LEVEL: 'warn' };
  const exitListenersBefore = process.listenerCount('exit');
  fleet = await startFleet(loadSettings(env), env, {
    startTimeoutMs: REPLICA_START_BOUND_MS,
    replicas: 1,
    dataDir: join(folder, 'data'),
    logger,
    host: '127.0.0.1',
  });
  exitListenersAdded = process.listenerCount('exit') - exitListenersBefore;
}, FLEET_START_BOUND_MS);

afterAll(async () => {
  await fleet?.close();
  await database?.destroy();
  await rm(folder, { recursive: true, force: true });
});

/** Runs the fleet's printed command for one function and waits until it serves. */
async function startPrintedCommand(target: string, port: number) {
  const listening = logger.lines.find((line) => line.includes('fleet listening'))!;
  const command = (JSON.parse(listening) as { oneMoreFunction: string }).oneMoreFunction
    .replace('<function>', target)
    .replace('<port>', String(port));
  const child = spawn('bash', ['-c', command], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  };
  for (let attempt = 0; attempt < 600; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (ready?.status === 200) return { stop, output: () => output };
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`not ready in 60 s: ${output}`);
}

describe('A fleet start prints no MaxListenersExceededWarning (issue 21)', () => {
  it('its five replicas share one exit listener of the fleet process, not one each', () => {
    expect(exitListenersAdded).toBe(1);
  });
});

describe('One function alone beside a fleet shares its tokens by the command the fleet prints (README, "Local modes")', () => {
  it('the fleet writes its environment file readable by its owner only, and names the command in its start-up line', async () => {
    const file = join(folder, 'data', 'fleet.env');
    expect((await stat(file)).mode & 0o077).toBe(0);
    expect(logger.lines.find((line) => line.includes('fleet listening'))).toContain(`. '${file}'`);
  });

  it("a token from the fleet's login is accepted by the function started alone, which reads the fleet's cluster", async () => {
    const port = await findFreePort();
    const resources = await startPrintedCommand('resources', port);
    try {
      const token = await loginToken(fleet.url);
      const projects = await fetch(`http://127.0.0.1:${port}/apis/platform.dev/v1alpha1/projects`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(projects.status).toBe(200);
      // The same answer as through the fleet: one cluster.
      const throughFleet = await fetch(`${fleet.url}/apis/platform.dev/v1alpha1/projects`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const names = (body: unknown) =>
        (body as { items: { metadata: { name: string } }[] }).items.map((item) => item.metadata.name);
      expect(names(await projects.json())).toEqual(names(await throughFleet.json()));
    } finally {
      await resources.stop();
    }
  }, 120_000);

  it("a token of another issuer is 401 UnknownIssuer naming the issuer it carried and the one this server's admin tokens have", async () => {
    const port = await findFreePort();
    const login = await findFreePort();
    const alone = spawn(
      process.execPath,
      ['node_modules/@google-cloud/functions-framework/build/src/main.js', '--target=login', `--port=${login}`],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          LOG_LEVEL: 'warn',
          ADMIN_SECRET_SOURCE: `file:${fleet.secretFolder}`,
        },
        stdio: 'ignore',
      },
    );
    const resources = await startPrintedCommand('resources', port);
    try {
      let foreign: string | undefined;
      for (let attempt = 0; attempt < 600 && !foreign; attempt++) {
        foreign = await loginToken(`http://127.0.0.1:${login}`).catch(() => undefined);
        if (!foreign) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const refused = await fetch(`http://127.0.0.1:${port}/api/v1alpha1/auth/whoami`, {
        headers: { authorization: `Bearer ${foreign}` },
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({
        reason: 'UnknownIssuer',
        error: `token issuer "http://localhost:${login}" is not trusted; this server accepts admin tokens: "http://localhost:${fleet.port}"`,
      });
    } finally {
      alone.kill('SIGTERM');
      await resources.stop();
    }
  }, 120_000);
});
