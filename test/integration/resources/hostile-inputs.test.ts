// "Bad input gets a clear 4xx JSON error and nothing is lost; a 500 is a bug": a matrix of
// malformed paths (dot segments among them, sent as-is), queries, bodies (deep nesting among them),
// content types and credentials against every route family; each test checks that what the cluster
// and the database hold is unchanged afterwards.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../shared/base/json/json-document.ts';
import { rawRequest, type RawAnswer } from '../../support/raw-http.ts';
import { API, GROUP, TEAM_PROJECT, send, usePlatform, workspaceObject } from '../../support/platform-fixture.ts';

const platform = usePlatform();

/** Dot segments as a hostile client sends them: raw or percent-encoded, never resolved on the way. */
const DOT_SEGMENTS = ['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2E', '.%2e', '%2e.'];
const RUN_ID = '0190f4c8-0000-7000-8000-000000000000';

const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nestedArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const PATHS = [
  `${API}/projects`,
  `${API}/projects/%zz`,
  `${API}/projects/${'a'.repeat(3000)}`,
  `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
  `${API}/namespaces/%00/workspaces/x`,
  `${API}/namespaces/${TEAM_PROJECT}/variablesets/nope`,
  `${API}/namespaces/${TEAM_PROJECT}/rollouts/x/status`,
  `${API}/workspaces`,
  `/api/v1alpha1/projects/${TEAM_PROJECT}/runs`,
  `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/not-a-uuid`,
  `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/x/runs`,
  '/api/v1alpha1/run-logs/x/not-a-uuid',
  '/internal/runs/not-a-uuid/phase',
  '/internal/runs/not-a-uuid/logs',
  '/%',
  '/..%2f..%2fetc/passwd',
  `${API}/projects/..`,
  `${API}/namespaces/%2e%2e/workspaces/x`,
  `${API}/namespaces/${TEAM_PROJECT}/workspaces/.`,
  `${API}/namespaces/${TEAM_PROJECT}/variablesets/%2e%2e/status`,
  `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/%2e/runs`,
  `/internal/runs/../phase`,
];
const QUERIES = [
  '',
  '?limit=-1',
  '?limit=abc',
  '?limit=99999999999',
  '?continue=%25%25',
  '?continue=eyJ4IjoxfQ',
  '?labelSelector=!!!',
  '?labelSelector=a+in+(',
  '?fieldSelector=spec.x%3D1',
  '?phase=Bogus',
];
const BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"x"',
  '{"type":"destroy"}',
  '{"apiVersion":"v1","kind":"Pod"}',
  '{"metadata":{"name":"Bad_Name"}}',
  '{"spec":{"variables":[{"name":"a","value":1}]}}',
  '{"phase":"Sleeping"}',
  '{"lines":"notalist"}',
  '[{"op":"remove","path":"/metadata"}]',
  nestedObject(MAX_JSON_DEPTH + 1),
  nestedArray(MAX_JSON_DEPTH + 1),
  nestedObject(10_000),
];
const CONTENT_TYPES = ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'text/plain'];

type Principal = 'admin' | 'serviceAccount' | 'oidcUser' | 'controller';

/** Sends the path exactly as written (dot segments unresolved), as `principal`. */
function hostile(
  principal: Principal,
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
): Promise<RawAnswer> {
  const headers = {
    authorization: `Bearer ${platform().tokens[principal]}`,
    ...(body !== undefined ? { 'content-type': contentType } : {}),
  };
  return rawRequest(platform().gateway.url, method, path, headers, body);
}

/** What the cluster and the database hold: every object of the platform's kinds, namespaces and Secrets (with resourceVersion), and every run. */
async function state(): Promise<Record<string, string[]>> {
  const lists = [
    ...['projects', 'workspaces', 'rollouts', 'variablesets'].map((plural) => `/apis/${GROUP}/v1alpha1/${plural}`),
    '/api/v1/namespaces',
    '/api/v1/secrets',
  ];
  const held: Record<string, string[]> = {};
  for (const path of lists) {
    const list = await platform().clusterAdmin.find<{
      items: Array<{ metadata: { namespace?: string; name: string; resourceVersion: string } }>;
    }>(path);
    held[path] = list!.items
      .map(({ metadata }) => `${metadata.namespace ?? ''}/${metadata.name}@${metadata.resourceVersion}`)
      .sort();
  }
  held.runs = (await platform().database.pool.query('SELECT id, phase, attempts FROM runs ORDER BY id')).rows.map(
    (row) => JSON.stringify(row),
  );
  return held;
}

/** Runs `requests` and checks that afterwards the cluster and the database hold exactly what they held before. */
async function expectNothingChanged(requests: () => Promise<void>): Promise<void> {
  const before = await state();
  await requests();
  expect(await state()).toEqual(before);
}

/** A refusal with its JSON error: `{"error","reason"}`, or a Kubernetes Status (message, reason) on resource routes. */
function expectJsonError(answer: RawAnswer, where: string): { reason: string } {
  const body = JSON.parse(answer.text) as { error?: unknown; message?: unknown; reason?: unknown; kind?: unknown };
  expect(typeof (body.kind === 'Status' ? body.message : body.error), where).toBe('string');
  expect(typeof body.reason, where).toBe('string');
  return body as { reason: string };
}

const describeRequest = (method: string, path: string, body?: string) =>
  `${method} ${path.slice(0, 80)} ${JSON.stringify(body ?? '').slice(0, 40)}`;

describe('Hostile input: every malformed request gets a 4xx with a JSON error and reason, never a 5xx, and changes nothing', () => {
  it.each(['admin', 'serviceAccount', 'oidcUser'] as const)('malformed paths and queries, as %s', async (principal) => {
    await expectNothingChanged(async () => {
      for (const path of PATHS)
        for (const query of QUERIES) {
          const answer = await hostile(principal, 'GET', path + query);
          const where = describeRequest('GET', path + query);
          expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBeLessThan(500);
          if (answer.status >= 400) expectJsonError(answer, where);
        }
    });
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'malformed bodies and content types on %s, as admin and as the controller: every one refused with a 4xx',
    async (method) => {
      await expectNothingChanged(async () => {
        for (const principal of ['admin', 'controller'] as const) {
          for (const path of PATHS)
            for (const body of BODIES)
              for (const contentType of CONTENT_TYPES) {
                const answer = await hostile(principal, method, path, body, contentType);
                const where = `${principal} ${describeRequest(method, path, body)} ${contentType}`;
                expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
                expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBeLessThan(500);
                expectJsonError(answer, where);
              }
        }
      });
    },
  );

  it('malformed credentials are 401 with a reason', async () => {
    const admin = platform().tokens.admin;
    for (const authorization of [
      'Bearer',
      'Bearer a.b.c',
      `Bearer ${admin}x`,
      `Bearer ${'x'.repeat(10_000)}`,
      'Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.',
      'Basic YTpi',
    ]) {
      const response = await fetch(`${platform().gateway.url}${API}/projects`, { headers: { authorization } });
      expect(response.status, authorization.slice(0, 30)).toBe(401);
      expect(((await response.json()) as { reason: string }).reason).toEqual(expect.any(String));
    }
  });
});

const inTeam = `${API}/namespaces/${TEAM_PROJECT}`;
const workspaceBody = (name: string) => JSON.stringify(workspaceObject(name));

/** Creates the Workspace the requests name, unless an earlier test of this file already did. */
async function ensureWorkspace(name: string): Promise<void> {
  const response = await send(
    platform().gateway.url,
    platform().tokens.admin,
    'POST',
    `${inTeam}/workspaces`,
    workspaceObject(name),
  );
  expect([201, 409], await response.text()).toContain(response.status);
}

/** Requests with one path parameter set to `segment`, each with a body the route would otherwise take. */
function dotSegmentRequests(
  segment: string,
): Array<{ method: string; path: string; body?: string; statusErrors: boolean }> {
  const resource = (method: string, path: string, body?: string) => ({
    method,
    path,
    ...(body !== undefined ? { body } : {}),
    statusErrors: true,
  });
  const platformRoute = (method: string, path: string, body?: string) => ({
    method,
    path,
    ...(body !== undefined ? { body } : {}),
    statusErrors: false,
  });
  return [
    resource('GET', `${API}/projects/${segment}`),
    resource(
      'PUT',
      `${API}/projects/${segment}`,
      JSON.stringify({ apiVersion: `${GROUP}/v1alpha1`, kind: 'Project', metadata: { name: TEAM_PROJECT }, spec: {} }),
    ),
    resource('DELETE', `${API}/projects/${segment}`),
    resource('GET', `${inTeam}/workspaces/${segment}`),
    resource('PUT', `${inTeam}/workspaces/${segment}`, workspaceBody('hostile-dots')),
    resource('PATCH', `${inTeam}/variablesets/${segment}`, '{}'),
    resource('DELETE', `${inTeam}/rollouts/${segment}`),
    resource('PUT', `${inTeam}/workspaces/${segment}/status`, workspaceBody('hostile-dots')),
    resource('GET', `${API}/namespaces/${segment}/workspaces`),
    resource('POST', `${API}/namespaces/${segment}/workspaces`, workspaceBody('hostile-dots')),
    resource('DELETE', `${API}/namespaces/${segment}/variablesets/x`),
    resource('GET', `/api/v1/namespaces/${segment}`),
    platformRoute('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${segment}/runs`, '{"type":"plan"}'),
    platformRoute('POST', `/api/v1alpha1/projects/${segment}/workspaces/hostile-dots/runs`, '{"type":"plan"}'),
    platformRoute('GET', `/api/v1alpha1/projects/${segment}/runs`),
    platformRoute('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${segment}`),
    platformRoute('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${segment}/cancel`),
    platformRoute('GET', `/api/v1alpha1/run-logs/${segment}/${RUN_ID}`),
  ];
}

