// Issue 44, item 15: `kubectl platform rollouts get -w` into a pipe (a CI log) printed the whole tree
// every 2 s, because the ages in it had moved. Off a terminal a new tree is printed only when what it
// shows changed; ages alone do not count. Against a stand-in server whose watch sends events on cue; the
// plugin runs in this process, with a kubeconfig naming the server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginMain } from '../../../cli/plugin-main.ts';
import { eventually } from '../../support/kubectl-cli.ts';
import { oneContextKubeconfig } from '../../support/plugin-cli.ts';

const RUN = '0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31';
const ROLLOUTS = '/apis/platform.dev/v1alpha1/namespaces/team-a/rollouts';
const startedAt = new Date(Date.now() - 10_000).toISOString();
const rollout = (phase: string) => ({
  apiVersion: 'platform.dev/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'net', namespace: 'team-a', creationTimestamp: startedAt, resourceVersion: '1' },
  spec: { revision: 'abc123', stages: [{ workspace: 'edge' }] },
  status: { phase: 'Progressing', currentStage: 0, stages: [{ workspace: 'edge', phase, runId: RUN }] },
});

let server: Server;
let watch: ServerResponse | undefined;
/** How often the plugin read the stage's run: once per drawing it considered. */
let runReads = 0;
let folder = '';
let kubeconfig = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    const json = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const url = request.url ?? '';
    if (url === '/apis')
      return json({
        items: [
          {
            metadata: { name: 'platform.dev' },
            versions: [
              { version: 'v1alpha1', resources: [{ resource: 'rollouts', responseKind: { kind: 'Rollout' } }] },
            ],
          },
        ],
      });
    if (url === `${ROLLOUTS}/net`) return json(rollout('Planning'));
    if (url.startsWith(`${ROLLOUTS}?watch=true`)) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      watch = response;
      return;
    }
    if (url === `/api/v1alpha1/projects/team-a/runs/${RUN}`) {
      runReads++;
      return json({ id: RUN, workspace: 'edge', type: 'plan', phase: 'Running', createdAt: startedAt });
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  folder = await mkdtemp(join(tmpdir(), 'rollout-watch-'));
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

describe('Issue 44, item 15: rollouts get -w in a pipe prints a new tree only when something changed', () => {
  it('ages moving over several refreshes print nothing; a changed stage prints one new tree', async () => {
    let stdout = '';
    let stderr = '';
    const drawings = () => stdout.split('Name:').length - 1;
    const exited = pluginMain(['rollouts', 'get', 'net', '-w', '--kubeconfig', kubeconfig], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      isTerminal: false,
    });
    // The first drawing, then three refreshes of the run (each 2 s later: the ages in seconds moved).
    await eventually(
      () => watch !== undefined && runReads >= 4,
      () => `${runReads} run reads\n${stdout}${stderr}`,
      60_000,
    );
    expect(drawings(), stdout).toBe(1);
    expect(stdout).toContain('◌ Planning');

    watch!.write(`${JSON.stringify({ type: 'MODIFIED', object: rollout('Applying') })}\n`);
    await eventually(
      () => drawings() === 2,
      () => stdout + stderr,
    );
    expect(stdout.split('\nName:').at(-1)).toContain('◌ Applying');
    watch!.end();
    expect(await exited).toBe(0);
    expect(drawings(), stdout).toBe(2);
  });
});
