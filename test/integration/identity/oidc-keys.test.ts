// The identity provider's keys: fetched lazily, kept while the provider is down, 503 when none can
// be had, and fetched through the in-cluster bridge address when the bridge is the issuer.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OidcKeySet, type OidcKeySetOptions } from '../../../shared/auth/oidc-key-set.ts';
import { OidcTokenAuthenticator } from '../../../shared/auth/oidc-token-authenticator.ts';
import { loadIdentityConfig, type OidcSettings } from '../../../shared/base/config/identity-config.ts';
import type { ApiError } from '../../../shared/base/http/api-error.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';
import { startStaticOidcIssuer, type StaticOidcIssuer } from '../../support/static-oidc-issuer.ts';

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
  return loadIdentityConfig(
    { OIDC_ISSUER_URL: issuer.issuer, OIDC_CLIENT_ID: 'web', OIDC_USERNAME_CLAIM: 'email' },
    { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: undefined },
  ).oidc!;
}

function authenticatorFor(settings: OidcSettings, options: OidcKeySetOptions = {}): OidcTokenAuthenticator {
  return new OidcTokenAuthenticator(settings, new OidcKeySet(settings, silentLogger, options));
}

/** The name of the token's user (`oidc:` before its email, issue 38), or the status it was refused with. */
async function outcome(authenticator: OidcTokenAuthenticator, token: string): Promise<number | string> {
  try {
    const result = await authenticator.authenticate(token, {
      iss: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).iss,
    });
    return result!.principal.name;
  } catch (error) {
    return (error as ApiError).status;
  }
}

describe("ID tokens are verified against the provider's published key set (JWKS), fetched lazily", () => {
  it('fetches nothing until the first token, then discovery and the JWKS once', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer));
    expect(issuer.requests).toEqual([]);
    for (let i = 0; i < 5; i++)
      expect(await outcome(authenticator, await issuer.sign({ aud: 'web', sub: `u${i}`, email: `u${i}@x.io` }))).toBe(
        `oidc:u${i}@x.io`,
      );
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
    expect(
      await outcome(authenticatorFor(settingsFor(issuer)), await issuer.sign({ aud: 'web', sub: 'no-email' })),
    ).toBe(401);
  });
});

describe('The provider may be down: keep serving with the keys held, 503 when keys cannot be had', () => {
  it('verifies with the keys held after they went stale and the provider went down', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer), { keysMaxAgeMs: 0 });
    expect(await outcome(authenticator, await issuer.sign({ aud: 'web', email: 'a@x.io' }))).toBe('oidc:a@x.io');
    const later = await issuer.sign({ aud: 'web', email: 'b@x.io' });
    await issuer.stop();
    expect(await outcome(authenticator, later)).toBe('oidc:b@x.io');
  });

  it('while the provider is down, verifies with the key set it published last (a rotation seen before the outage is held)', async () => {
    const issuer = await issuerServer();
    const authenticator = authenticatorFor(settingsFor(issuer), { keysMaxAgeMs: 0, retryAfterFailureMs: 0 });
    const first = await issuer.sign({ aud: 'web', email: 'a@x.io' });
    expect(await outcome(authenticator, first)).toBe('oidc:a@x.io');
    await issuer.stop();
    expect(await outcome(authenticator, first)).toBe('oidc:a@x.io');
    await issuer.start();
    await issuer.rotateKey();
    const rotated = await issuer.sign({ aud: 'web', email: 'b@x.io' });
    expect(await outcome(authenticator, rotated)).toBe('oidc:b@x.io');
    await issuer.stop();
    expect(await outcome(authenticator, rotated)).toBe('oidc:b@x.io');
    expect(await outcome(authenticator, first)).toBe(503);
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
    expect(await outcome(authenticator, token)).toBe('oidc:a@x.io');
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
    expect(await outcome(authenticatorFor(settings), await bridge.sign({ aud: 'web', email: 'a@x.io' }))).toBe(
      'oidc:a@x.io',
    );
    expect(bridge.requests).toEqual(['/bridge/.well-known/openid-configuration', '/bridge/keys']);
  });

  it("leaves other issuers' URLs alone", () => {
    const settings = loadIdentityConfig(
      { OIDC_ISSUER_URL: 'https://idp.example.test', OIDC_CLIENT_ID: 'web' },
      { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: 'http://bridge.svc:5556' },
    ).oidc!;
    expect(settings.fetchUrlFor('https://idp.example.test/keys')).toBe('https://idp.example.test/keys');
    expect(settings.fetchUrlFor('https://platform.example.test/bridge/keys')).toBe(
      'https://platform.example.test/bridge/keys',
    );
  });
});