describe('Dot-segment names (`.`, `..`, `%2e%2e`, …) are refused where the route matches: exactly 400, and nothing changes', () => {
  it.each(DOT_SEGMENTS)('%s in a name, a namespace, a Project, a Workspace or a run id', async (segment) => {
    await ensureWorkspace('hostile-dots');
    await expectNothingChanged(async () => {
      for (const { method, path, body, statusErrors } of dotSegmentRequests(segment)) {
        const answer = await hostile('admin', method, path, body);
        const where = describeRequest(method, path, body);
        expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBe(400);
        expect(expectJsonError(answer, where).reason, where).toBe(statusErrors ? 'BadRequest' : 'InvalidPathParameter');
      }
    });
  });

  it.each(DOT_SEGMENTS)("%s as a run id on the controller's /internal routes", async (segment) => {
    await expectNothingChanged(async () => {
      for (const [method, path, body] of [
        ['POST', `/internal/runs/${segment}/phase`, '{"phase":"Running"}'],
        ['POST', `/internal/runs/${segment}/logs`, '{"lines":["x"]}'],
        ['POST', `/internal/runs/${segment}/lease`, '{}'],
        ['GET', `/internal/runs/${segment}/variables`, undefined],
      ] as const) {
        const answer = await hostile('controller', method, path, body);
        const where = describeRequest(method, path, body);
        expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBe(400);
        expect(expectJsonError(answer, where).reason, where).toBe('InvalidPathParameter');
      }
    });
  });
});

