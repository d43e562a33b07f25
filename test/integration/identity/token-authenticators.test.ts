// Each credential type's verifier on its own, rule by rule (spec: admin JWT, OIDC ID tokens): which
// tokens it owns, which it accepts, and the exact 401 for each way a token can be wrong. Clocks are
// faked where a rule is about time, so boundaries are exact.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { AdminTokenAuthenticator, issueAdminToken } from '../../../shared/auth/admin-token.ts';
import { OidcKeySet } from '../../../shared/auth/oidc-key-set.ts';
import { OidcTokenAuthenticator } from '../../../shared/auth/oidc-token-authenticator.ts';
import { FixedAdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import {
  parseAdminAccountSettings,
  type AdminAccountSettings,
} from '../../../shared/base/config/admin-account-settings.ts';
import type { OidcSettings } from '../../../shared/base/config/identity-config.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { OTHER_SIGNING_KEY, SIGNING_KEY, signToken, unsignedToken } from '../../support/admin-fixtures.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { startStaticOidcIssuer, type StaticOidcIssuer } from '../../support/static-oidc-issuer.ts';

const ISSUER = 'https://api.example.test';
const NOW = Math.floor(Date.UTC(2026, 0, 1) / 1000);
const TTL = 3600;

afterEach(() => {
  vi.useRealTimers();
});

function settings(overrides: Record<string, string> = {}): AdminAccountSettings {
  return parseAdminAccountSettings({
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
    ADMIN_ACCOUNT_TOKEN_TTL: `${TTL}s`,
    ...overrides,
  });
}

function admin(overrides: Record<string, string> = {}): AdminTokenAuthenticator {
  return new AdminTokenAuthenticator(new FixedAdminSettingsSource(settings(overrides), 'test'), ISSUER);
}

/** What the authenticator answers: the authentication, null, or the refusal as [status, reason, message]. */
async function outcome(
  authenticator: { authenticate(token: string, claims: Record<string, unknown>): Promise<unknown> },
  token: string,
): Promise<unknown> {
  try {
    return await authenticator.authenticate(token, decodeJwt(token));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return [error.status, error.reason, error.message];
  }
}

const refused = (message: string, reason = 'InvalidToken') => [401, reason, message];

describe('Admin JWT: issued as HS256 with exactly iss, sub=admin, iat and exp=iat+TTL', () => {
  it('issues the header and claims the spec lists, nothing else', async () => {
    const token = await issueAdminToken(settings(), ISSUER, NOW);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decodeJwt(token)).toEqual({ iss: ISSUER, sub: 'admin', iat: NOW, exp: NOW + TTL });
  });
});