/** A discovery endpoint answering `answer(issuer)` at <issuer>/.well-known/openid-configuration; records each request. */
async function discoveryServer(
  pathPrefix: string,
  answer: (issuer: string) => { status: number; document?: unknown },
): Promise<{ issuer: string; requests: Array<{ path: string; headers: IncomingHttpHeaders }> }> {
  const requests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  let issuer = '';
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', headers: req.headers });
    if (req.url !== `${new URL(issuer).pathname.replace(/\/+$/, '')}/.well-known/openid-configuration`)
      return void res.writeHead(404).end();
    const { status, document } = answer(issuer);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${pathPrefix}`;
  return { issuer, requests };
}

const settingsOf = (issuerUrl: string): OidcSettings =>
  loadIdentityConfig(
    { OIDC_ISSUER_URL: issuerUrl, OIDC_CLIENT_ID: 'web' },
    { apiBaseUrl: 'https://platform.example.test', bridgeUpstreamUrl: undefined },
  ).oidc!;

/** What `getKey` answers for a token header: the refusal as [status, reason, message, Retry-After], or 'key'. */
async function keyLookup(keys: OidcKeySet): Promise<unknown> {
  try {
    await keys.getKey({ alg: 'ES256', kid: 'k' }, { payload: '', signature: '', protected: '' });
    return 'key';
  } catch (error) {
    const { status, reason, message, headers } = error as ApiError & { headers?: Record<string, string> };
    return [status, reason, message, headers?.['retry-after']];
  }
}

const UNAVAILABLE = (retryAfter: string) => [
  503,
  'IdentityProviderUnavailable',
  'the identity provider cannot be reached to fetch its signing keys; retry shortly',
  retryAfter,
];

describe('Discovery must answer 200 naming OIDC_ISSUER_URL as its issuer and a jwks_uri; otherwise 503 with Retry-After and a warning naming the cause', () => {
  it.each([
    ['discovery answers HTTP 500', (_issuer: string) => ({ status: 500 }), 'discovery answered HTTP 500'],
    [
      'discovery names another issuer',
      (_issuer: string) => ({
        status: 200,
        document: { issuer: 'https://other.test', jwks_uri: 'https://other.test/keys' },
      }),
      'discovery names the issuer "https://other.test", not OIDC_ISSUER_URL',
    ],
    [
      'discovery has no jwks_uri',
      (issuer: string) => ({ status: 200, document: { issuer } }),
      'discovery has no jwks_uri',
    ],
    [
      'discovery has a non-string jwks_uri',
      (issuer: string) => ({ status: 200, document: { issuer, jwks_uri: 7 } }),
      'discovery has no jwks_uri',
    ],
  ])('%s', async (_case, answer, detail) => {
    const provider = await discoveryServer('/idp', answer);
    const logger = capturingLogger();
    const keys = new OidcKeySet(settingsOf(provider.issuer), logger, { retryAfterFailureMs: 30_000 });
    expect(await keyLookup(keys)).toEqual(UNAVAILABLE('30'));
    expect(logger.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'identity provider discovery failed',
        url: `${provider.issuer}/.well-known/openid-configuration`,
        detail,
      }),
    ]);
  });

  it('asks for JSON, strips trailing slashes of the issuer before /.well-known, and logs the discovered key set', async () => {
    const provider = await discoveryServer('/idp//', (issuer) => ({
      status: 200,
      document: { issuer, jwks_uri: 'http://127.0.0.1:9/keys' },
    }));
    const logger = capturingLogger();
    // The key set itself cannot be fetched (nothing listens at jwks_uri): 503, and a warning.
    expect(await keyLookup(new OidcKeySet(settingsOf(provider.issuer), logger, { fetchTimeoutMs: 2_000 }))).toEqual(
      UNAVAILABLE('30'),
    );
    expect(provider.requests[0]).toMatchObject({
      path: '/idp/.well-known/openid-configuration',
      headers: { accept: 'application/json' },
    });
    expect(logger.lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'identity provider discovered',
        issuer: provider.issuer,
        jwksUri: 'http://127.0.0.1:9/keys',
      }),
      expect.objectContaining({
        level: 'warn',
        message: 'identity provider key set unreachable; verifying with the keys already held',
        detail: expect.any(String),
      }),
    ]);
  });

  it('the Retry-After is the back-off in whole seconds, rounded up', async () => {
    const provider = await discoveryServer('', () => ({ status: 500 }));
    expect(
      await keyLookup(new OidcKeySet(settingsOf(provider.issuer), silentLogger, { retryAfterFailureMs: 1_500 })),
    ).toEqual(UNAVAILABLE('2'));
  });

  it('after a failed discovery, asks again only once the whole back-off has passed', async () => {
    const provider = await discoveryServer('', () => ({ status: 500 }));
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    try {
      const keys = new OidcKeySet(settingsOf(provider.issuer), silentLogger, { retryAfterFailureMs: 10_000 });
      await keyLookup(keys);
      vi.setSystemTime(1_000_000 + 9_999);
      await keyLookup(keys);
      expect(provider.requests).toHaveLength(1);
      vi.setSystemTime(1_000_000 + 10_000);
      await keyLookup(keys);
      expect(provider.requests).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
