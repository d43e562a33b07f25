// Issue 20, item 6: fleet replicas listen on 127.0.0.1 only. They trust the one X-Forwarded-For hop
// the gateway writes, so a client reaching one from another machine would choose its own address
// and skip the login throttle. The functions-framework CLI has no address flag; the fleet preloads
// infra/development/fleet/listen-on-loopback.ts into each replica (fleet-topology.test.ts checks the
// running replicas; this file checks the preload alone, in a process of its own).
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/function-servers.ts';
import { connects, listeningAddresses, nonLoopbackAddresses } from '../../support/listening-sockets.ts';

const PRELOAD = './infra/development/fleet/listen-on-loopback.ts';

/** Runs `script` (an ES module body) in a new Node process with the preload, returning what it printed. */
function runPreloaded(script: string): unknown {
  const result = spawnSync(process.execPath, [`--import=${PRELOAD}`, '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('Fleet: a replica listens on 127.0.0.1 only (issue 20)', () => {
  it('a server told only a port (as the framework does: a number, a digit string, or { port }) listens on 127.0.0.1', () => {
    const addresses = runPreloaded(`
      import { createServer } from 'node:net';
      const addresses = [];
      for (const args of [[0], ['0'], [{ port: 0 }], [0, () => {}]]) {
        const server = createServer();
        await new Promise((resolve) => server.listen(...args).once('listening', resolve));
        addresses.push(server.address().address);
        server.close();
      }
      console.log(JSON.stringify(addresses));`);
    expect(addresses).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
  });

  it('an address given explicitly is kept', () => {
    const address = runPreloaded(`
      import { createServer } from 'node:net';
      const server = createServer();
      await new Promise((resolve) => server.listen(0, '0.0.0.0', resolve));
      console.log(JSON.stringify(server.address().address));
      server.close();`);
    expect(address).toBe('0.0.0.0');
  });

  it('the kernel lists the socket on 127.0.0.1 alone, and a non-loopback address of this machine is refused', async () => {
    const script = `
      import { createServer } from 'node:http';
      const server = createServer((_request, response) => response.end());
      server.listen(0, () => console.log(server.address().port));`;
    const child = spawn(process.execPath, [`--import=${PRELOAD}`, '--input-type=module', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<number>((resolve) =>
        child.stdout.once('data', (data) => resolve(Number(`${data}`))),
      );
      expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
      for (const address of nonLoopbackAddresses()) expect(await connects(address, port)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
