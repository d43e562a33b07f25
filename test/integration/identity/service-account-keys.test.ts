// ServiceAccount tokens (spec: "verified by TokenReview against the cluster API"), driven as units:
// the issuer's discovery and key set (JWKS) checked before TokenReview, what a TokenReview answer
// makes of the principal and for how long it is cached, and 503 when the cluster cannot be asked.
// The Kubernetes emulator plays the cluster; a small HTTP server stands in for it where a failure
// or an answer shape the emulator never gives must be provoked.
import type { KubeConfig } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ServiceAccountKeySet,
  type ServiceAccountKeySetOptions,
} from '../../../shared/auth/service-account-key-set.ts';
import { ServiceAccountTokenAuthenticator } from '../../../shared/auth/service-account-token-authenticator.ts';
import type { Authentication } from '../../../shared/auth/authenticator.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { ServiceAccountIssuers } from '../../../shared/base/kubernetes/service-account-issuers.ts';
import { forgedJwt } from '../../support/forged-tokens.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { startIdentityCluster, TEST_NAMESPACE, type IdentityCluster } from '../../support/identity-cluster.ts';
import { emulatorKubeConfig } from '../../../infra/kube-emulator/kubeconfig.ts';

const STUB_ISSUER = 'https://stub-cluster.example.test';

/** What the stand-in API server answers on one path: a status and body, optionally late. */
interface Answer {
  status: number;
  body?: unknown;
  delayMs?: number;
}

/** A stand-in Kubernetes API server with the three calls ServiceAccount verification makes. */
interface StubCluster {
  kubeConfig: KubeConfig;
  /** Paths asked, in order. */
  requests: string[];
  discovery: Answer;
  jwks: Answer;
  tokenReview: Answer;
  close(): Promise<void>;
}

const running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(running.splice(0).map((server) => server.close()));
});

const kubeConfigFor = (server: string, token = 'stub-token') => emulatorKubeConfig({ server }, token);

async function stubCluster(publicKey: JWK): Promise<StubCluster> {
  const answers: Record<string, Answer> = {
    '/.well-known/openid-configuration': {
      status: 200,
      body: { issuer: STUB_ISSUER, jwks_uri: `${STUB_ISSUER}/openid/v1/jwks` },
    },
    '/openid/v1/jwks': { status: 200, body: { keys: [publicKey] } },
    '/apis/authentication.k8s.io/v1/tokenreviews': {
      status: 201,
      body: {
        status: {
          authenticated: true,
          user: {
            username: 'system:serviceaccount:ns:sa',
            uid: 'u-1',
            groups: ['system:serviceaccounts'],
            extra: { a: ['b'] },
          },
        },
      },
    },
  };
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://stub').pathname;
    requests.push(path);
    request.resume();
    const answer = answers[path] ?? { status: 404, body: { kind: 'Status', code: 404 } };
    setTimeout(() => {
      if (response.destroyed) return;
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body ?? {}));
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: StubCluster = {
    kubeConfig: kubeConfigFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    requests,
    get discovery() {
      return answers['/.well-known/openid-configuration']!;
    },
    set discovery(answer) {
      answers['/.well-known/openid-configuration'] = answer;
    },
    get jwks() {
      return answers['/openid/v1/jwks']!;
    },
    set jwks(answer) {
      answers['/openid/v1/jwks'] = answer;
    },
    get tokenReview() {
      return answers['/apis/authentication.k8s.io/v1/tokenreviews']!;
    },
    set tokenReview(answer) {
      answers['/apis/authentication.k8s.io/v1/tokenreviews'] = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  running.push(stub);
  return stub;
}

/** The cluster's signing key: its private half signs tokens, its public half (without `alg`, as `kid` k1) is published. */
let signingKey: CryptoKey;
let privateJwk: JWK;
let publishedKey: JWK;
beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  signingKey = pair.privateKey;
  privateJwk = await exportJWK(pair.privateKey);
  publishedKey = { ...(await exportJWK(pair.publicKey)), kid: 'k1', use: 'sig' };
});

async function clusterToken(claims: { exp?: number; alg?: string } = {}): Promise<string> {
  const jwt = new SignJWT({ sub: 'system:serviceaccount:ns:sa' })
    .setProtectedHeader({ alg: claims.alg ?? 'RS256', kid: 'k1' })
    .setIssuer(STUB_ISSUER)
    .setIssuedAt();
  const key = claims.alg === undefined ? signingKey : await importJWK(privateJwk, claims.alg);
  return jwt.setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 3600).sign(key);
}

