import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFunctionServer } from '../../../knative/function-server.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { getWithToken, silentLogger } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';

// Issue 10: internal, run-logs, login and public-config connect to the cluster only when a token
// that is not the admin's first comes. What they then decide must be what they decided before.
describe('Issue 10, cold start: a function that connects on first use verifies and authorizes ServiceAccounts as before', () => {
  let cluster: IdentityCluster;
  let server: RunningServer;
  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    await cluster.allowPaths('controller', ['/internal/*'], ['get']);
    await cluster.createServiceAccount('bystander');
    server = await startFunctionServer(loadSettings(adminEnv({ FUNCTION_TARGET: 'internal', PORT: '0' })), {
      kubeConfig: cluster.emulator.kubeConfig(),
      logger: silentLogger,
      host: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await server?.close();
    await cluster?.close();
  });

  it('has no cluster connection before such a token comes (issue 21: said by its type, not by a throw)', () => {
    expect(server.context.kubernetes).toBeUndefined();
  });

  it('allows a ServiceAccount its RBAC allows, forbids one it does not, and refuses a forged token', async () => {
    const allowed = await getWithToken(server.url, '/internal/nothing-here', await cluster.mintToken('controller'));
    expect(allowed.status).toBe(404);
    const denied = await getWithToken(server.url, '/internal/nothing-here', await cluster.mintToken('bystander'));
    expect(denied.status).toBe(403);
    const forged = (await cluster.mintToken('controller')).replace(/\.[^.]+$/, '.AAAA');
    expect((await getWithToken(server.url, '/internal/nothing-here', forged)).status).toBe(401);
    // Connected by the first such token: the context now holds the connection it made.
    expect(server.context.kubernetes?.configured).toBe(true);
  });
});
