// The identity provider's keys: fetched lazily, kept while the provider is down, 503 when none can
// be had, and fetched through the in-cluster bridge address when the bridge is the issuer.
import { afterEach, describe, expect, it } from 'vitest';
import { OidcKeySet, type OidcKeySetOptions } from '../../shared/auth/oidc-key-set.ts';
import { OidcTokenAuthenticator } from '../../shared/auth/oidc-token-authenticator.ts';
import { loadIdentityConfig, type OidcSettings } from '../../shared/config/identity-config.ts';
import type { ApiError } from '../../shared/http/api-error.ts';
import { silentLogger } from '../support/function-servers.ts';
import { startStaticOidcIssuer, type StaticOidcIssuer } from '../support/static-oidc-issuer.ts';

const running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function issuerServer(options: Parameters<typeof startStaticOidcIssuer>[0] = {}): Promise<StaticOidcIssuer> {
  const server = await startStaticOidcIssuer(options);
  running.push(server);
  return server;
}

function settingsFor(issuer: StaticOidcIssuer): OidcSettings {
  return loadIdentityConfig({ OIDC_ISSUER_URL: issuer.issuer, OIDC_CLIENT_ID: 'web', OIDC_USERNAME_CLAIM: 'email' }, { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: undefined }).oidc!;
}

function authenticatorFor(settings: OidcSettings, options: OidcKeySetOptions = {}): OidcTokenAuthenticator {
  return new OidcTokenAuthenticator(settings, new OidcKeySet(settings, silentLogger, options));
}

async function outcome(authenticator: OidcTokenAuthenticator, token: string): Promise<number | string> {
  try {
    const result = await authenticator.authenticate(token, { iss: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).iss });
    return result!.principal.name;
  } catch (error) {
    return (error as ApiError).status;
  }
}

describe('ID tokens are verified against the provider\'s published key set (JWKS), fetched lazily', () => {
  it('fetches nothing until the first token, then discovery and the JWKS once', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer));
    expect(issuer.requests).toEqual([]);
    for (let i = 0; i < 5; i++) expect(await outcome(authenticator, await issuer.sign({ aud: 'web', sub: `u${i}`, email: `u${i}@x.io` }))).toBe(`u${i}@x.io`);
    expect(issuer.requests).toEqual(['/.well-known/openid-configuration', '/keys']);
  });

  it('a token signed with a key the provider does not publish is 401', async () => {
    const issuer = await issuerServer();
    const withdrawn = await issuer.sign({ aud: 'web', email: 'a@x.io' });
    await issuer.rotateKey();
    expect(await outcome(authenticatorFor(settingsFor(issuer)), withdrawn)).toBe(401);
  });

  it('a token without the username claim is 401', async () => {
    const issuer = await issuerServer();
    expect(await outcome(authenticatorFor(settingsFor(issuer)), await issuer.sign({ aud: 'web', sub: 'no-email' }))).toBe(401);
  });
});

describe('The provider may be down: keep serving with the keys held, 503 when keys cannot be had', () => {
  it('verifies with the keys held after they went stale and the provider went down', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer), { keysMaxAgeMs: 0 });
    expect(await outcome(authenticator, await issuer.sign({ aud: 'web', email: 'a@x.io' }))).toBe('a@x.io');
    const later = await issuer.sign({ aud: 'web', email: 'b@x.io' });
    await issuer.stop();
    expect(await outcome(authenticator, later)).toBe('b@x.io');
  });

  it('503 for a key not held while the provider is down', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer), { keysMaxAgeMs: 0 });
    await outcome(authenticator, await issuer.sign({ aud: 'web', email: 'a@x.io' }));
    await issuer.rotateKey();
    const withNewKey = await issuer.sign({ aud: 'web', email: 'a@x.io' });
    await issuer.stop();
    expect(await outcome(authenticator, withNewKey)).toBe(503);
  });

  it('503 while no key was ever fetched, then recovers once the provider is back (after the back-off)', async () => {
    const issuer = await issuerServer();
    const token = await issuer.sign({ aud: 'web', email: 'a@x.io' });
    await issuer.stop();
    const authenticator = authenticatorFor(settingsFor(issuer), { retryAfterFailureMs: 100 });
    expect(await outcome(authenticator, token)).toBe(503);
    await issuer.start();
    expect(await outcome(authenticator, token)).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await outcome(authenticator, token)).toBe('a@x.io');
  });
});

describe('When the bridge is the issuer (<API_BASE_URL>/bridge), keys are fetched through the in-cluster address', () => {
  it('rewrites discovery and jwks_uri from the public URL to BRIDGE_UPSTREAM_URL, keeping the path', async () => {
    const publicIssuer = 'https://platform.example.test/bridge';
    const bridge = await issuerServer({ issuer: publicIssuer, pathPrefix: '/bridge' });
    const settings = loadIdentityConfig(
      { OIDC_ISSUER_URL: publicIssuer, OIDC_CLIENT_ID: 'web', OIDC_USERNAME_CLAIM: 'email' },
      { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: bridge.url },
    ).oidc!;
    expect(await outcome(authenticatorFor(settings), await bridge.sign({ aud: 'web', email: 'a@x.io' }))).toBe('a@x.io');
    expect(bridge.requests).toEqual(['/bridge/.well-known/openid-configuration', '/bridge/keys']);
  });

  it('leaves other issuers\' URLs alone', () => {
    const settings = loadIdentityConfig({ OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'web' }, { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: 'http://bridge.svc:5556' }).oidc!;
    expect(settings.fetchUrlFor('https://idp.example.test/keys')).toBe('https://idp.example.test/keys');
    expect(settings.fetchUrlFor('https://platform.example.test/bridge/keys')).toBe('https://platform.example.test/bridge/keys');
  });
});