describe(`Deeply nested bodies (deeper than ${MAX_JSON_DEPTH} levels, objects or arrays) are exactly 400 JsonNestingTooDeep on every route that reads a body, and nothing changes`, () => {
  it.each([
    ['an object', nestedObject],
    ['an array', nestedArray],
  ])('nested %s', async (_shape, nested) => {
    await ensureWorkspace('hostile-deep');
    const workspace = (depth: number) =>
      `{"apiVersion":"${GROUP}/v1alpha1","kind":"Workspace","metadata":{"name":"hostile-deep"},"spec":{"x":${nested(depth)}}}`;
    await expectNothingChanged(async () => {
      for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
        for (const [principal, method, path, body, contentType] of [
          ['admin', 'POST', `${inTeam}/workspaces`, workspace(depth), 'application/json'],
          ['admin', 'PUT', `${inTeam}/workspaces/hostile-deep`, workspace(depth), 'application/json'],
          ['admin', 'PUT', `${inTeam}/workspaces/hostile-deep/status`, workspace(depth), 'application/json'],
          [
            'admin',
            'PATCH',
            `${inTeam}/workspaces/hostile-deep`,
            `{"spec":{"x":${nested(depth)}}}`,
            'application/merge-patch+json',
          ],
          [
            'admin',
            'PATCH',
            `${inTeam}/workspaces/hostile-deep`,
            `[{"op":"add","path":"/spec/x","value":${nested(depth)}}]`,
            'application/json-patch+json',
          ],
          [
            'admin',
            'POST',
            `${API}/projects`,
            `{"apiVersion":"${GROUP}/v1alpha1","kind":"Project","metadata":{"name":"hostile-deep"},"spec":${nested(depth)}}`,
            'application/json',
          ],
          [
            'admin',
            'POST',
            `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/hostile-deep/runs`,
            `{"type":"plan","message":${nested(depth)}}`,
            'application/json',
          ],
          [
            'controller',
            'POST',
            `/internal/runs/${RUN_ID}/phase`,
            `{"phase":"Running","message":${nested(depth)}}`,
            'application/json',
          ],
          ['controller', 'POST', `/internal/runs/${RUN_ID}/logs`, `{"lines":${nested(depth)}}`, 'application/json'],
          ['controller', 'POST', '/internal/runs/claim', `{"x":${nested(depth)}}`, 'application/json'],
        ] as const) {
          const answer = await hostile(principal, method, path, body, contentType);
          const where = `${depth} levels: ${describeRequest(method, path)}`;
          expect(answer.status, `${where} → ${answer.text.slice(0, 200)}`).toBe(400);
          expect(expectJsonError(answer, where).reason, where).toBe('JsonNestingTooDeep');
        }
      }
    });
  });
});
