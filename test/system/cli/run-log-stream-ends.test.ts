// Issue 39, `runs logs -f`: how the plugin ends on each last event of the run-log stream (docs/resources.md,
// "Run-log stream", and run retention's `removed`, issue 35), against a server that sends exactly the
// events under test (the real server's `resume`, `expired` and `end` are exercised through kubectl in
// kubectl-platform.test.ts; a removed log needs retention to run mid-stream, which that server cannot be
// made to do on cue). The plugin runs in this process, with a kubeconfig naming the server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginMain } from '../../../cli/plugin-main.ts';
import { oneContextKubeconfig } from '../../support/plugin-cli.ts';

const RUN = '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31';
const STREAM = `/api/v1alpha1/run-logs/team-a/${RUN}`;

/** What the stand-in answers: the stream's connections in turn, and the run record (undefined: 404). */
let connections: ((request: IncomingMessage, response: ServerResponse) => void)[] = [];
let runRecord: Record<string, unknown> | undefined;
const lastEventIds: (string | undefined)[] = [];
let server: Server;
let folder = '';
let kubeconfig = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === STREAM) {
      lastEventIds.push(request.headers['last-event-id'] as string | undefined);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('retry: 3000\n\n');
      connections.shift()?.(request, response);
      return;
    }
    if (request.url === `/api/v1alpha1/projects/team-a/runs/${RUN}` && runRecord) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(runRecord));
      return;
    }
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: `run "${RUN}" not found in project "team-a"`, reason: 'RunNotFound' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  folder = await mkdtemp(join(tmpdir(), 'run-log-ends-'));
  kubeconfig = join(folder, 'config');
  await writeFile(
    kubeconfig,
    oneContextKubeconfig({
      // client-node (as kubectl) sends no credential over plain HTTP unless told the connection is insecure.
      cluster: {
        server: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        'insecure-skip-tls-verify': true,
      },
      user: { token: 'a-token' },
      namespace: 'team-a',
    }),
  );
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  await rm(folder, { recursive: true, force: true });
});

const line = (seq: number, text: string) => `id: ${seq}\ndata: ${text}\n\n`;
const event = (name: string, data: Record<string, unknown>) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

async function follow(): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await pluginMain(['runs', 'logs', RUN, '-f', '--kubeconfig', kubeconfig], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    isTerminal: false,
  });
  return { code, stdout, stderr };
}

describe('runs logs -f ends on each last event of the stream as docs/cli.md says', () => {
  it('resume: reconnects with Last-Event-ID and writes each line once', async () => {
    lastEventIds.length = 0;
    connections = [
      (_, response) =>
        response.end(line(1, 'one') + line(2, 'two') + event('resume', { reason: 'SlowConsumer', lastEventId: '2' })),
      (_, response) =>
        response.end(line(3, 'three') + event('end', { phase: 'Succeeded', message: '', statusMessage: 'applied' })),
    ];
    expect(await follow()).toEqual({ code: 0, stdout: 'one\ntwo\nthree\n', stderr: `run/${RUN} Succeeded: applied\n` });
    expect(lastEventIds).toEqual([undefined, '2']);
  });

  it("removed (LogRemoved): no reconnection; exits with the run's phase, saying the log was removed", async () => {
    lastEventIds.length = 0;
    runRecord = { id: RUN, phase: 'Failed' };
    const message = "the run's log was removed at 2026-11-28T12:00:00.000Z (RUN_LOG_RETENTION)";
    connections = [
      (_, response) =>
        response.end(line(1, 'one') + event('removed', { reason: 'LogRemoved', message, lastEventId: '1' })),
    ];
    expect(await follow()).toEqual({
      code: 1,
      stdout: 'one\n',
      stderr: `run/${RUN} Failed: the log stream ended with "removed": ${message}\n`,
    });
    expect(lastEventIds).toEqual([undefined]);
  });

  it('removed (RunRemoved): the outcome is unknown, exit 5', async () => {
    runRecord = undefined;
    const message = 'the run was removed (RUN_HISTORY_RETENTION)';
    connections = [
      (_, response) => response.end(event('removed', { reason: 'RunRemoved', message, lastEventId: '0' })),
    ];
    expect(await follow()).toEqual({
      code: 5,
      stdout: '',
      stderr: `error: run/${RUN} was removed before its end was seen: ${message}\n`,
    });
  });

  it("a last event the plugin does not know: the run's record decides, its phase or exit 3", async () => {
    runRecord = { id: RUN, phase: 'Cancelled' };
    connections = [(_, response) => response.end(event('archived', { message: 'moved to cold storage' }))];
    expect((await follow()).code).toBe(2);
    runRecord = { id: RUN, phase: 'Running' };
    connections = [(_, response) => response.end(event('archived', { message: 'moved to cold storage' }))];
    expect(await follow()).toMatchObject({
      code: 3,
      stderr: `error: the log stream of run/${RUN} ended with "archived": moved to cold storage\n`,
    });
  });
});

describe('Issue 44, item 8: a server sending a line longer than the limit (1 MiB) is refused', () => {
  it('ends with the error and exit 3, without reconnecting, while the server still sends', async () => {
    lastEventIds.length = 0;
    connections = [
      (_, response) => {
        // A hostile line that never ends: 4 MiB are on their way when the plugin must already have stopped.
        response.write('data: ');
        for (let sent = 0; sent < 4 * 1024 * 1024; sent += 64 * 1024) response.write('a'.repeat(64 * 1024));
      },
    ];
    const followed = await follow();
    expect(followed).toMatchObject({ code: 3, stdout: '' });
    expect(followed.stderr).toMatch(/^error: the server sent an event-stream line or event longer than 1 MiB/);
    expect(lastEventIds).toEqual([undefined]);
  });
});
