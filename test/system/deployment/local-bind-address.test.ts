// Issue 44, item 2: `npm start` listened on every interface with the admin password `admin`. Local
// mode (`npm start`, `npm run fleet` and the console each serves) binds loopback by default;
// LOCAL_BIND_ADDRESS binds elsewhere, with a warning naming the risk. The real processes, their
// sockets as the kernel lists them.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, inject } from 'vitest';
import { REPO_ROOT, freePort, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { connects, listeningAddresses, nonLoopbackAddresses } from '../../support/listening-sockets.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts `script` (a local mode's entry) on its own state folder and waits until its console listens too. */
async function startLocalMode(
  script: string,
  env: Record<string, string> = {},
): Promise<{ process: FunctionProcess; port: number; consolePort: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'local-bind-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const consolePort = await freePort();
  const started = await spawnNodeProcess(
    script,
    {
      NODE_ENV: 'development',
      LOCAL_DATA_DIR: dataDir,
      CONSOLE_PORT: String(consolePort),
      CONSOLE_ASSETS_DIR: inject('consoleDir'),
      ...env,
    },
    '/healthz',
    { startTimeoutMs: 180_000 },
  );
  cleanups.push(() => started.stop());
  await expect.poll(() => started.output(), { timeout: 60_000 }).toContain('console listening');
  return { process: started, port: Number(new URL(started.url).port), consolePort };
}

/** No socket of `port` beyond loopback: the kernel lists 127.0.0.1 alone, and every other address of this machine is refused. */
async function expectLoopbackOnly(port: number): Promise<void> {
  expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
  for (const address of nonLoopbackAddresses()) expect(await connects(address, port)).toBe(false);
}

describe('Issue 44, item 2: local mode binds loopback by default; LOCAL_BIND_ADDRESS binds elsewhere, with a warning', () => {
  it('npm start: the gateway and the console listen on 127.0.0.1 only, as the start-up log says', async () => {
    const { process, port, consolePort } = await startLocalMode('infra/development/gateway/local-gateway.ts');
    await expectLoopbackOnly(port);
    await expectLoopbackOnly(consolePort);
    expect(process.output()).toContain('"address":"127.0.0.1"');
    expect(process.output()).not.toContain('LOCAL_BIND_ADDRESS');
  }, 300_000);

  it('npm start with LOCAL_BIND_ADDRESS=0.0.0.0: every interface, and a warning that the admin password is known', async () => {
    const { process, port, consolePort } = await startLocalMode('infra/development/gateway/local-gateway.ts', {
      LOCAL_BIND_ADDRESS: '0.0.0.0',
    });
    expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(consolePort)).toEqual(['0.0.0.0']);
    for (const address of nonLoopbackAddresses()) expect(await connects(address, port)).toBe(true);
    const warning = process
      .output()
      .split('\n')
      .find((line) => line.includes('"level":"warn"') && line.includes('LOCAL_BIND_ADDRESS'));
    expect(warning).toContain('admin');
    expect(warning).toContain('"address":"0.0.0.0"');
  }, 300_000);

  it('a LOCAL_BIND_ADDRESS that is not an IP address stops start-up, naming the variable', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'local-bind-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const result = spawnSync(process.execPath, ['infra/development/gateway/local-gateway.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'development',
        LOCAL_DATA_DIR: dataDir,
        PORT: String(await freePort()),
        CONSOLE_PORT: String(await freePort()),
        LOCAL_BIND_ADDRESS: 'everywhere',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(1);
    const refusal = (result.stdout + result.stderr)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message: string; variable?: string })
      .find((entry) => entry.message.startsWith('refusing to start'));
    expect(refusal).toMatchObject({
      message: expect.stringContaining('LOCAL_BIND_ADDRESS: "everywhere" is not an IP address'),
      variable: 'LOCAL_BIND_ADDRESS',
    });
  }, 150_000);

  it('npm run fleet: its gateway and its console listen on 127.0.0.1 only', async () => {
    const { process, port, consolePort } = await startLocalMode('infra/development/fleet/fleet-main.ts');
    await expectLoopbackOnly(port);
    await expectLoopbackOnly(consolePort);
    expect(process.output()).toMatch(/"fleet listening".*"address":"127\.0\.0\.1"/);
  }, 300_000);
});
