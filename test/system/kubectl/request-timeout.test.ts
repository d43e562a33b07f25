// Issue 38, item 5: `kubectl --request-timeout=20s delete workspace x` failed. client-go sends `?timeout=20s`
// on every request, and the delete route answered 400 "query parameters not supported on delete: timeout";
// the run routes refused it too. The real kubectl (1.33) with --request-timeout, over HTTPS, as the admin:
// apply, get, a server-side apply, auth can-i, get -w, delete; and the run routes with the same `timeout`.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { RecordedRequest } from '../../../infra/kube-emulator/index.ts';
import {
  expectStatus,
  GROUP,
  send,
  TEAM_PROJECT,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { eventually, useAdminKubectl } from '../../support/kubectl-cli.ts';

const capture = new AuditCapture();
const platform = usePlatform({}, { tls: true, auditSinks: [capture] });
const admin = useAdminKubectl(platform);
const TIMEOUT = ['--request-timeout=20s'];

/** A Workspace manifest in a file of its own. */
async function manifest(name: string): Promise<string> {
  const object = workspaceObject(name) as { metadata: Record<string, unknown> };
  object.metadata = { name, namespace: TEAM_PROJECT };
  const file = join(tmpdir(), `request-timeout-${name}-${process.pid}.yaml`);
  await writeFile(file, toYaml(object));
  return file;
}

describe('kubectl --request-timeout=20s works as without it (client-go sends ?timeout=20s on every request)', () => {
  it('apply creates, get reads, delete deletes, each with the timeout the server received', async () => {
    const seen: RecordedRequest[] = [];
    const stop = platform().cluster.emulator.observeRequests((request) => seen.push(request));
    try {
      expect(await admin().ok([...TIMEOUT, 'apply', '-f', await manifest('timed')])).toContain(
        `workspace.${GROUP}/timed created`,
      );
      expect(await admin().ok([...TIMEOUT, 'get', 'workspace', 'timed', '-n', TEAM_PROJECT, '-o', 'name'])).toBe(
        `workspace.${GROUP}/timed\n`,
      );
      expect(
        await admin().ok([...TIMEOUT, 'apply', '--server-side', '-f', await manifest('timed-server-side')]),
      ).toContain('serverside-applied');
      expect(await admin().ok([...TIMEOUT, 'delete', 'workspace', 'timed', '-n', TEAM_PROJECT])).toContain(
        `workspace.${GROUP} "timed" deleted`,
      );
    } finally {
      stop();
    }
    expect(
      await platform().clusterAdmin.find(`/apis/${GROUP}/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces/timed`),
    ).toBeUndefined();
    // kubectl sent it (the delete's event records the request as received); the chain read it, and it is
    // not an option passed on to the cluster.
    const deletes = capture.events.filter((event) => event.verb === 'delete' && event.objectRef?.name === 'timed');
    expect(deletes.map((event) => new URL(event.requestURI, 'https://x').searchParams.get('timeout'))).toContain('20s');
    expect(seen.filter((request) => request.rawUrl.includes('timeout='))).toEqual([]);
  });

  it('auth can-i and a watch take it too', async () => {
    expect(await admin().ok([...TIMEOUT, 'auth', 'can-i', 'create', 'workspaces', '-n', TEAM_PROJECT])).toBe('yes\n');
    const watch = admin().start([...TIMEOUT, 'get', 'workspaces', '-n', TEAM_PROJECT, '-w']);
    try {
      await admin().ok([...TIMEOUT, 'apply', '-f', await manifest('watched-timed')]);
      await eventually(
        () => watch.output().includes('watched-timed'),
        () => watch.output(),
      );
    } finally {
      watch.kill();
    }
  });
});

describe('The run routes honour the same timeout (a client with a kubeconfig calls them too)', () => {
  it('start, list and read a run with ?timeout=20s', async () => {
    const { url } = platform().gateway;
    const { admin: token } = platform().tokens;
    await send(
      url,
      token,
      'POST',
      `/apis/${GROUP}/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject('runs-timed'),
    ).then(expectStatus(201));
    const run = await send(
      url,
      token,
      'POST',
      `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/runs-timed/runs?timeout=20s`,
      { type: 'plan' },
    ).then(expectStatus(201));
    const list = await send(url, token, 'GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs?timeout=20s&limit=5`).then(
      expectStatus(200),
    );
    expect(list.items.map((item: { id: string }) => item.id)).toContain(run.id);
    await send(url, token, 'GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${run.id}?timeout=20s`).then(
      expectStatus(200),
    );
    await send(url, token, 'POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${run.id}/cancel?timeout=20s`).then(
      expectStatus(200),
    );
  });
});
