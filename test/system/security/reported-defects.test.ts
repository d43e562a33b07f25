// The defects reported against the privilege boundary, each reproduced exactly as reported (paths sent as-is,
// as `curl --path-as-is` sends them), with the rule each one broke. Streams ending with their token: see
// test/runs (run-log streams).
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { startKubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { MAX_JSON_DEPTH } from '../../../shared/base/json/json-document.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, silentLogger, spawnFunctionProcess } from '../../support/function-servers.ts';
import { rawRequest } from '../../support/raw-http.ts';
import { clusterAudit } from '../../support/cluster-audit.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const inTeam = `${API}/namespaces/${TEAM_PROJECT}`;
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';

const admin = (method: string, path: string, body?: unknown, contentType?: string) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, body, contentType);
const raw = (method: string, path: string, body?: string, contentType = 'application/json') =>
  rawRequest(
    platform().gateway.url,
    method,
    path,
    {
      authorization: `Bearer ${platform().tokens.admin}`,
      ...(body !== undefined ? { 'content-type': contentType } : {}),
    },
    body,
  );

function rollout(name: string) {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Rollout',
    metadata: { name },
    spec: { revision: 'abc', stages: [{ workspace: 'ws' }] },
  };
}

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('Defect 1: a dot-segment name never becomes a collection request', () => {
  it('DELETE .../rollouts/%2e is a 400 and every Rollout survives (it answered 200 with a RolloutList and deleted them all)', async () => {
    for (const name of ['keep-1', 'keep-2'])
      await admin('POST', `${inTeam}/rollouts`, rollout(name)).then(expectStatus(201));
    for (const segment of ['%2e', '.', '%2e%2e', '..']) {
      const answer = await raw('DELETE', `${inTeam}/rollouts/${segment}`);
      expect(answer.status, segment).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    }
    const left = await admin('GET', `${inTeam}/rollouts`).then(expectStatus(200));
    expect(left.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(
      expect.arrayContaining(['keep-1', 'keep-2']),
    );
  });

  it('GET .../variablesets/%2e and namespaces/%2e%2e/workspaces are 400s, not lists', async () => {
    expect((await raw('GET', `${inTeam}/variablesets/%2e`)).status).toBe(400);
    expect((await raw('GET', `${API}/namespaces/%2e%2e/workspaces`)).status).toBe(400);
    expect((await raw('GET', `${API}/namespaces/../workspaces`)).status).toBe(400);
  });

  it('POST .../workspaces/%2e/runs creates no run (it created one in a Workspace that does not exist)', async () => {
    const database = new pg.Client({ connectionString: platform().database.connectionString });
    await database.connect();
    try {
      const count = async () => Number((await database.query('SELECT count(*) FROM runs')).rows[0].count);
      const before = await count();
      const answer = await raw(
        'POST',
        `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/%2e/runs`,
        JSON.stringify({ type: 'plan' }),
      );
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ reason: 'InvalidPathParameter' });
      expect(await count()).toBe(before);
    } finally {
      await database.end();
    }
  });

  it("the server's Kubernetes client sends paths as built, never resolving dot segments, and refuses to send one", async () => {
    const emulator = await startKubeEmulator();
    try {
      const client = new KubernetesRestClient(emulator.kubeConfig(), silentLogger);
      const { executed } = await clusterAudit(emulator).during(() =>
        client.call({ method: 'GET', path: '/api/v1/namespaces/default/secrets/a.b' }),
      );
      expect(executed.map((request) => request.rawUrl)).toEqual(['/api/v1/namespaces/default/secrets/a.b']);
      for (const path of [
        '/api/v1/namespaces/default/secrets/.',
        '/api/v1/namespaces/default/secrets/%2e%2e',
        '/api/v1/namespaces/./secrets/x',
      ]) {
        const { executed: sent } = await clusterAudit(emulator).during(() =>
          client.call({ method: 'DELETE', path }).then(
            () => 'sent',
            () => 'refused',
          ),
        );
        expect(sent, path).toEqual([]);
      }
    } finally {
      await emulator.close();
    }
  });
});

