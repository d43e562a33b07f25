// Issue 46, item 4: a revocation takes effect on every instance within seconds, not after a cache's lifetime.
// Two instances (two gateways, each its own process context) share one PostgreSQL and one cluster; a token
// verified and cached on both is revoked on one, and the other refuses it once the notification arrives.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import { loginToken, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';
import { API, GROUP, expectStatus, projectObject, send } from '../../support/platform-fixture.ts';

const PROJECT = 'fleet';
const TOKENS = `/api/v1alpha1/projects/${PROJECT}/tokens`;
const WORKSPACES = `${API}/namespaces/${PROJECT}/workspaces`;
/** How long a TokenReview's answer is cached (shared/auth/service-account-token-authenticator.ts): the bound a revocation in the cluster directly is caught within. */
const TOKEN_REVIEW_TTL_MS = 10_000;
/**
 * The documented bound of a revocation through the API on another instance (docs/tokens.md): the
 * notification arrives in milliseconds; half the cache's lifetime leaves a loaded machine room and still
 * fails when only the lapse of the cached TokenReview would end the token.
 */
const REVOCATION_BOUND_MS = 5_000;

let cluster: IdentityCluster;
let database: TestDatabase;
let instances: RunningServer[] = [];
let admin = '';

beforeAll(async () => {
  [cluster, database] = await Promise.all([startIdentityCluster(), startTestDatabase()]);
  await installPlatformCrds(cluster.emulator.kubeConfig(), GROUP);
  const env = adminEnv({
    DATABASE_URL: database.connectionString,
    SERVICE_ACCOUNT_ISSUERS: cluster.emulator.serviceAccountIssuer,
  });
  instances = await Promise.all([0, 1].map(() => startTestGateway(env, { kubeConfig: cluster.emulator.kubeConfig() })));
  admin = await loginToken(instances[0]!.url, ADMIN_PASSWORD);
  await send(instances[0]!.url, admin, 'POST', `${API}/projects`, projectObject(PROJECT)).then(expectStatus(201));
  await cluster.emulator
    .kubeConfig()
    .makeApiClient(RbacAuthorizationV1Api)
    .createNamespacedRole({
      namespace: PROJECT,
      body: {
        metadata: { name: 'reader' },
        rules: [{ apiGroups: [GROUP], resources: ['workspaces'], verbs: ['list'] }],
      },
    });
}, 60_000);

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.close()));
  await Promise.all([cluster?.close(), database?.destroy()]);
});

async function tokenAcceptedOnBoth(name: string): Promise<string> {
  const { token } = await send(instances[0]!.url, admin, 'POST', TOKENS, {
    name,
    role: { kind: 'Role', name: 'reader' },
    lifetime: '1h',
  }).then(expectStatus(201));
  for (const instance of instances) expect((await send(instance.url, token, 'GET', WORKSPACES)).status).toBe(200);
  return token;
}

describe('Issue 46, item 4: revocation takes effect on every instance within seconds', () => {
  it('revoked on one instance is 401 on the other within the bound, long before its cached TokenReview would lapse', async () => {
    const token = await tokenAcceptedOnBoth('pipeline');
    const revokedAt = Date.now();
    expect((await send(instances[0]!.url, admin, 'DELETE', `${TOKENS}/pipeline`)).status).toBe(204);
    expect((await send(instances[0]!.url, token, 'GET', WORKSPACES)).status).toBe(401);
    await vi.waitFor(async () => expect((await send(instances[1]!.url, token, 'GET', WORKSPACES)).status).toBe(401), {
      timeout: REVOCATION_BOUND_MS,
      interval: 50,
    });
    expect(Date.now() - revokedAt).toBeLessThan(REVOCATION_BOUND_MS);
  });

  it('revoked in the cluster directly (its ServiceAccount deleted) is 401 on every instance within the TokenReview cache lifetime', async () => {
    const token = await tokenAcceptedOnBoth('deleted-in-cluster');
    await cluster.emulator
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .deleteNamespacedServiceAccount({ namespace: PROJECT, name: 'token-deleted-in-cluster' });
    const deletedAt = Date.now();
    for (const instance of instances)
      await vi.waitFor(async () => expect((await send(instance.url, token, 'GET', WORKSPACES)).status).toBe(401), {
        timeout: 3 * TOKEN_REVIEW_TTL_MS,
        interval: 200,
      });
    // The bound is the cache's lifetime; a loaded machine's delay in answering is allowed beside it.
    expect(Date.now() - deletedAt).toBeLessThan(3 * TOKEN_REVIEW_TTL_MS);
  }, 60_000);
});
