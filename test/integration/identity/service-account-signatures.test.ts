// ServiceAccount tokens are checked against the cluster's published key set (/openid/v1/jwks) before
// TokenReview, so forged and expired tokens cost the cluster nothing; what passes still goes to TokenReview.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateKeyPair, type CryptoKey } from 'jose';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { ServiceAccountKeySet } from '../../../shared/auth/service-account-key-set.ts';
import { ServiceAccountIssuers } from '../../../shared/base/kubernetes/service-account-issuers.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { expectStatus } from '../../support/error-responses.ts';
import { forgedJwt } from '../../support/forged-tokens.ts';
import { capturingLogger, getWithToken, silentLogger, startTestGateway } from '../../support/function-servers.ts';
import { startIdentityCluster, type IdentityCluster } from '../../support/identity-cluster.ts';

// Needs nothing but a valid token: 200 means authenticated.
const WHO_AM_I = '/api/v1alpha1/auth/whoami';

/** The `kid` of the cluster's signing key, as an attacker would read it from any real token. */
async function clusterKid(cluster: IdentityCluster): Promise<string> {
  const response = await fetch(`${cluster.emulator.url}/openid/v1/jwks`, {
    headers: { authorization: `Bearer ${cluster.emulator.adminToken}` },
  });
  return ((await response.json()) as { keys: Array<{ kid: string }> }).keys[0]!.kid;
}

describe("A token is checked against the cluster's key set before TokenReview", () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
  });
  afterAll(async () => {
    await gateway.close();
    await cluster.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a forged token naming the cluster's issuer and key gets 401 with no TokenReview", async () => {
    const before = cluster.emulator.counters.tokenReviews;
    const forged = await forgedJwt(cluster.emulator.serviceAccountIssuer, { kid: await clusterKid(cluster) });
    await expectStatus(await getWithToken(gateway.url, WHO_AM_I, forged), 401, 'InvalidToken');
    expect(cluster.emulator.counters.tokenReviews).toBe(before);
  });

  it('a token the cluster minted is allowed as before, with one TokenReview', async () => {
    const before = cluster.emulator.counters.tokenReviews;
    const response = await getWithToken(gateway.url, WHO_AM_I, await cluster.mintToken('controller'));
    expect(await response.json()).toEqual({
      type: 'serviceaccount',
      name: 'system:serviceaccount:platform-system:controller',
    });
    expect(cluster.emulator.counters.tokenReviews).toBe(before + 1);
  });

  it('an expired token the cluster minted gets 401 with no TokenReview', async () => {
    const token = await cluster.mintToken('controller', 600);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11 * 60_000 });
    const before = cluster.emulator.counters.tokenReviews;
    const body = await expectStatus(await getWithToken(gateway.url, WHO_AM_I, token), 401, 'InvalidToken');
    expect(body.error).toBe('token has expired');
    expect(cluster.emulator.counters.tokenReviews).toBe(before);
  });
});

describe('A flood of distinct forged tokens costs no TokenReview and a bounded number of key fetches', () => {
  let cluster: IdentityCluster;
  let attackerKey: CryptoKey;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    attackerKey = (await generateKeyPair('RS256')).privateKey;
  });
  afterAll(() => cluster.close());

  it("1,000 forged tokens (the cluster's kid, no kid, a new kid each) are 401: no TokenReview, at most one key fetch per 30 s", async () => {
    const gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
    try {
      const issuer = cluster.emulator.serviceAccountIssuer;
      const kid = await clusterKid(cluster);
      // Discovery and the first key fetch (also done at start-up) happen before the count starts.
      await getWithToken(gateway.url, WHO_AM_I, await forgedJwt(issuer, { privateKey: attackerKey }));
      const before = { ...cluster.emulator.counters };
      const started = Date.now();
      for (let batch = 0; batch < 20; batch++) {
        const tokens = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            forgedJwt(issuer, { privateKey: attackerKey, kid: [kid, undefined, `kid-${batch}-${i}`][i % 3] }),
          ),
        );
        const responses = await Promise.all(tokens.map((token) => getWithToken(gateway.url, WHO_AM_I, token)));
        expect(responses.map((response) => response.status)).toEqual(Array(50).fill(401));
      }
      expect(cluster.emulator.counters.tokenReviews).toBe(before.tokenReviews);
      // Only key fetches reach the cluster here: one when the 30 s refetch interval has passed, per interval.
      expect(cluster.emulator.counters.requests - before.requests).toBeLessThanOrEqual(
        1 + Math.floor((Date.now() - started) / 30_000),
      );
    } finally {
      await gateway.close();
    }
  });

  it('an unknown kid refetches the key set at most once per interval (so a rotated key is found)', async () => {
    const kubeConfig = cluster.emulator.kubeConfig();
    // The interval is passed on a faked clock (jose reads Date), so no lookup depends on how fast this machine is.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const keys = new ServiceAccountKeySet(
      new ServiceAccountIssuers(undefined, kubeConfig, silentLogger),
      kubeConfig,
      silentLogger,
      { unknownKeyRefetchIntervalMs: 60_000 },
    );
    const getKey = (await keys.keysFor(cluster.emulator.serviceAccountIssuer))!;
    const lookUp = (kid: string) =>
      Promise.resolve(getKey({ alg: 'RS256', kid }, { payload: '', signature: '' })).then(
        () => 'found',
        (error: Error) => error.name,
      );
    expect(await lookUp(await clusterKid(cluster))).toBe('found');
    const before = cluster.emulator.counters.requests;
    expect(await Promise.all(Array.from({ length: 100 }, (_, i) => lookUp(`unknown-${i}`)))).toEqual(
      Array(100).fill('JWKSNoMatchingKey'),
    );
    expect(cluster.emulator.counters.requests - before).toBe(0);
    vi.setSystemTime(Date.now() + 59_000);
    expect(await lookUp('unknown-within-the-interval')).toBe('JWKSNoMatchingKey');
    expect(cluster.emulator.counters.requests - before).toBe(0);
    vi.setSystemTime(Date.now() + 1_001);
    expect(await lookUp('unknown-again')).toBe('JWKSNoMatchingKey');
    expect(cluster.emulator.counters.requests - before).toBe(1);
  });
});