describe('Admin JWT verification: the key in force, HS256 only, all four claims, the TTL in force, no other claim', () => {
  const claims = (overrides: Record<string, unknown> = {}) => ({
    iss: ISSUER,
    sub: 'admin',
    iat: NOW,
    exp: NOW + TTL,
    ...overrides,
  });

  beforeAll(() => {
    vi.useRealTimers();
  });

  const at = (seconds: number) => vi.useFakeTimers({ toFake: ['Date'], now: seconds * 1000 });

  it('accepts a token it issued and caches it until exp', async () => {
    at(NOW);
    expect(await outcome(admin(), await issueAdminToken(settings(), ISSUER, NOW))).toEqual({
      principal: { type: 'admin', name: 'admin', expiresAt: (NOW + TTL) * 1000 },
      cacheUntil: (NOW + TTL) * 1000,
    });
  });

  it('does not own a token of another issuer (null: another authenticator may)', async () => {
    at(NOW);
    expect(await outcome(admin(), await signToken(claims({ iss: 'https://elsewhere.test' })))).toBeNull();
  });

  it('refuses every admin token while the account is disabled', async () => {
    at(NOW);
    expect(await outcome(admin({ ADMIN_ACCOUNT_ENABLED: 'false' }), await signToken(claims()))).toEqual(
      refused('the admin account is disabled', 'AdminAccountDisabled'),
    );
  });

  it.each([
    ['another key', () => signToken(claims(), { key: OTHER_SIGNING_KEY }), 'token signature is invalid'],
    ['HS384', () => signToken(claims(), { alg: 'HS384' }), 'token algorithm is not allowed'],
    ['HS512', () => signToken(claims(), { alg: 'HS512' }), 'token algorithm is not allowed'],
    ['alg none', async () => unsignedToken(claims()), 'token algorithm is not allowed'],
    [
      'a signature that is not base64url',
      async () => (await signToken(claims())).replace(/\.[^.]+$/, '.!!!'),
      'token is malformed',
    ],
    [
      'an unknown critical header',
      async () => {
        const [, payload, signature] = (await signToken(claims())).split('.');
        return `${Buffer.from(JSON.stringify({ alg: 'HS256', crit: ['x-unknown'], 'x-unknown': 1 })).toString('base64url')}.${payload}.${signature}`;
      },
      'token is malformed',
    ],
    ['sub other than admin', () => signToken(claims({ sub: 'root' })), 'token claim "sub" is invalid'],
    ['no sub', () => signToken(claims({ sub: undefined })), 'token claim "sub" is invalid'],
    ['no iat', () => signToken(claims({ iat: undefined })), 'token claim "iat" is invalid'],
    ['no exp', () => signToken(claims({ exp: undefined })), 'token claim "exp" is invalid'],
    ['an expired exp', () => signToken(claims({ iat: NOW - TTL - 1, exp: NOW - 1 })), 'token has expired'],
    [
      'a groups claim',
      () => signToken(claims({ groups: ['system:masters'] })),
      'admin token carries unexpected claims: groups',
    ],
    [
      'two extra claims',
      () => signToken(claims({ role: 'x', aud: 'y' })),
      'admin token carries unexpected claims: role, aud',
    ],
    [
      'iat more than a minute ahead',
      () => signToken(claims({ iat: NOW + 61, exp: NOW + 61 + TTL })),
      'admin token was issued in the future',
    ],
    [
      'a lifetime beyond the TTL',
      () => signToken(claims({ exp: NOW + TTL + 1 })),
      'admin token lifetime does not match the configured TTL',
    ],
    ['exp equal to iat', () => signToken(claims({ iat: NOW - 10, exp: NOW - 10 })), 'token has expired'],
    [
      'exp before iat',
      () => signToken(claims({ iat: NOW + 30, exp: NOW + 20 })),
      'admin token lifetime does not match the configured TTL',
    ],
    [
      'exp equal to an iat within the clock skew',
      () => signToken(claims({ iat: NOW + 30, exp: NOW + 30 })),
      'admin token lifetime does not match the configured TTL',
    ],
  ])('refuses %s with 401', async (_case, token, message) => {
    at(NOW);
    expect(await outcome(admin(), await token())).toEqual(refused(message));
  });

  it.each([
    ['iat exactly a minute ahead (the tolerated clock skew)', { iat: NOW + 60, exp: NOW + 60 + TTL }],
    ['a lifetime of exactly the TTL', { exp: NOW + TTL }],
    ['a lifetime shorter than the TTL', { exp: NOW + 1 }],
  ])('accepts %s', async (_case, overrides) => {
    at(NOW);
    expect(await outcome(admin(), await signToken(claims(overrides)))).toMatchObject({
      principal: { type: 'admin', name: 'admin' },
    });
  });

  it('refuses at exp, accepts one second before', async () => {
    const token = await issueAdminToken(settings(), ISSUER, NOW);
    at(NOW + TTL - 1);
    expect(await outcome(admin(), token)).toMatchObject({ principal: { type: 'admin' } });
    at(NOW + TTL);
    expect(await outcome(admin(), token)).toEqual(refused('token has expired'));
  });

  it('a lowered TTL shortens live sessions: a token issued under a longer TTL is refused', async () => {
    at(NOW);
    const token = await issueAdminToken(settings(), ISSUER, NOW);
    expect(await outcome(admin({ ADMIN_ACCOUNT_TOKEN_TTL: `${TTL - 1}s` }), token)).toEqual(
      refused('admin token lifetime does not match the configured TTL'),
    );
  });

  it('exposes its issuer, which marks a token as an admin token', () => {
    expect(admin().issuer).toBe(ISSUER);
  });
});

/** Every public-key algorithm a provider may sign ID tokens with (RFC 7518, RFC 8037, RFC 9864's Ed25519). */
const PUBLIC_KEY_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

