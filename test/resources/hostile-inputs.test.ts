// "Bad input gets a clear 4xx JSON error and nothing is lost; a 500 is a bug": a matrix of
// malformed paths, queries, bodies, content types and credentials against every route family.
import { describe, expect, it } from 'vitest';
import { API, TEAM_PROJECT, usePlatform } from './platform-fixture.ts';

const platform = usePlatform();

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
];
const QUERIES = ['', '?limit=-1', '?limit=abc', '?limit=99999999999', '?continue=%25%25', '?continue=eyJ4IjoxfQ', '?labelSelector=!!!', '?labelSelector=a+in+(', '?fieldSelector=spec.x%3D1', '?phase=Bogus'];
const BODIES = ['', '{', 'null', '[]', '"x"', '{"type":"destroy"}', '{"apiVersion":"v1","kind":"Pod"}', '{"metadata":{"name":"Bad_Name"}}', '{"spec":{"variables":[{"name":"a","value":1}]}}', '{"phase":"Sleeping"}', '{"lines":"notalist"}', '[{"op":"remove","path":"/metadata"}]'];
const CONTENT_TYPES = ['application/json', 'application/merge-patch+json', 'application/json-patch+json', 'text/plain'];

async function expectClearAnswer(method: string, path: string, init: RequestInit): Promise<void> {
  const response = await fetch(`${platform().gateway.url}${path}`, { method, ...init });
  const text = await response.text();
  const where = `${method} ${path.slice(0, 80)} ${JSON.stringify(init.body ?? '').slice(0, 40)}`;
  expect(response.status, `${where} → ${text.slice(0, 200)}`).toBeLessThan(500);
  if (response.status >= 400) {
    const body = JSON.parse(text) as { error?: unknown; reason?: unknown };
    expect(typeof body.error, where).toBe('string');
    expect(typeof body.reason, where).toBe('string');
  }
}

describe('Hostile input: every malformed request gets a 4xx with a JSON error and reason, never a 5xx', () => {
  it.each(['admin', 'serviceAccount', 'oidcUser'] as const)('malformed paths and queries, as %s', async (principal) => {
    const authorization = `Bearer ${platform().tokens[principal]}`;
    for (const path of PATHS) for (const query of QUERIES) await expectClearAnswer('GET', path + query, { headers: { authorization } });
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('malformed bodies and content types on %s, as admin and as the controller', async (method) => {
    for (const principal of ['admin', 'controller'] as const) {
      const authorization = `Bearer ${platform().tokens[principal]}`;
      for (const path of PATHS) for (const body of BODIES) for (const contentType of CONTENT_TYPES) {
        await expectClearAnswer(method, path, { headers: { authorization, 'content-type': contentType }, body });
      }
    }
  });

  it('malformed credentials are 401 with a reason', async () => {
    const admin = platform().tokens.admin;
    for (const authorization of ['Bearer', 'Bearer a.b.c', `Bearer ${admin}x`, `Bearer ${'x'.repeat(10_000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.', 'Basic YTpi']) {
      const response = await fetch(`${platform().gateway.url}${API}/projects`, { headers: { authorization } });
      expect(response.status, authorization.slice(0, 30)).toBe(401);
      expect(((await response.json()) as { reason: string }).reason).toEqual(expect.any(String));
    }
  });

  it('nothing was written by any of the rejected writes: the test Projects are the only ones', async () => {
    const response = await fetch(`${platform().gateway.url}${API}/projects`, { headers: { authorization: `Bearer ${platform().tokens.admin}` } });
    const names = ((await response.json()) as { items: Array<{ metadata: { name: string } }> }).items.map((item) => item.metadata.name).sort();
    expect(names).toEqual(['team-a', 'team-b']);
  });
});