interface Verifier {
  keys: ServiceAccountKeySet;
  authenticator: ServiceAccountTokenAuthenticator;
  log: string[];
}

function verifierFor(
  kubeConfig: KubeConfig,
  options: ServiceAccountKeySetOptions = {},
  configured?: string[],
): Verifier {
  const logger = capturingLogger();
  const issuers = new ServiceAccountIssuers(configured, kubeConfig, logger);
  const keys = new ServiceAccountKeySet(issuers, kubeConfig, logger, options);
  return {
    keys,
    authenticator: new ServiceAccountTokenAuthenticator(issuers, keys, kubeConfig, logger),
    log: logger.lines,
  };
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

async function outcome(
  verifier: Verifier,
  token: string,
  claims = claimsOf(token),
): Promise<Authentication | null | ApiError> {
  try {
    return await verifier.authenticator.authenticate(token, claims);
  } catch (error) {
    return error as ApiError;
  }
}

/** The name of the principal a token is accepted as (fails the test when it is refused). */
async function acceptedName(verifier: Verifier, token: string): Promise<string> {
  return ((await outcome(verifier, token)) as Authentication).principal.name;
}

const logged = (verifier: Verifier, text: string) => verifier.log.filter((line) => line.includes(text));
const count = (stub: StubCluster, path: string) => stub.requests.filter((asked) => asked === path).length;

describe("A ServiceAccount token the cluster minted is verified by TokenReview, after its signature is checked against the cluster's key set", () => {
  let cluster: IdentityCluster;
  beforeAll(async () => {
    cluster = await startIdentityCluster();
    await cluster.createServiceAccount('controller');
  });
  afterAll(() => cluster.close());

  it("the principal is the TokenReview's user (name, uid, groups), expiring with the token", async () => {
    const verifier = verifierFor(cluster.emulator.kubeConfig());
    const token = await cluster.mintToken('controller', 600);
    const before = cluster.emulator.counters.tokenReviews;
    const result = (await outcome(verifier, token)) as Authentication;
    expect(result.principal).toEqual({
      type: 'serviceaccount',
      name: `system:serviceaccount:${TEST_NAMESPACE}:controller`,
      uid: expect.stringMatching(/.+/),
      groups: expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${TEST_NAMESPACE}`]),
      extra: expect.any(Object),
      expiresAt: (claimsOf(token).exp as number) * 1000,
    });
    expect(cluster.emulator.counters.tokenReviews).toBe(before + 1);
  });

  it("logs that signatures are checked against the cluster's key set, and warns of no issuer left unchecked", async () => {
    const verifier = verifierFor(cluster.emulator.kubeConfig());
    await verifier.keys.load();
    expect(logged(verifier, "signatures are checked against the cluster's key set")[0]).toContain(
      cluster.emulator.serviceAccountIssuer,
    );
    expect(logged(verifier, 'publishes no key set')).toEqual([]);
  });

  it('a token of another issuer is not a ServiceAccount token: no answer, no TokenReview', async () => {
    const verifier = verifierFor(cluster.emulator.kubeConfig());
    const before = cluster.emulator.counters.tokenReviews;
    expect(await outcome(verifier, await forgedJwt('https://elsewhere.example.test'))).toBeNull();
    expect(cluster.emulator.counters.tokenReviews).toBe(before);
  });
});

describe('The key set is fetched at start-up when the cluster publishes one, and the start-up never fails on it', () => {
  it('load() asks discovery and the key set once; loading again fetches nothing more', async () => {
    const stub = await stubCluster(publishedKey);
    const verifier = verifierFor(stub.kubeConfig);
    await verifier.keys.load();
    await verifier.keys.load();
    expect(stub.requests).toEqual(['/.well-known/openid-configuration', '/openid/v1/jwks']);
  });

  it('a key set that cannot be fetched at start-up is a warning, asked again on the first token', async () => {
    const stub = await stubCluster(publishedKey);
    stub.jwks = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig);
    await expect(verifier.keys.load()).resolves.toBeUndefined();
    expect(logged(verifier, 'ServiceAccount key set not fetched at start-up; asked again on the first token')).toEqual([
      expect.stringContaining('detail'),
    ]);
    stub.jwks = { status: 200, body: { keys: [publishedKey] } };
    expect(await acceptedName(verifier, await clusterToken())).toBe('system:serviceaccount:ns:sa');
  });

  it('a discovery that fails at start-up is logged as the cluster not answering, not as a key set not fetched', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig);
    await expect(verifier.keys.load()).resolves.toBeUndefined();
    expect(logged(verifier, 'did not answer a ServiceAccount issuer discovery')).toHaveLength(1);
    expect(logged(verifier, 'not fetched at start-up')).toEqual([]);
  });

  it('a cluster without discovery: nothing to fetch, no start-up warning about keys, no claim that signatures are checked', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 404 };
    const verifier = verifierFor(stub.kubeConfig);
    await verifier.keys.load();
    expect(count(stub, '/openid/v1/jwks')).toBe(0);
    expect(logged(verifier, 'not fetched at start-up')).toEqual([]);
    expect(logged(verifier, 'signatures are checked')).toEqual([]);
  });
});

describe("Only the issuer the cluster's discovery names with a jwks_uri has a key set; other ServiceAccount issuers are vouched for by TokenReview alone, which is logged", () => {
  it('discovery without jwks_uri: no key set, a token goes to TokenReview unchecked, and the issuer is named in a warning', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 200, body: { issuer: STUB_ISSUER } };
    const verifier = verifierFor(stub.kubeConfig);
    await verifier.keys.load();
    expect(await verifier.keys.keysFor(STUB_ISSUER)).toBeUndefined();
    expect(count(stub, '/openid/v1/jwks')).toBe(0);
    expect(logged(verifier, 'signatures are checked')).toEqual([]);
    expect(logged(verifier, 'publishes no key set')).toEqual([expect.stringContaining(STUB_ISSUER)]);
    const forged = await forgedJwt(STUB_ISSUER, { kid: 'k1' });
    expect(await acceptedName(verifier, forged)).toBe('system:serviceaccount:ns:sa');
    expect(count(stub, '/apis/authentication.k8s.io/v1/tokenreviews')).toBe(1);
  });

  it('SERVICE_ACCOUNT_ISSUERS not naming the discovered issuer: no key set for any, every configured issuer named in the warning', async () => {
    const stub = await stubCluster(publishedKey);
    const configured = ['https://one.example.test', 'https://two.example.test'];
    const verifier = verifierFor(stub.kubeConfig, {}, configured);
    expect(await verifier.keys.keysFor(STUB_ISSUER)).toBeUndefined();
    expect(await verifier.keys.keysFor(configured[0]!)).toBeUndefined();
    const warning = logged(verifier, 'publishes no key set');
    expect(warning).toHaveLength(1);
    for (const issuer of configured) expect(warning[0]).toContain(issuer);
    expect(logged(verifier, 'signatures are checked')).toEqual([]);
  });

  it('SERVICE_ACCOUNT_ISSUERS naming the discovered issuer and another: the discovered one has the key set, only the other is named unchecked', async () => {
    const stub = await stubCluster(publishedKey);
    const verifier = verifierFor(stub.kubeConfig, {}, [STUB_ISSUER, 'https://legacy.example.test']);
    expect(await verifier.keys.keysFor(STUB_ISSUER)).toBeTypeOf('function');
    const warning = logged(verifier, 'publishes no key set');
    expect(warning).toEqual([expect.stringContaining('https://legacy.example.test')]);
    expect(warning[0]).not.toContain(`"${STUB_ISSUER}"`);
    expect(logged(verifier, 'signatures are checked')[0]).toContain(`${STUB_ISSUER}/openid/v1/jwks`);
  });

  it('a cluster without discovery: the default issuer is named unchecked', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 404 };
    const verifier = verifierFor(stub.kubeConfig);
    expect(await verifier.keys.keysFor('https://kubernetes.default.svc.cluster.local')).toBeUndefined();
    expect(logged(verifier, 'publishes no key set')).toEqual([
      expect.stringContaining('https://kubernetes.default.svc.cluster.local'),
    ]);
  });
});

describe("A token's signature and algorithm are checked before TokenReview: what kube-apiserver signs with (RS256, ES256/384/512)", () => {
  it('a token signed with the published key but RS384 is 401 with no TokenReview, even though the key names no algorithm', async () => {
    const stub = await stubCluster(publishedKey);
    const verifier = verifierFor(stub.kubeConfig);
    const result = (await outcome(verifier, await clusterToken({ alg: 'RS384' }))) as ApiError;
    expect([result.status, result.reason]).toEqual([401, 'InvalidToken']);
    expect(count(stub, '/apis/authentication.k8s.io/v1/tokenreviews')).toBe(0);
  });

  it.each(['ES256', 'ES384', 'ES512'])('a token signed %s with a published ECDSA key is accepted', async (alg) => {
    const pair = await generateKeyPair(alg);
    const stub = await stubCluster({ ...(await exportJWK(pair.publicKey)), kid: 'k1', use: 'sig' });
    const token = await new SignJWT({ sub: 'system:serviceaccount:ns:sa' })
      .setProtectedHeader({ alg, kid: 'k1' })
      .setIssuer(STUB_ISSUER)
      .setExpirationTime('1h')
      .sign(pair.privateKey);
    expect(await acceptedName(verifierFor(stub.kubeConfig), token)).toBe('system:serviceaccount:ns:sa');
  });
});

describe('The key set is kept fresh: refetched once it is older than keysMaxAgeMs, and a fetch that hangs is given up after fetchTimeoutMs', () => {
  it('a token after the keys went stale fetches them again', async () => {
    const stub = await stubCluster(publishedKey);
    const verifier = verifierFor(stub.kubeConfig, { keysMaxAgeMs: 50 });
    await outcome(verifier, await clusterToken());
    await new Promise((resolve) => setTimeout(resolve, 150));
    await outcome(verifier, await clusterToken());
    expect(count(stub, '/openid/v1/jwks')).toBe(2);
  });

  it('a key fetch slower than fetchTimeoutMs is a 503 (the cluster counts as down), not a wait for the answer', async () => {
    const stub = await stubCluster(publishedKey);
    stub.jwks = { status: 200, body: { keys: [publishedKey] }, delayMs: 3_000 };
    const verifier = verifierFor(stub.kubeConfig, { fetchTimeoutMs: 200 });
    expect(((await outcome(verifier, await clusterToken())) as ApiError).status).toBe(503);
  });
});

describe('503 when the cluster cannot be asked (fail closed): never an allow, never a 401 the caller did not earn', () => {
  it('discovery unreachable: 503 KubernetesUnavailable, the failed call named in the log', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig, {}, [STUB_ISSUER]);
    const result = (await outcome(verifier, await clusterToken())) as ApiError;
    expect([result.status, result.reason]).toEqual([503, 'KubernetesUnavailable']);
    expect(logged(verifier, 'Kubernetes API did not answer a ServiceAccount issuer discovery')).toHaveLength(1);
  });

  it('key set never fetched and unreachable: 503 saying so, Retry-After the back-off in seconds, the outage logged once', async () => {
    const stub = await stubCluster(publishedKey);
    stub.jwks = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig, { retryAfterFailureMs: 3_000 });
    const result = (await outcome(verifier, await clusterToken())) as ApiError;
    expect([result.status, result.reason, result.headers['retry-after']]).toEqual([503, 'KubernetesUnavailable', '3']);
    expect(result.message).toBe(
      'the Kubernetes API cannot be reached to fetch its ServiceAccount signing keys; retry shortly',
    );
    expect(
      logged(verifier, 'cluster ServiceAccount key set unreachable; verifying with the keys already held'),
    ).toHaveLength(1);
  });

  it('after a failed key fetch the cluster is not asked again within the default back-off (5 s), and is once it has passed', async () => {
    const stub = await stubCluster(publishedKey);
    stub.jwks = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig);
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const failed = (await outcome(verifier, await clusterToken())) as ApiError;
    expect([failed.status, failed.headers['retry-after']]).toEqual([503, '5']);
    stub.jwks = { status: 200, body: { keys: [publishedKey] } };
    vi.setSystemTime(start + 4_999);
    expect(((await outcome(verifier, await clusterToken())) as ApiError).status).toBe(503);
    expect(count(stub, '/openid/v1/jwks')).toBe(1);
    vi.setSystemTime(start + 5_000);
    expect(await acceptedName(verifier, await clusterToken())).toBe('system:serviceaccount:ns:sa');
    expect(count(stub, '/openid/v1/jwks')).toBe(2);
  });

  it('a back-off given in the options is used: the cluster is asked again once it has passed', async () => {
    const stub = await stubCluster(publishedKey);
    stub.jwks = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig, { retryAfterFailureMs: 100 });
    expect(((await outcome(verifier, await clusterToken())) as ApiError).status).toBe(503);
    stub.jwks = { status: 200, body: { keys: [publishedKey] } };
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await acceptedName(verifier, await clusterToken())).toBe('system:serviceaccount:ns:sa');
  });

  it('TokenReview unreachable: 503 KubernetesUnavailable, the failed call named in the log', async () => {
    const stub = await stubCluster(publishedKey);
    stub.tokenReview = { status: 500 };
    const verifier = verifierFor(stub.kubeConfig);
    const result = (await outcome(verifier, await clusterToken())) as ApiError;
    expect([result.status, result.reason]).toEqual([503, 'KubernetesUnavailable']);
    expect(logged(verifier, 'Kubernetes API did not answer a TokenReview')).toHaveLength(1);
  });
});

describe('Only a TokenReview that authenticates a named user accepts the token', () => {
  it.each([
    ['not authenticated', { status: { authenticated: false, user: { username: 'system:serviceaccount:ns:sa' } } }],
    ['authenticated without a user', { status: { authenticated: true } }],
    ['authenticated with an empty username', { status: { authenticated: true, user: { username: '' } } }],
    ['no status at all', {}],
  ])('%s: 401 InvalidToken', async (_case, answer) => {
    const stub = await stubCluster(publishedKey);
    stub.tokenReview = { status: 201, body: answer };
    const result = (await outcome(verifierFor(stub.kubeConfig), await clusterToken())) as ApiError;
    expect([result.status, result.reason, result.message]).toEqual([
      401,
      'InvalidToken',
      'the cluster did not accept this ServiceAccount token',
    ]);
  });
});

describe("The principal is the reviewed user, cached for 10 s or until the token's `exp`, whichever is sooner", () => {
  it('carries uid, groups and extra as reviewed; a token expiring in an hour is cached for 10 s', async () => {
    const stub = await stubCluster(publishedKey);
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const before = Date.now();
    const result = (await outcome(verifierFor(stub.kubeConfig), await clusterToken({ exp }))) as Authentication;
    expect(result.principal).toEqual({
      type: 'serviceaccount',
      name: 'system:serviceaccount:ns:sa',
      uid: 'u-1',
      groups: ['system:serviceaccounts'],
      extra: { a: ['b'] },
      expiresAt: exp * 1000,
    });
    expect(result.cacheUntil).toBeGreaterThanOrEqual(before + 10_000);
    expect(result.cacheUntil).toBeLessThanOrEqual(Date.now() + 10_000);
  });

  it('a token expiring within 10 s is cached only until its `exp`', async () => {
    const stub = await stubCluster(publishedKey);
    const exp = Math.floor(Date.now() / 1000) + 4;
    const result = (await outcome(verifierFor(stub.kubeConfig), await clusterToken({ exp }))) as Authentication;
    expect(result.cacheUntil).toBe(exp * 1000);
  });

  it('a review without uid, groups or extra gives empty ones; a legacy token without `exp` has no expiry and is cached for 10 s', async () => {
    const stub = await stubCluster(publishedKey);
    stub.discovery = { status: 404 };
    stub.tokenReview = {
      status: 201,
      body: { status: { authenticated: true, user: { username: 'system:serviceaccount:ns:legacy' } } },
    };
    const legacy = 'legacy-secret-token';
    const before = Date.now();
    const result = (await outcome(verifierFor(stub.kubeConfig), legacy, {
      iss: 'https://kubernetes.default.svc.cluster.local',
    })) as Authentication;
    expect(result.principal).toStrictEqual({
      type: 'serviceaccount',
      name: 'system:serviceaccount:ns:legacy',
      uid: '',
      groups: [],
      extra: {},
    });
    expect(result.cacheUntil).toBeGreaterThanOrEqual(before + 10_000);
    expect(result.cacheUntil).toBeLessThanOrEqual(Date.now() + 10_000);
  });
});
