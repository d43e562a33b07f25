// Issue 24, item 1: `npm start` serves the console on a second port (CONSOLE_PORT, by default PORT+1),
// prints its URL, points it at the API, and the API allows its origin (CORS).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePort, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';

let gateway: FunctionProcess;
let dataDir: string;
let consolePort: number;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'console-local-mode-'));
  consolePort = await freePort();
  gateway = await spawnNodeProcess(
    'infra/development/gateway/local-gateway.ts',
    {
      NODE_ENV: 'development',
      LOCAL_DATA_DIR: dataDir,
      CONSOLE_PORT: String(consolePort),
      CONSOLE_ASSETS_DIR: inject('consoleDir'),
    },
    '/healthz',
  );
  // The console starts once the gateway serves.
  for (let attempt = 0; attempt < 100 && !gateway.output().includes('console listening'); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 100));
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('npm start serves the console beside the API', () => {
  it('prints the console URL and serves it, pointed at the API', async () => {
    expect(gateway.output()).toContain(`"url":"http://localhost:${consolePort}"`);
    const config = await (await fetch(`http://127.0.0.1:${consolePort}/config.json`)).json();
    expect(config).toEqual({ apiBaseUrl: `http://localhost:${new URL(gateway.url).port}` });
    expect((await fetch(`http://127.0.0.1:${consolePort}/`)).headers.get('content-security-policy')).toContain(
      `connect-src 'self' http://localhost:${new URL(gateway.url).port}`,
    );
  });

  it("the API allows the console's origins (localhost and 127.0.0.1) and no other", async () => {
    const allowed = async (origin: string) =>
      (await fetch(`${gateway.url}/api/v1alpha1/system/public-config`, { headers: { origin } })).headers.get(
        'access-control-allow-origin',
      );
    expect(await allowed(`http://localhost:${consolePort}`)).toBe(`http://localhost:${consolePort}`);
    expect(await allowed(`http://127.0.0.1:${consolePort}`)).toBe(`http://127.0.0.1:${consolePort}`);
    expect(await allowed('http://localhost:1')).toBeNull();
  });
});
