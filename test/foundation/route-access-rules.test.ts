// The access rules of the route table, checked on every route it declares (issue 15), not on one
// route each: an open route needs no token, every other route is 401 without one, and the
// `access_token` query parameter authenticates on the run-log stream and nowhere else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../shared/server/running-server.ts';
import { routeTable, type RouteDefinition } from '../../shared/routes/route-table.ts';
import { ADMIN_PASSWORD, adminEnv } from '../support/admin-fixtures.ts';
import { loginToken, startTestGateway } from '../support/function-servers.ts';

const ROUTES = routeTable('platform.dev');
const STREAM = ROUTES.find((route) => route.operationId === 'streamRunLogs')!;
const RUN_ID = '01936f3e-1b2c-7d4e-8f90-123456789abc';
const PARAMETER_VALUES: Record<string, string> = {
  namespace: 'team-a',
  project: 'team-a',
  name: 'web',
  workspace: 'web',
  run: RUN_ID,
};

/** One concrete request per method a route answers (`*` routes: each usual method), its parameters filled with valid names. */
function requestsOf(route: RouteDefinition): Array<[method: string, path: string, operationId: string]> {
  const path = route.path
    .replace(/\{([a-zA-Z]+)\}/g, (_, name: string) => PARAMETER_VALUES[name]!)
    .replace(/\/\*$/, '/some/path');
  const methods = route.method === '*' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [route.method];
  return methods.map((method) => [method, path, route.operationId]);
}

const protectedRequests = ROUTES.filter((route) => route.auth !== 'none').flatMap(requestsOf);
const headerOnlyRequests = ROUTES.filter((route) => route.auth === 'bearer').flatMap(requestsOf);

// One production-mode gateway (admin account only: no cluster, no database) for the HTTP checks.
let gateway: RunningServer;
let token: string;
beforeAll(async () => {
  gateway = await startTestGateway(adminEnv());
  token = await loginToken(gateway.url, ADMIN_PASSWORD);
});
afterAll(() => gateway.close());

describe('Every route not listed as unauthenticated requires a token: 401 without one, on every route of the table', () => {
  it.each(protectedRequests)(
    '%s %s (%s) without a token → 401 MissingToken with WWW-Authenticate: Bearer',
    async (method, path) => {
      const response = await fetch(`${gateway.url}${path}`, { method });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await response.json()).toEqual({ error: 'a bearer token is required', reason: 'MissingToken' });
    },
  );
});

describe('Fail closed: a path or method no route declares needs a valid token too (401 without, 404 or 405 with)', () => {
  it.each([
    ['GET', '/no/such/route'],
    ['DELETE', '/healthz'],
    ['GET', '/api/v1alpha1/auth/login'],
    ['GET', '/'],
  ])('%s %s without a token → 401 MissingToken', async (method, path) => {
    const response = await fetch(`${gateway.url}${path}`, { method });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await response.json()).toEqual({ error: 'a bearer token is required', reason: 'MissingToken' });
  });

  it('an unknown route with a valid token is 404, not 401', async () => {
    const response = await fetch(`${gateway.url}/no/such/route`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'NotFound' });
  });

  it('a malformed Authorization header is 401 MalformedAuthorizationHeader, not 500', async () => {
    for (const header of ['Token abc', 'Bearer', 'Bearer a b']) {
      const response = await fetch(`${gateway.url}/apis/platform.dev/v1alpha1/projects`, {
        headers: { authorization: header },
      });
      expect(response.status, header).toBe(401);
      expect(await response.json()).toMatchObject({ reason: 'MalformedAuthorizationHeader' });
    }
  });

  it('accepts the Bearer scheme in any case, with spaces around the token', async () => {
    for (const header of [`bearer ${token}`, `BEARER  ${token} `]) {
      const response = await fetch(`${gateway.url}/api/v1alpha1/auth/whoami`, { headers: { authorization: header } });
      expect(await response.json()).toEqual({ type: 'admin', name: 'admin' });
    }
  });
});

describe('access_token is accepted on the run-log stream only: every other route answers 401 to a valid token passed that way', () => {
  it.each(headerOnlyRequests)(
    '%s %s (%s) with ?access_token=<valid token> → 401 MissingToken',
    async (method, path) => {
      const response = await fetch(`${gateway.url}${path}?access_token=${token}`, { method });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'a bearer token is required', reason: 'MissingToken' });
    },
  );

  it.each(headerOnlyRequests)(
    '%s %s (%s) with the same token in the Authorization header gets past authentication (control)',
    async (method, path) => {
      const response = await fetch(`${gateway.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { reason?: string };
      expect(response.status).not.toBe(401);
      expect(['MissingToken', 'InvalidToken', 'UnknownIssuer']).not.toContain(body.reason);
    },
  );

  it('the run-log stream answers a token in access_token exactly as the same token in the header (503: no database here)', async () => {
    const [path] = requestsOf(STREAM).map(([, concrete]) => concrete);
    const expected = {
      status: 503,
      body: { error: 'the run history database is not configured (DATABASE_URL)', reason: 'DatabaseNotConfigured' },
    };
    const viaQuery = await fetch(`${gateway.url}${path}?access_token=${token}`);
    expect({ status: viaQuery.status, body: await viaQuery.json() }).toEqual(expected);
    const viaHeader = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect({ status: viaHeader.status, body: await viaHeader.json() }).toEqual(expected);
  });

  it('the run-log stream refuses an invalid access_token with 401 InvalidToken and an empty one with 401 MissingToken', async () => {
    const [path] = requestsOf(STREAM).map(([, concrete]) => concrete);
    const invalid = await fetch(`${gateway.url}${path}?access_token=garbage`);
    expect(invalid.status).toBe(401);
    expect(await invalid.json()).toMatchObject({ reason: 'InvalidToken' });
    const empty = await fetch(`${gateway.url}${path}?access_token=`);
    expect(empty.status).toBe(401);
    expect(await empty.json()).toMatchObject({ reason: 'MissingToken' });
  });

  it('a header token wins over access_token on the stream (a malformed header is refused, not bypassed by the query)', async () => {
    const [path] = requestsOf(STREAM).map(([, concrete]) => concrete);
    const response = await fetch(`${gateway.url}${path}?access_token=${token}`, {
      headers: { authorization: 'Token abc' },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'MalformedAuthorizationHeader' });
  });
});
