import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../shared/server/running-server.ts';
import { routeTable } from '../../shared/routes/route-table.ts';
import { ADMIN_PASSWORD, adminEnv } from '../support/admin-fixtures.ts';
import { getWithToken, loginToken, spawnFunctionProcess, startTestGateway } from '../support/function-servers.ts';

// The spec's table "Unauthenticated routes", verbatim.
const SPEC_UNAUTHENTICATED = [
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/openapi.json'],
  ['GET', '/docs'],
  ['POST', '/api/v1alpha1/auth/login'],
  ['GET', '/api/v1alpha1/system/public-config'],
  ['*', '/bridge/*'],
];

describe('Unauthenticated routes: exactly the spec\'s list is open', () => {
  it('the route table marks exactly those routes as open', () => {
    const open = routeTable('platform.dev').filter((route) => route.auth === 'none').map((route) => [route.method, route.path]);
    expect(open.sort()).toEqual([...SPEC_UNAUTHENTICATED].sort());
  });

  let gateway: RunningServer;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv());
  });
  afterAll(() => gateway.close());

  it.each([['/healthz'], ['/readyz'], ['/openapi.json'], ['/docs'], ['/api/v1alpha1/system/public-config']])('GET %s answers 200 without a token', async (path) => {
    expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
  });

  it('everything under /bridge/ is reached without a token (404 here: no bridge is configured)', async () => {
    const response = await fetch(`${gateway.url}/bridge/auth?client_id=x`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'BridgeNotConfigured' });
  });

  it('a function reached under /bridge/ (the production gateway\'s fallback without a bridge) also answers 404 unauthenticated', async () => {
    const child = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'resources' });
    try {
      const response = await fetch(`${child.url}/bridge/.well-known/openid-configuration`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ reason: 'BridgeNotConfigured' });
    } finally {
      await child.stop();
    }
  });
});

describe('Every route not listed as unauthenticated requires a valid token; otherwise 401', () => {
  let gateway: RunningServer;
  let token: string;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv());
    token = await loginToken(gateway.url, ADMIN_PASSWORD);
  });
  afterAll(() => gateway.close());

  const protectedRequests = [
    ['GET', '/apis/platform.dev/v1alpha1/projects'],
    ['POST', '/apis/platform.dev/v1alpha1/projects'],
    ['GET', '/internal/runs'],
    ['POST', '/internal/anything/at/all'],
    ['GET', '/api/v1alpha1/run-logs/demo/run-1'],
    ['GET', '/no/such/route'],
    ['DELETE', '/healthz'],
    ['GET', '/api/v1alpha1/auth/login'],
    ['GET', '/'],
  ];

  it.each(protectedRequests)('%s %s without a token → 401 JSON with WWW-Authenticate: Bearer', async (method, path) => {
    const response = await fetch(`${gateway.url}${path}`, { method });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: expect.any(String), reason: 'MissingToken' });
  });

  it('an unknown route with a valid token is 404, not 401', async () => {
    const response = await getWithToken(gateway.url, '/no/such/route', token);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'NotFound' });
  });

  it('the access_token query parameter is not accepted outside the run-log stream', async () => {
    const response = await fetch(`${gateway.url}/apis/platform.dev/v1alpha1/projects?access_token=${token}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'MissingToken' });
  });

  it('the run-log stream accepts the token in access_token (the request gets past authentication)', async () => {
    const withQuery = await fetch(`${gateway.url}/api/v1alpha1/run-logs/demo/no-such-run?access_token=${token}`);
    // Past authentication: the answer is the handler's (no database in this gateway), not a 401.
    expect(withQuery.status).toBe(503);
    expect(await withQuery.json()).toMatchObject({ reason: 'DatabaseNotConfigured' });
    const withBadQuery = await fetch(`${gateway.url}/api/v1alpha1/run-logs/demo/no-such-run?access_token=garbage`);
    expect(withBadQuery.status).toBe(401);
  });

  it('a malformed Authorization header is 401, not 500', async () => {
    const response = await fetch(`${gateway.url}/apis/platform.dev/v1alpha1/projects`, { headers: { authorization: 'Token abc' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ reason: 'MalformedAuthorizationHeader' });
  });
});
