// ServiceAccount tokens: signature checked against the cluster's key set, then verified by TokenReview,
// authorized by standard RBAC through SubjectAccessReview, both cached. The key set itself:
// service-account-signatures.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { expectStatus } from '../../support/error-responses.ts';
import { forgedJwt } from '../../support/forged-tokens.ts';
import { getWithToken, startTestGateway } from '../../support/function-servers.ts';
import { TEST_NAMESPACE, startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';

describe("ServiceAccount: bearer token checked against the cluster's key set, then TokenReview; standard RBAC", () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    await cluster.allowPaths('controller', ['/internal/*'], ['get', 'post']);
    await cluster.createServiceAccount('stranger');
    gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
  });
  afterAll(async () => {
    await gateway.close();
    await cluster.close();
  });

  it('a ServiceAccount its RBAC allows reaches the internal route (404: no such route yet, after authorization)', async () => {
    const token = await cluster.mintToken('controller');
    expect((await getWithToken(gateway.url, '/internal/workspaces', token)).status).toBe(404);
    const post = await fetch(`${gateway.url}/internal/workspaces/a/status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(post.status).toBe(404);
  });

  it('a verb its RBAC lacks is 403 naming the ServiceAccount and what it tried', async () => {
    const token = await cluster.mintToken('controller');
    const response = await fetch(`${gateway.url}/internal/workspaces`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await expectStatus(response, 403, 'Forbidden');
    expect(body.error).toBe(`system:serviceaccount:${TEST_NAMESPACE}:controller may not delete /internal/workspaces`);
  });

  it('a ServiceAccount without RBAC is denied with 403', async () => {
    await expectStatus(
      await getWithToken(gateway.url, '/internal/workspaces', await cluster.mintToken('stranger')),
      403,
      'Forbidden',
    );
  });

  it('a token of the ServiceAccount issuer that the cluster did not sign gets 401 without a TokenReview (its key set says so)', async () => {
    const before = cluster.emulator.counters.tokenReviews;
    await expectStatus(
      await getWithToken(gateway.url, '/internal/workspaces', await forgedJwt(cluster.emulator.serviceAccountIssuer)),
      401,
      'InvalidToken',
    );
    expect(cluster.emulator.counters.tokenReviews).toBe(before);
  });

  it('a JWT of any other issuer gets 401 without a call to the cluster', async () => {
    // One real token first, so the gateway's start-up calls (issuer discovery, keys) are done whatever ran before.
    await getWithToken(gateway.url, '/internal/workspaces', await cluster.mintToken('controller'));
    const before = { ...cluster.emulator.counters };
    for (let i = 0; i < 20; i++) {
      await expectStatus(
        await getWithToken(gateway.url, '/internal/workspaces', await forgedJwt(`https://forged-${i}.example.test`)),
        401,
        'UnknownIssuer',
      );
    }
    expect(cluster.emulator.counters.tokenReviews).toBe(before.tokenReviews);
    expect(cluster.emulator.counters.requests).toBe(before.requests);
  });

  it('caches: 1,000 requests (50 at a time) cost one TokenReview and one SubjectAccessReview', async () => {
    const token = await cluster.mintToken('controller');
    const before = { ...cluster.emulator.counters };
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => getWithToken(gateway.url, '/internal/cached', token)),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(50).fill(404));
    }
    expect(cluster.emulator.counters.tokenReviews - before.tokenReviews).toBe(1);
    expect(cluster.emulator.counters.subjectAccessReviews - before.subjectAccessReviews).toBe(1);
  });

  it('the admin bypasses every check: no SubjectAccessReview is performed', async () => {
    const login = await fetch(`${gateway.url}/api/v1alpha1/auth/login`, {
      method: 'POST',
      headers: { authorization: 'Bearer correct horse battery staple' },
    });
    const { idToken } = (await login.json()) as { idToken: string };
    const before = { ...cluster.emulator.counters };
    const response = await fetch(`${gateway.url}/internal/anything`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${idToken}` },
    });
    expect(response.status).toBe(404);
    expect(cluster.emulator.counters.subjectAccessReviews).toBe(before.subjectAccessReviews);
    expect(cluster.emulator.counters.tokenReviews).toBe(before.tokenReviews);
  });
});

describe('SERVICE_ACCOUNT_ISSUERS names the issuers whose tokens go to TokenReview', () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    await cluster.allowPaths('controller', ['/internal/*'], ['get']);
    gateway = await startTestGateway(
      adminEnv({ SERVICE_ACCOUNT_ISSUERS: 'https://oidc.eks.example.test/id/1, https://issuer.example.test' }),
      { kubeConfig: cluster.emulator.kubeConfig() },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await cluster.close();
  });

  it("a token of an issuer not listed gets 401 without a TokenReview, even the cluster's own", async () => {
    const before = cluster.emulator.counters.tokenReviews;
    await expectStatus(
      await getWithToken(gateway.url, '/internal/x', await cluster.mintToken('controller')),
      401,
      'UnknownIssuer',
    );
    expect(cluster.emulator.counters.tokenReviews).toBe(before);
  });

  it('a token of a listed issuer goes to TokenReview', async () => {
    const before = cluster.emulator.counters.tokenReviews;
    await expectStatus(
      await getWithToken(gateway.url, '/internal/x', await forgedJwt('https://issuer.example.test')),
      401,
      'InvalidToken',
    );
    expect(cluster.emulator.counters.tokenReviews).toBe(before + 1);
  });
});

describe('Kubernetes API down after the keys were fetched: held keys still refuse forgeries; otherwise 503 with Retry-After, never a wrong 401, never an allow', () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;
  let reviewed: string;
  let fresh: string;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    await cluster.allowPaths('controller', ['/internal/*'], ['get', 'post']);
    gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
    reviewed = await cluster.mintToken('controller');
    fresh = await cluster.mintToken('controller');
    expect((await getWithToken(gateway.url, '/internal/x', reviewed)).status).toBe(404);
    await cluster.close();
  });
  afterAll(() => gateway.close());

  it('a token reviewed moments ago still authenticates: its TokenReview answer is cached (10 s)', async () => {
    expect(await (await getWithToken(gateway.url, '/api/v1alpha1/auth/whoami', reviewed)).json()).toEqual({
      type: 'serviceaccount',
      name: `system:serviceaccount:${TEST_NAMESPACE}:controller`,
    });
  });

  it('a forged token is still 401: the key set held from before refuses it without the cluster', async () => {
    await expectStatus(
      await getWithToken(gateway.url, '/internal/x', await forgedJwt(cluster.emulator.serviceAccountIssuer)),
      401,
      'InvalidToken',
    );
  });

  it('a real token not yet reviewed passes the key check, then gets 503 when the TokenReview cannot be made', async () => {
    const response = await getWithToken(gateway.url, '/internal/x', fresh);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectStatus(response, 503, 'KubernetesUnavailable');
  });

  it('a reviewed token asking for something not yet authorized gets 503 when the SubjectAccessReview cannot be made', async () => {
    const response = await fetch(`${gateway.url}/internal/y`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reviewed}` },
    });
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectStatus(response, 503, 'KubernetesUnavailable');
  });
});
