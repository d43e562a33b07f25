// Issue 44, item 3: `kubectl platform runs logs -f` (and `runs start --follow`, which follows the
// same way) says once on standard error that no controller has claimed the run, when it waited 30 s
// unclaimed. Against a stand-in server whose run record is Pending with no attempt, created 40 s
// ago; its log stream stays open (no line, as for a run nobody claims) until the notice was
// written, then ends the run. The plugin runs in this process, with a kubeconfig naming the server.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginMain } from '../../../cli/plugin-main.ts';
import { oneContextKubeconfig } from '../../support/plugin-cli.ts';

const RUN = '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a32';
let record: Record<string, unknown> = {};
let stream: ServerResponse | undefined;
let noticeWritten = false;
const END = `id: 1\ndata: planned\n\nevent: end\ndata: ${JSON.stringify({ phase: 'Succeeded' })}\n\n`;
/** The run ends once the notice was written and the stream is open, whichever comes last. */
const endRunWhenNoticed = () => {
  if (noticeWritten && stream && !stream.writableEnded) stream.end(END);
};
let server: Server;
let folder = '';
let kubeconfig = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === `/api/v1alpha1/run-logs/team-a/${RUN}`) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('retry: 3000\n\n');
      stream = response;
      endRunWhenNoticed();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  folder = await mkdtemp(join(tmpdir(), 'unclaimed-follow-'));
  kubeconfig = join(folder, 'config');
  await writeFile(
    kubeconfig,
    oneContextKubeconfig({
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

describe('Issue 44, item 3: following a run no controller claims says so once', () => {
  it('writes "no controller has claimed this run for 40 s" to stderr once, the log untouched', async () => {
    record = { id: RUN, phase: 'Pending', attempts: 0, createdAt: new Date(Date.now() - 40_000).toISOString() };
    let stdout = '';
    let stderr = '';
    const notice = 'no controller has claimed this run for';
    const followed = pluginMain(['runs', 'logs', RUN, '-f', '--kubeconfig', kubeconfig], {
      stdout: (text) => (stdout += text),
      stderr: (text) => {
        stderr += text;
        // The run ends only once the notice was written: the stand-in's controller "arrives".
        noticeWritten = stderr.includes(notice);
        endRunWhenNoticed();
      },
      isTerminal: false,
    });
    expect(await followed).toBe(0);
    expect(stdout).toBe('planned\n');
    expect(stderr.split(notice)).toHaveLength(2);
    expect(stderr).toMatch(new RegExp(`^run/${RUN}: ${notice} 4\\d s; is a workspace controller running\\?`));
  });
});