describe('No key set to be had (cluster down before the first token): 503 with Retry-After, never a TokenReview alone', () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;
  let token: string;

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    token = await cluster.mintToken('controller');
    await cluster.close();
    gateway = await startTestGateway(adminEnv(), { kubeConfig: cluster.emulator.kubeConfig() });
  });
  afterAll(() => gateway.close());

  it('a real token gets 503 KubernetesUnavailable', async () => {
    const response = await getWithToken(gateway.url, WHO_AM_I, token);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectStatus(response, 503, 'KubernetesUnavailable');
  });
});

describe('Issuers the cluster publishes no key set for (SERVICE_ACCOUNT_ISSUERS, or no discovery at all): TokenReview alone, logged once', () => {
  let cluster: IdentityCluster;
  let gateway: RunningServer;
  const logger = capturingLogger();
  const OTHER_ISSUER = 'https://issuer.example.test';

  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
    gateway = await startTestGateway(
      adminEnv({ SERVICE_ACCOUNT_ISSUERS: `${cluster.emulator.serviceAccountIssuer},${OTHER_ISSUER}` }),
      { kubeConfig: cluster.emulator.kubeConfig(), logger },
    );
  });
  afterAll(async () => {
    await gateway.close();
    await cluster.close();
  });

  it("a token of a listed issuer the cluster does not publish goes to TokenReview; the cluster's own issuer is checked here first", async () => {
    const before = cluster.emulator.counters.tokenReviews;
    await expectStatus(await getWithToken(gateway.url, WHO_AM_I, await forgedJwt(OTHER_ISSUER)), 401, 'InvalidToken');
    expect(cluster.emulator.counters.tokenReviews).toBe(before + 1);
    await expectStatus(
      await getWithToken(gateway.url, WHO_AM_I, await forgedJwt(cluster.emulator.serviceAccountIssuer)),
      401,
      'InvalidToken',
    );
    expect(cluster.emulator.counters.tokenReviews).toBe(before + 1);
    expect((await getWithToken(gateway.url, WHO_AM_I, await cluster.mintToken('controller'))).status).toBe(200);
  });

  it('says so once in the log, naming the issuers verified by TokenReview alone', async () => {
    // Two tokens of this test's own, so the cluster has been asked whatever ran before.
    for (let request = 0; request < 2; request++)
      await getWithToken(gateway.url, WHO_AM_I, await forgedJwt(OTHER_ISSUER));
    const warnings = logger.lines
      .map((line) => JSON.parse(line) as { message: string; issuers?: string[] })
      .filter((record) => record.message.includes('TokenReview alone'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.issuers).toEqual([OTHER_ISSUER]);
  });

  it('a cluster without issuer discovery (404) leaves every ServiceAccount token to TokenReview, said once', async () => {
    const lines = capturingLogger();
    const keys = new ServiceAccountKeySet(
      { configured: undefined, discovery: async () => ({ issuer: undefined, jwksUri: undefined }) },
      cluster.emulator.kubeConfig(),
      lines,
    );
    expect(await keys.keysFor('https://kubernetes.default.svc.cluster.local')).toBeUndefined();
    expect(await keys.keysFor('https://kubernetes.default.svc.cluster.local')).toBeUndefined();
    expect(lines.lines.filter((line) => line.includes('TokenReview alone'))).toHaveLength(1);
  });
});
