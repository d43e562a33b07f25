import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { spawnFunctionProcess, startTestGateway } from '../../support/function-servers.ts';

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

describe("Unauthenticated routes: exactly the spec's list is open", () => {
  it('the route table marks exactly those routes as open', () => {
    const open = routeTable('platform.dev')
      .filter((route) => route.auth === 'none')
      .map((route) => [route.method, route.path]);
    expect(open.sort()).toEqual([...SPEC_UNAUTHENTICATED].sort());
  });

  let gateway: RunningServer;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv());
  });
  afterAll(() => gateway.close());

  it.each([['/healthz'], ['/openapi.json'], ['/docs'], ['/api/v1alpha1/system/public-config']])(
    'GET %s answers 200 without a token',
    async (path) => {
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    },
  );

  it('GET /readyz answers without a token: not ready here, where no database and no cluster is configured (issue 38, item 12)', async () => {
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ reason: 'KubernetesUnavailable' });
  });

  it('everything under /bridge/ is reached without a token (404 here: no bridge is configured)', async () => {
    const response = await fetch(`${gateway.url}/bridge/auth?client_id=x`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'BridgeNotConfigured' });
  });

  it("a function reached under /bridge/ (the production gateway's fallback without a bridge) also answers 404 unauthenticated", async () => {
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