describe("OIDC ID tokens: the provider's keys, its issuer, an audience among the client IDs, an exp, and the username claim", () => {
  let provider: StaticOidcIssuer & { close(): Promise<void> };
  let authenticator: OidcTokenAuthenticator;
  const oidcSettings = (issuerUrl: string): OidcSettings =>
    ({
      issuerUrl,
      clientId: 'web',
      cliClientId: 'cli',
      additionalScopes: [],
      usernameClaim: 'email',
      usernamePrefix: 'idp#',
      groupsPrefix: 'idp-group:',
      fetchUrlFor: (url: string) => url,
    }) as OidcSettings;

  beforeAll(async () => {
    provider = await startStaticOidcIssuer({ extraAlgorithms: PUBLIC_KEY_ALGORITHMS.filter((alg) => alg !== 'ES256') });
    authenticator = new OidcTokenAuthenticator(
      oidcSettings(provider.issuer),
      new OidcKeySet(oidcSettings(provider.issuer), silentLogger),
    );
  });
  afterAll(() => provider.close());

  it.each(['web', 'cli', ['other', 'cli']])('accepts audience %j and caches until exp', async (aud) => {
    const token = await provider.sign({ aud, email: 'alice@example.com', groups: ['dev'] });
    const claims = decodeJwt(token);
    expect(await outcome(authenticator, token)).toEqual({
      principal: {
        type: 'oidc',
        name: 'idp#alice@example.com',
        groups: ['idp-group:dev'],
        claims,
        expiresAt: (claims.exp as number) * 1000,
      },
      cacheUntil: (claims.exp as number) * 1000,
    });
  });

  it.each(PUBLIC_KEY_ALGORITHMS)("accepts a token signed with the provider's %s key", async (alg) => {
    const token = await provider.sign({ aud: 'web', email: 'alice@example.com' }, alg);
    expect(decodeProtectedHeader(token).alg).toBe(alg);
    expect(await outcome(authenticator, token)).toMatchObject({
      principal: { type: 'oidc', name: 'idp#alice@example.com', groups: [] },
    });
  });

  it("refuses an unsigned token (alg none) of the provider's issuer with 401", async () => {
    const token = unsignedToken({
      iss: provider.issuer,
      aud: 'web',
      email: 'a@example.com',
      exp: Math.floor(Date.now() / 1000) + 60,
    });
    expect(await outcome(authenticator, token)).toEqual(refused('token algorithm is not allowed'));
  });

  it('does not own a token of another issuer', async () => {
    expect(
      await outcome(authenticator, await signToken({ iss: 'https://elsewhere.test', aud: 'web', email: 'a' })),
    ).toBeNull();
  });

  it.each([
    [
      'another audience',
      () => provider.sign({ aud: 'other', email: 'a@example.com' }),
      'token claim "aud" is invalid',
      'InvalidToken',
    ],
    [
      'no exp',
      () => provider.sign({ aud: 'web', email: 'a@example.com', exp: undefined }),
      'token claim "exp" is invalid',
      'InvalidToken',
    ],
    [
      'an expired exp',
      () => provider.sign({ aud: 'web', email: 'a@example.com', iat: 1, exp: 2 }),
      'token has expired',
      'InvalidToken',
    ],
    [
      'an HMAC signature',
      () =>
        signToken({
          iss: provider.issuer,
          aud: 'web',
          email: 'a@example.com',
          exp: Math.floor(Date.now() / 1000) + 60,
        }),
      'token algorithm is not allowed',
      'InvalidToken',
    ],
    [
      'no username claim',
      () => provider.sign({ aud: 'web', sub: 'alice' }),
      'ID token has no "email" claim (OIDC_USERNAME_CLAIM)',
      'MissingUsernameClaim',
    ],
    [
      'an empty username claim',
      () => provider.sign({ aud: 'web', email: '' }),
      'ID token has no "email" claim (OIDC_USERNAME_CLAIM)',
      'MissingUsernameClaim',
    ],
    [
      'a non-string username claim',
      () => provider.sign({ aud: 'web', email: 7 }),
      'ID token has no "email" claim (OIDC_USERNAME_CLAIM)',
      'MissingUsernameClaim',
    ],
    [
      // Issue 20: what reaches storage is what storage can hold; a run's principal is a text column.
      'a username claim with NUL',
      () => provider.sign({ aud: 'web', email: 'a\u0000@example.com' }),
      'ID token\'s "email" claim (OIDC_USERNAME_CLAIM) contains the NUL character (U+0000)',
      'InvalidUsernameClaim',
    ],
  ])('refuses %s with 401', async (_case, token, message, reason) => {
    expect(await outcome(authenticator, await token())).toEqual(refused(message, reason));
  });

  it('refuses a token signed with a key the provider does not publish', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ aud: 'web', email: 'a@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: 'not-published' })
      .setIssuer(provider.issuer)
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await outcome(authenticator, token)).toEqual(refused('no key of the issuer matches the token'));
  });

  it('answers 503 when the provider cannot be reached for its keys (never a 401 for a token that may be valid)', async () => {
    const unreachable = 'http://127.0.0.1:9/oidc';
    const offline = new OidcTokenAuthenticator(
      oidcSettings(unreachable),
      new OidcKeySet(oidcSettings(unreachable), silentLogger, { fetchTimeoutMs: 2_000 }),
    );
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ aud: 'web', email: 'a@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setIssuer(unreachable)
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await outcome(offline, token)).toEqual([
      503,
      'IdentityProviderUnavailable',
      'the identity provider cannot be reached to fetch its signing keys; retry shortly',
    ]);
  });
});