describe('Defect 2: a sensitive VariableSet value is never stored in clear, whatever the patch', () => {
  it('the reported JSON patch (add a sensitive variable, copy its value to spec.description) is a 422 and stores nothing', async () => {
    await admin('POST', `${inTeam}/variablesets`, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'reported' },
      spec: {},
    }).then(expectStatus(201));
    const patch = [
      { op: 'add', path: '/spec', value: { variables: [{ name: 'k', sensitive: true, value: 's3cret' }] } },
      { op: 'copy', from: '/spec/variables/0/value', path: '/spec/description' },
    ];
    const answer = await admin('PATCH', `${inTeam}/variablesets/reported`, patch, JSON_PATCH).then(expectStatus(422));
    expect(JSON.stringify(answer)).not.toContain('s3cret');
    expect(JSON.stringify(await platform().clusterAdmin.find(`${inTeam}/variablesets/reported`))).not.toContain(
      's3cret',
    );
  });
});

describe('Defect 4: input never reaches a 500', () => {
  it(`a JSON body nested deeper than ${MAX_JSON_DEPTH} levels is a 400 JsonNestingTooDeep on create, PUT and PATCH (it ran the stack out at 100,000)`, async () => {
    await admin('POST', `${inTeam}/workspaces`, workspaceObject('deep')).then(expectStatus(201));
    const deep = `{"apiVersion":"${GROUP}/v1alpha1","kind":"Workspace","metadata":{"name":"deep"},"spec":${nested(100_000)}}`;
    for (const [method, path, contentType] of [
      ['POST', `${inTeam}/workspaces`, 'application/json'],
      ['PUT', `${inTeam}/workspaces/deep`, 'application/json'],
      ['PATCH', `${inTeam}/workspaces/deep`, MERGE_PATCH],
    ] as const) {
      const answer = await raw(method, path, deep, contentType);
      expect(answer.status, method).toBe(400);
      expect(JSON.parse(answer.text), method).toMatchObject({ kind: 'Status', reason: 'JsonNestingTooDeep' });
    }
    const runBody = `{"type":"plan","message":${nested(MAX_JSON_DEPTH + 1)}}`;
    const run = await raw('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/deep/runs`, runBody);
    expect(run.status).toBe(400);
    expect(JSON.parse(run.text)).toMatchObject({ reason: 'JsonNestingTooDeep' });
  });

  it(`nesting up to ${MAX_JSON_DEPTH} levels is accepted, and brackets inside strings do not count`, async () => {
    const labels = { note: '['.repeat(500) };
    const patch = `{"metadata":{"annotations":{"deep":${JSON.stringify(JSON.stringify(labels))}}},"spec":{"x":${nested(MAX_JSON_DEPTH - 3)}}}`;
    const answer = await raw('PATCH', `${inTeam}/workspaces/deep`, patch, MERGE_PATCH);
    expect(answer.status, answer.text.slice(0, 200)).toBeLessThan(500);
    expect(JSON.parse(answer.text).reason).not.toBe('JsonNestingTooDeep');
  });

  it('a continue token holding a date PostgreSQL cannot store (year 0, +275760) is a 400 InvalidContinueToken', async () => {
    for (const createdAt of [
      '0000-01-01T00:00:00.000Z',
      '+275760-09-13T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '-000001-01-01T00:00:00.000Z',
    ]) {
      const token = Buffer.from(
        JSON.stringify({ v: 1, c: createdAt, i: '0190f4c8-0000-7000-8000-000000000000' }),
      ).toString('base64url');
      const answer = await admin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs?continue=${token}`).then(
        expectStatus(400),
      );
      expect(answer, createdAt).toMatchObject({ reason: 'InvalidContinueToken' });
    }
  });
});

describe('Defect 5: the built-in cluster treats __proto__, constructor and prototype as plain data', () => {
  it('a JSON patch through /__proto__ is refused and pollutes nothing; a later test of /metadata/polluted fails as it should', async () => {
    await admin('POST', `${inTeam}/workspaces`, workspaceObject('proto')).then(expectStatus(201));
    await admin(
      'PATCH',
      `${inTeam}/workspaces/proto`,
      [{ op: 'add', path: '/__proto__/polluted', value: 'yes' }],
      JSON_PATCH,
    ).then(expectStatus(422));
    await admin(
      'PATCH',
      `${inTeam}/workspaces/proto`,
      [{ op: 'add', path: '/metadata/__proto__/polluted', value: 'yes' }],
      JSON_PATCH,
    ).then(expectStatus(422));
    await admin(
      'PATCH',
      `${inTeam}/workspaces/proto`,
      { __proto__: { polluted: 'yes' }, metadata: { constructor: { prototype: { polluted: 'yes' } } } },
      MERGE_PATCH,
    ).then(expectStatus(200));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await admin('POST', `${inTeam}/workspaces`, workspaceObject('unrelated')).then(expectStatus(201));
    await admin(
      'PATCH',
      `${inTeam}/workspaces/unrelated`,
      [{ op: 'test', path: '/metadata/polluted', value: 'yes' }],
      JSON_PATCH,
    ).then(expectStatus(422));
  });

  it('the same patches sent to the cluster directly are refused or kept as data, never followed', async () => {
    const cluster = platform().clusterAdmin;
    await cluster
      .send({
        method: 'PATCH',
        path: `${inTeam}/workspaces/proto`,
        body: [{ op: 'add', path: '/spec/__proto__', value: { polluted: 'yes' } }],
        contentType: JSON_PATCH,
      })
      .catch(() => undefined);
    await cluster
      .send({
        method: 'PATCH',
        path: `${inTeam}/workspaces/proto`,
        body: [{ op: 'add', path: '/constructor/prototype/polluted', value: 'yes' }],
        contentType: JSON_PATCH,
      })
      .catch(() => undefined);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('Defect 6: a status sent on create is dropped for kinds with a status subresource', () => {
  it('a Workspace created with status.phase Applied has no such status', async () => {
    const created = await admin('POST', `${inTeam}/workspaces`, {
      ...workspaceObject('forged'),
      status: { phase: 'Applied' },
    }).then(expectStatus(201));
    expect(created.status?.phase).not.toBe('Applied');
    const stored = await platform().clusterAdmin.find<{ status?: { phase?: string } }>(`${inTeam}/workspaces/forged`);
    expect(stored?.status?.phase).not.toBe('Applied');
  });

  it('a Project created with a forged Ready condition keeps only the status the server writes', async () => {
    const forged = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Project',
      metadata: { name: 'forged-ready' },
      spec: { displayName: 'x' },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Forged' }] },
    };
    const created = await admin('POST', `${API}/projects`, forged).then(expectStatus(201));
    expect(JSON.stringify(created.status ?? {})).not.toContain('Forged');
    expect(created.status).toMatchObject({ phase: 'Active', namespace: 'forged-ready' });
  });
});

describe('Defect 7: refusals before any handler are JSON, and a bad LOG_LEVEL stops start-up', () => {
  it('431 for headers over the limit carries a JSON body with a reason', async () => {
    const answer = await rawRequest(platform().gateway.url, 'GET', '/healthz', { 'x-filler': 'x'.repeat(40_000) });
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text)).toEqual({
      error: expect.stringContaining('bytes'),
      reason: 'RequestHeaderFieldsTooLarge',
    });
  });

  it('LOG_LEVEL=verbose stops the container entry with a message naming the variable (it fell back to info)', async () => {
    const child = spawn(process.execPath, ['knative/server.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        PORT: '0',
        FUNCTION_TARGET: 'login',
        LOG_LEVEL: 'verbose',
        ...adminEnv(),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('LOG_LEVEL');
    expect(output).toContain('verbose');
  });

  it('every named level still starts', async () => {
    const child = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login', LOG_LEVEL: 'warn' });
    try {
      expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
    } finally {
      await child.stop();
    }
  });
});
