// Issue 11: one function alone, cluster set-up as a one-shot step, local state that survives
// restarts together and reports who holds it.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startFunctionServer } from '../../../knative/function-server.ts';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { startEmbeddedDatabase } from '../../../infra/development/database/embedded-database.ts';
import { startLocalCluster } from '../../../infra/development/cluster/local-cluster.ts';
import { LocalStateInUseError } from '../../../infra/development/local/state-lock.ts';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { adminEnv, ADMIN_PASSWORD } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, loginToken, silentLogger } from '../../support/function-servers.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// A cluster nobody answers at: login needs none, and the checkout's own local state stays untouched.
async function unreachableKubeconfig(): Promise<string> {
  const path = join(await temporaryFolder(), 'kubeconfig');
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'none', cluster: { server: 'http://127.0.0.1:9', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'none', user: { token: 'none' } }],
      contexts: [{ name: 'none', context: { cluster: 'none', user: 'none' } }],
      'current-context': 'none',
    }),
  );
  return path;
}

async function temporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'platform-api-local-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Runs a Node script of the checkout to its end, without blocking this process (whose servers it may call). */
function runNode(args: string[], env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (status) => resolve({ status, output }));
  });
}

const runCli = (args: string[], env: Record<string, string> = {}) =>
  runNode(['infra/development/commands/local-command.js', ...args], env);

/** Starts a child process and resolves once `ready` matches its output (or rejects when it exits first). */
function startChild(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ output: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) resolve({ output: () => output, stop });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before ready: ${output}`)));
  });
}

describe("One function alone: `npx functions-framework --target=<name> --port=<port>` serves that function, and the token's iss is the port it serves", () => {
  it('login under the functions-framework CLI issues tokens whose iss is http://localhost:<--port>', async () => {
    const port = await findFreePort();
    // Outside production the framework announces itself; the admin settings come from the environment.
    const login = await startChild(
      ['node_modules/@google-cloud/functions-framework/build/src/main.js', '--target=login', `--port=${port}`],
      adminEnv({ NODE_ENV: 'development', LOG_LEVEL: 'warn', KUBECONFIG: await unreachableKubeconfig() }),
      /Serving function/,
    );
    cleanups.push(() => login.stop());
    const token = await loginToken(`http://127.0.0.1:${port}`, ADMIN_PASSWORD);
    expect(decodeJwt(token).iss).toBe(`http://localhost:${port}`);
  });

  it('refuses a --target that is not a function, naming the five', async () => {
    const result = await runNode(
      ['node_modules/@google-cloud/functions-framework/build/src/main.js', '--target=nope', '--port=0'],
      adminEnv(),
    );
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(
      /refusing to start: --target: .*nope.* is not one of login, public-config, resources, internal, run-logs/,
    );
  });
});

