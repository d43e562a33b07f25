// Issue 23, item 4, "start-up catches configuration": the listening port is bound before the slow
// set-up (the cluster, the database, migrations), so a port in use stops the server at once naming
// PORT; while it sets up, a request is answered 503 `Starting`, not refused at the socket.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindEarly } from '../../../knative/node-http/running-server.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, freePort } from '../../support/function-servers.ts';

/** Runs a Node entry of the checkout to its end: exit status, output and how long it took. */
function runToExit(
  script: string,
  env: Record<string, string>,
): Promise<{ status: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (status) => resolve({ status, output, ms: Date.now() - started }));
  });
}

/** For the tests of a describe block: a port another process holds, and a local state folder of their own. */
function usePortInUse(folderPrefix: string): { port: () => number; dataDir: () => string } {
  const occupier = createServer();
  let port = 0;
  let dataDir = '';
  beforeAll(async () => {
    port = await freePort();
    await new Promise<void>((resolve) => occupier.listen(port, resolve));
    dataDir = await mkdtemp(join(tmpdir(), folderPrefix));
  });
  afterAll(async () => {
    occupier.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { port: () => port, dataDir: () => dataDir };
}

describe('issue 23: a port in use stops the server at once, naming PORT', () => {
  const inUse = usePortInUse('port-in-use-');

  it('npm start (the local gateway): exit 1 naming PORT, before the emulator or the database start', async () => {
    const result = await runToExit('infra/development/gateway/local-gateway.ts', {
      PORT: String(inUse.port()),
      LOCAL_DATA_DIR: inUse.dataDir(),
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/refusing to start: PORT: port \d+ is already in use/);
    expect(result.output).not.toMatch(/database:|embedded PostgreSQL|migrations/);
  });

  it('the container entry: exit 1 naming PORT', async () => {
    const result = await runToExit('knative/server.ts', {
      ...adminEnv(),
      NODE_ENV: 'production',
      FUNCTION_TARGET: 'resources',
      PORT: String(inUse.port()),
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/refusing to start: PORT: port \d+ is already in use/);
  });
});

describe("issue 38, item 11: the console's port in use stops start-up at once, naming CONSOLE_PORT", () => {
  const inUse = usePortInUse('console-port-in-use-');

  const refusal = /refusing to start: CONSOLE_PORT: port \d+ is already in use by another process/;

  it('npm start: exit 1 naming CONSOLE_PORT, no stack, before the emulator or the database start', async () => {
    const result = await runToExit('infra/development/gateway/local-gateway.ts', {
      PORT: String(await freePort()),
      CONSOLE_PORT: String(inUse.port()),
      LOCAL_DATA_DIR: inUse.dataDir(),
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(refusal);
    expect(result.output).not.toMatch(
      /EADDRINUSE|at Server\.|database:|embedded PostgreSQL|built-in Kubernetes emulator/,
    );
  });

  it('npm run fleet: exit 1 naming CONSOLE_PORT, before any replica starts', async () => {
    const result = await runToExit('infra/development/fleet/fleet-main.ts', {
      PORT: String(await freePort()),
      CONSOLE_PORT: String(inUse.port()),
      LOCAL_DATA_DIR: inUse.dataDir(),
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(refusal);
    expect(result.output).not.toMatch(/EADDRINUSE|replica|embedded PostgreSQL/);
  });

  it("the console's container (FUNCTION_TARGET=console): exit 1 naming PORT, its only port", async () => {
    const result = await runToExit('knative/functions/console.ts', {
      NODE_ENV: 'production',
      PORT: String(inUse.port()),
      CONSOLE_API_BASE_URL: 'https://api.example.com',
    });
    expect(result.status).toBe(1);
    expect(result.output).toMatch(/refusing to start: PORT: port \d+ is already in use/);
    expect(result.output).not.toMatch(/EADDRINUSE/);
  });
});

describe('issue 23: while the process sets up, its port answers 503 Starting', () => {
  it('a request before serve() is 503 Starting with Retry-After; after, the listener answers', async () => {
    const bound = await bindEarly({ port: 0, maxHeaderBytes: 16_384 }, undefined, '127.0.0.1');
    try {
      const early = await fetch(`http://127.0.0.1:${bound.port}/readyz`);
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(await early.json()).toMatchObject({ reason: 'Starting' });
      bound.serve((_req, res) => res.writeHead(200).end('ready'));
      const later = await fetch(`http://127.0.0.1:${bound.port}/readyz`);
      expect([later.status, await later.text()]).toEqual([200, 'ready']);
    } finally {
      await bound.close();
    }
  });
});
