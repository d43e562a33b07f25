// Issue 38, items 12 and 13: what `npm start` does with the cluster and the database it is given.
// With KUBECONFIG, it installs the platform's CRDs as the README says (it did so only for the built-in
// emulator), and its /readyz answers 503 while the cluster does not serve them (it answered 200: the
// probe went to public-config, which waits for nothing). With DATABASE_URL unreachable, the cause is
// logged at start, not at the first request that needs the database, and /readyz is 503; the start
// does not wait for the database.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import {
  capturingLogger,
  freePort,
  spawnFunctionProcess,
  startTestGateway,
  type FunctionProcess,
} from '../../support/function-servers.ts';

const GROUP = 'platform.dev';

async function readiness(gateway: RunningServer): Promise<{ status: number; reason?: string; error?: string }> {
  const answer = await fetch(`${gateway.url}/readyz`);
  const body = (await answer.json()) as { reason?: string; error?: string };
  return { status: answer.status, reason: body.reason, error: body.error };
}

async function platformCrds(emulator: KubeEmulator): Promise<string[]> {
  const list = await emulator.kubeConfig().makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
  return list.items.map((crd) => crd.metadata!.name!).filter((name) => name.endsWith(`.${GROUP}`));
}

describe('npm start with KUBECONFIG: the CRDs are installed, and /readyz says whether they are served (issue 38, item 12)', () => {
  let emulator: KubeEmulator;
  let database: TestDatabase;
  let folder: string;
  let gateway: RunningServer;
  const logger = capturingLogger();
  beforeAll(async () => {
    // The repo's emulator started without the CRDs, as a fresh cluster is.
    emulator = await startKubeEmulator();
    database = await startTestDatabase();
    folder = await mkdtemp(join(tmpdir(), 'kubeconfig-start-'));
    const kubeconfig = join(folder, 'kubeconfig');
    await writeFile(kubeconfig, emulator.kubeConfigYaml());
    expect(await platformCrds(emulator)).toEqual([]);
    gateway = await startTestGateway(
      { NODE_ENV: 'development', KUBECONFIG: kubeconfig, DATABASE_URL: database.connectionString },
      { logger },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await database?.destroy();
    await emulator?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('installs the CRDs in the KUBECONFIG cluster before serving, without seeding the example Project', async () => {
    expect((await platformCrds(emulator)).sort()).toEqual(
      ['notifications', 'projects', 'rollouts', 'runtasks', 'variablesets', 'workspaces'].map(
        (plural) => `${plural}.${GROUP}`,
      ),
    );
    expect(logger.lines.join('\n')).toContain('cluster set up: the platform CustomResourceDefinitions are served');
    expect(logger.lines.join('\n')).not.toContain('seeded with Project');
  });

  it('/readyz is 200 while they are served, 503 CustomResourceDefinitionsMissing once one is gone', async () => {
    expect(await readiness(gateway)).toMatchObject({ status: 200 });
    await emulator
      .kubeConfig()
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: `rollouts.${GROUP}` });
    expect(await readiness(gateway)).toMatchObject({ status: 503, reason: 'CustomResourceDefinitionsMissing' });
    expect((await readiness(gateway)).error).toContain('rollouts');
  });
});

describe('npm start with DATABASE_URL unreachable: the cause at start, /readyz 503, the start not delayed (issue 38, item 13)', () => {
  let gateway: RunningServer;
  const logger = capturingLogger();
  beforeAll(async () => {
    // A port nothing listens on: every connection is refused.
    const port = await freePort();
    gateway = await startTestGateway(
      { NODE_ENV: 'development', DATABASE_URL: `postgres://platform:secret@127.0.0.1:${port}/platform` },
      { logger },
    );
  });
  afterAll(() => gateway?.close());

  it('logs at start, with no request made, that the database cannot be opened, naming the cause', async () => {
    const deadline = Date.now() + 10_000;
    const failure = () => logger.lines.find((line) => line.includes('run history database could not be opened'));
    while (!failure() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failure()).toMatch(/ECONNREFUSED/);
    expect(failure()).not.toContain('secret');
  });

  it('serves at once (/healthz 200) and /readyz answers 503 DatabaseUnavailable while it is unreachable', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect(await readiness(gateway)).toMatchObject({ status: 503, reason: 'DatabaseUnavailable' });
  });
});

describe('a lone function keeping run history (the container) with DATABASE_URL unreachable (issue 38, item 13)', () => {
  let container: FunctionProcess;
  beforeAll(async () => {
    const port = await freePort();
    container = await spawnFunctionProcess(
      adminEnv({ FUNCTION_TARGET: 'internal', DATABASE_URL: `postgres://platform@127.0.0.1:${port}/platform` }),
    );
  });
  afterAll(() => container?.stop());

  it('logs the cause at start, before any request needs the database, and its /readyz is 503', async () => {
    const deadline = Date.now() + 10_000;
    while (!container.output().includes('run history database could not be opened') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container.output()).toMatch(/run history database could not be opened.*ECONNREFUSED/);
    const answer = await fetch(`${container.url}/readyz`);
    expect([answer.status, ((await answer.json()) as { reason: string }).reason]).toEqual([503, 'DatabaseUnavailable']);
  });
});