describe('Cluster set-up is a one-shot step (`npm run local:setup`); a resources function whose CRDs are missing is not ready and /readyz says why', () => {
  let emulator: KubeEmulator;
  let database: TestDatabase;
  beforeAll(async () => {
    emulator = await startKubeEmulator();
    database = await startTestDatabase();
  });
  afterAll(async () => {
    await emulator.close();
    await database.destroy();
  });

  it('answers /readyz 503 CustomResourceDefinitionsMissing until `npm run local:setup` installs them, then 200', async () => {
    const running = await startFunctionServer(
      loadSettings(adminEnv({ FUNCTION_TARGET: 'resources', PORT: '0', DATABASE_URL: database.connectionString })),
      { logger: silentLogger, host: '127.0.0.1', kubeConfig: emulator.kubeConfig() },
    );
    cleanups.push(() => running.close());
    const before = await fetch(`${running.url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toMatchObject({
      reason: 'CustomResourceDefinitionsMissing',
      error: expect.stringContaining('npm run local:setup'),
    });

    const folder = await temporaryFolder();
    await writeFile(join(folder, 'kubeconfig'), emulator.kubeConfig().exportConfig());
    const setup = await runCli(['setup'], { KUBECONFIG: join(folder, 'kubeconfig') });
    expect(setup.status, setup.output).toBe(0);
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    // A real cluster's set-up installs, never seeds: the example is for the local emulator only.
    const projects = (await emulator
      .kubeConfig()
      .makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi)
      .listClusterCustomObject({ group: 'platform.dev', version: 'v1alpha1', plural: 'projects' })) as {
      items: unknown[];
    };
    expect(projects.items).toEqual([]);
  });
});

describe('Local state survives restarts together: the built-in cluster persists under the data folder beside the database, and one command resets both', () => {
  it('keeps the seeded and created objects across a restart of the local cluster; reset-local removes them', async () => {
    const dataDir = await temporaryFolder();
    expect((await runCli(['setup', '--data-dir', dataDir])).status).toBe(0);
    const first = await startLocalCluster(join(dataDir, 'kubernetes'));
    const { CoreV1Api, CustomObjectsApi } = await import('@kubernetes/client-node');
    await first
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'kept' } } });
    await first.close();

    const second = await startLocalCluster(join(dataDir, 'kubernetes'));
    cleanups.push(() => second.close());
    const custom = second.kubeConfig().makeApiClient(CustomObjectsApi);
    expect(
      await custom.getClusterCustomObject({
        group: 'platform.dev',
        version: 'v1alpha1',
        plural: 'projects',
        name: 'demo',
      }),
    ).toMatchObject({ spec: { displayName: 'Demo' } });
    expect((await second.kubeConfig().makeApiClient(CoreV1Api).readNamespace({ name: 'kept' })).metadata?.name).toBe(
      'kept',
    );
    await second.close();
    cleanups.pop();

    const reset = await runCli(['reset-local', '--data-dir', dataDir]);
    expect(reset.status, reset.output).toBe(0);
    const fresh = await startLocalCluster(join(dataDir, 'kubernetes'));
    cleanups.push(() => fresh.close());
    expect(
      (await fresh.kubeConfig().makeApiClient(CoreV1Api).listNamespace()).items.map(
        (namespace) => namespace.metadata?.name,
      ),
    ).not.toContain('kept');
  });
});

describe('A held lock on local state is reported as such at start-up, naming the process, not as "retry shortly"', () => {
  it("a second user of the local cluster state is refused with the holder's process id", async () => {
    const dataDir = await temporaryFolder();
    const holder = await startChild(
      [
        '--input-type=module',
        '-e',
        `const { startLocalCluster } = await import('./infra/development/cluster/local-cluster.ts'); await startLocalCluster(${JSON.stringify(join(dataDir, 'kubernetes'))}); console.log('holding');`,
      ],
      {},
      /holding/,
    );
    cleanups.push(() => holder.stop());
    const refused = await startLocalCluster(join(dataDir, 'kubernetes')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(LocalStateInUseError);
    expect((refused as Error).message).toMatch(/local Kubernetes state .* is in use by process \d+/);
    const reset = await runCli(['reset-local', '--data-dir', dataDir]);
    expect(reset.status).toBe(1);
    expect(reset.output).toMatch(/in use by process \d+/);
  });

  it('a second `npm start` on the same database stops at start-up, naming the embedded database and its process', async () => {
    const dataDir = await temporaryFolder();
    const database = await startEmbeddedDatabase({ dataDir: join(dataDir, 'postgres') });
    cleanups.push(() => database.stop());
    const emulator = await startKubeEmulator();
    cleanups.push(() => emulator.close());
    await writeFile(join(dataDir, 'kubeconfig'), emulator.kubeConfig().exportConfig());
    const second = await runNode(['infra/development/gateway/local-gateway.ts'], {
      PORT: '0',
      LOCAL_DATA_DIR: dataDir,
      KUBECONFIG: join(dataDir, 'kubeconfig'),
    });
    expect(second.status).toBe(1);
    expect(second.output).toMatch(/refusing to start.*the embedded database in .* is in use by process \d+/);
    expect(second.output).not.toContain('retry shortly');
  });
});
