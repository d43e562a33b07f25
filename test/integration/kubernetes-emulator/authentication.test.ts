// TokenReview, TokenRequest and the ServiceAccount issuer's discovery documents.
import { beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationV1Api, CoreV1Api, KubeConfig, OpenidApi, WellKnownApi } from '@kubernetes/client-node';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const authentication = () => emulator().kubeConfig().makeApiClient(AuthenticationV1Api);
const core = () => emulator().kubeConfig().makeApiClient(CoreV1Api);

// client-node types these documents as strings but hands back the parsed JSON.
function document<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

async function tokenReview(token: string, audiences?: string[]) {
  const review = await authentication().createTokenReview({ body: { spec: { token, audiences } } });
  return review.status!;
}

async function mintToken(namespace: string, name: string, audiences?: string[]): Promise<string> {
  const request = await core().createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: audiences ?? [], expirationSeconds: 3600 } },
  });
  return request.status?.token ?? '';
}

describe('TokenReview authenticates registered tokens', () => {
  it('answers the registered user, with system:authenticated added, and echoes requested audiences', async () => {
    emulator().registerToken('static-token', {
      username: 'system:serviceaccount:default:ci',
      uid: 'u-1',
      groups: ['system:serviceaccounts'],
      extra: { scope: ['a'] },
    });
    const status = await tokenReview('static-token', ['platform-api']);
    expect(status).toMatchObject({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:default:ci',
        uid: 'u-1',
        groups: ['system:serviceaccounts', 'system:authenticated'],
        extra: { scope: ['a'] },
      },
      audiences: ['platform-api'],
    });
  });

  it('answers an unknown token with an error and without authenticated (false is omitted on the wire)', async () => {
    const status = await tokenReview('nobody-knows-me');
    expect(status.authenticated).toBeUndefined();
    expect(status.error).toBe('invalid bearer token');
    expect(status.user).toEqual({});
  });

  it('counts reviews', async () => {
    const before = emulator().counters.tokenReviews;
    await tokenReview('static-token');
    expect(emulator().counters.tokenReviews).toBe(before + 1);
  });
});

describe('TokenRequest issues RS256 JWTs verifiable with the published key set', () => {
  // The ServiceAccount every test of this block mints tokens for, whatever order they run in.
  beforeAll(async () => {
    await core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'minted' } } });
  });

  it('carries iss, sub, aud, exp and the kubernetes.io claim', async () => {
    const account = await core().readNamespacedServiceAccount({ namespace: 'default', name: 'minted' });
    const token = await mintToken('default', 'minted', ['platform-api']);
    const keys = await emulator().kubeConfig().makeApiClient(OpenidApi).getServiceAccountIssuerOpenIDKeyset();
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(document(keys)), {
      issuer: emulator().serviceAccountIssuer,
      audience: 'platform-api',
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.sub).toBe('system:serviceaccount:default:minted');
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload['kubernetes.io']).toEqual({
      namespace: 'default',
      serviceaccount: { name: 'minted', uid: account.metadata!.uid },
    });
  });

  it('TokenReview accepts it as the ServiceAccount with the ServiceAccount groups', async () => {
    const token = await mintToken('default', 'minted', ['platform-api']);
    const status = await tokenReview(token, ['platform-api', 'other']);
    expect(status.authenticated).toBe(true);
    expect(status.audiences).toEqual(['platform-api']);
    expect(status.user).toMatchObject({
      username: 'system:serviceaccount:default:minted',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
  });

  it('TokenReview refuses it for an audience it was not issued for', async () => {
    const token = await mintToken('default', 'minted', ['platform-api']);
    const status = await tokenReview(token, ['someone-else']);
    expect(status.authenticated).toBeUndefined();
    expect(status.error).toContain('invalid for the target audiences');
  });

  it('a token without audiences is for the API server itself and authenticates callers', async () => {
    const token = await mintToken('default', 'minted');
    const asMinted = emulator().kubeConfig(token).makeApiClient(CoreV1Api);
    const status = await statusOf(asMinted.listNamespacedSecret({ namespace: 'default' }));
    expect(status.message).toContain('User "system:serviceaccount:default:minted" cannot list resource "secrets"');
  });

  it('stops authenticating once the ServiceAccount is deleted', async () => {
    await core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'short-lived' } } });
    const token = await mintToken('default', 'short-lived', ['platform-api']);
    await core().deleteNamespacedServiceAccount({ namespace: 'default', name: 'short-lived' });
    const status = await tokenReview(token, ['platform-api']);
    expect(status.authenticated).toBeUndefined();
    expect(status.error).toContain('has been deleted');
  });

  it('404 for a missing ServiceAccount, 422 for a lifetime under ten minutes', async () => {
    expect((await statusOf(mintToken('default', 'nobody'))).message).toBe('serviceaccounts "nobody" not found');
    const status = await statusOf(
      core().createNamespacedServiceAccountToken({
        namespace: 'default',
        name: 'minted',
        body: { spec: { audiences: [], expirationSeconds: 60 } },
      }),
    );
    expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});

describe('the ServiceAccount issuer publishes its OpenID configuration', () => {
  it('names the issuer and a reachable jwks_uri', async () => {
    const configuration = document<Record<string, string>>(
      await emulator().kubeConfig().makeApiClient(WellKnownApi).getServiceAccountIssuerOpenIDConfiguration(),
    );
    expect(configuration.issuer).toBe('https://kubernetes.default.svc.cluster.local');
    expect(configuration.jwks_uri).toBe(`${emulator().url}/openid/v1/jwks`);
  });
});

describe('the kubeconfig file of a plain-HTTP emulator', () => {
  it('reaches it with client-node as the KubeConfig object does (client-node refuses plain http without insecure-skip-tls-verify)', async () => {
    const config = new KubeConfig();
    config.loadFromString(emulator().kubeConfigYaml());
    const namespaces = await config.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((namespace) => namespace.metadata?.name)).toContain('default');
  });
});
