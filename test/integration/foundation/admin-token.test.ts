import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import {
  adminClaims,
  adminEnv,
  OTHER_SIGNING_KEY,
  signToken,
  unsignedToken,
  ADMIN_PASSWORD,
} from '../../support/admin-fixtures.ts';
import { getWithToken, loginToken, startTestGateway } from '../../support/function-servers.ts';

const BASE_URL = 'https://platform.example.test';
// An authenticated route that needs nothing but a valid token (no cluster, no database).
const WHO_AM_I = '/api/v1alpha1/auth/whoami';

describe('Admin JWT (issued by the service)', () => {
  let gateway: RunningServer;
  let token: string;
  /** The login's time span, in whole seconds: the token was issued within it. */
  let loginStarted: number;
  let loginEnded: number;

  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv({ API_BASE_URL: BASE_URL, ADMIN_ACCOUNT_TOKEN_TTL: '1h30m' }));
    loginStarted = Math.floor(Date.now() / 1000);
    token = await loginToken(gateway.url, ADMIN_PASSWORD);
    loginEnded = Math.ceil(Date.now() / 1000);
  });
  afterAll(() => gateway.close());

  it('is signed with HMAC-SHA256 (HS256)', () => {
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
  });

  it('carries exactly iss, sub, iat and exp: no group, resource or role claims', () => {
    expect(Object.keys(decodeJwt(token)).sort()).toEqual(['exp', 'iat', 'iss', 'sub']);
  });

  it("has iss = the API server's own URL and sub = admin", () => {
    const claims = decodeJwt(token);
    expect(claims.iss).toBe(BASE_URL);
    expect(claims.sub).toBe('admin');
  });

  it('has exp = issue time plus the configured TTL', () => {
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(90 * 60);
    expect(claims.iat).toBeGreaterThanOrEqual(loginStarted);
    expect(claims.iat).toBeLessThanOrEqual(loginEnded);
  });

  it('is accepted as a bearer token on an authenticated route', async () => {
    expect((await getWithToken(gateway.url, WHO_AM_I, token)).status).toBe(200);
  });
});

describe('Admin token verification: signature and expiry are checked, and all four claims are required', () => {
  let gateway: RunningServer;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv({ API_BASE_URL: BASE_URL }));
  });
  afterAll(() => gateway.close());

  const expect401 = async (token: string) => {
    const response = await getWithToken(gateway.url, WHO_AM_I, token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await response.json()).toMatchObject({ error: expect.any(String), reason: expect.any(String) });
  };

  it('accepts a well-formed token signed with the key in force (control)', async () => {
    expect((await getWithToken(gateway.url, WHO_AM_I, await signToken(adminClaims(BASE_URL)))).status).toBe(200);
  });

  it('rejects a tampered payload with 401', async () => {
    const [header, , signature] = (await signToken(adminClaims(BASE_URL))).split('.');
    const forged = Buffer.from(JSON.stringify({ ...adminClaims(BASE_URL), exp: 9_999_999_999 })).toString('base64url');
    await expect401(`${header}.${forged}.${signature}`);
  });

  it('rejects a tampered signature with 401', async () => {
    const token = await signToken(adminClaims(BASE_URL));
    await expect401(token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA'));
  });

  it('rejects an expired token with 401', async () => {
    const past = Math.floor(Date.now() / 1000) - 7200;
    await expect401(await signToken(adminClaims(BASE_URL, 3600, past)));
  });

  it('rejects a token signed with another key with 401', async () => {
    await expect401(await signToken(adminClaims(BASE_URL), { key: OTHER_SIGNING_KEY }));
  });

  it('rejects alg "none" with 401', async () => {
    await expect401(unsignedToken(adminClaims(BASE_URL)));
  });

  it.each(['HS384', 'HS512'] as const)('rejects %s even with the right key (HS256 only) with 401', async (alg) => {
    await expect401(await signToken(adminClaims(BASE_URL), { alg }));
  });

  it.each(['sub', 'iat', 'exp'])('rejects a token without %s with 401', async (claim) => {
    const claims = adminClaims(BASE_URL);
    delete claims[claim];
    await expect401(await signToken(claims));
  });

  it('rejects a token without iss with 401 (it is no admin token, and no other issuer owns it)', async () => {
    const claims = adminClaims(BASE_URL);
    delete claims.iss;
    await expect401(await signToken(claims));
  });

  it('rejects a token whose sub is not admin with 401', async () => {
    await expect401(await signToken({ ...adminClaims(BASE_URL), sub: 'root' }));
  });

  it('rejects a token for another issuer URL with 401', async () => {
    await expect401(await signToken(adminClaims('https://elsewhere.example.test')));
  });

  it('rejects a token issued in the future with 401', async () => {
    await expect401(await signToken(adminClaims(BASE_URL, 3600, Math.floor(Date.now() / 1000) + 3600)));
  });

  it('rejects a token whose lifetime exceeds the TTL in force with 401', async () => {
    await expect401(await signToken(adminClaims(BASE_URL, 48 * 3600)));
  });

  it('rejects a token with extra claims (groups, roles) with 401', async () => {
    await expect401(await signToken({ ...adminClaims(BASE_URL), groups: ['platform-eng'] }));
  });

  it('rejects a token that is not a JWT with 401', async () => {
    await expect401('not-a-jwt');
  });
});

describe('Admin account disabled: no admin JWT is accepted, including earlier-issued ones', () => {
  it('rejects a token signed with the right key while the account is disabled', async () => {
    const enabled = await startTestGateway(adminEnv({ API_BASE_URL: BASE_URL }));
    const token = await loginToken(enabled.url, ADMIN_PASSWORD);
    await enabled.close();
    const disabled = await startTestGateway(adminEnv({ API_BASE_URL: BASE_URL, ADMIN_ACCOUNT_ENABLED: 'false' }));
    try {
      const response = await getWithToken(disabled.url, WHO_AM_I, token);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ reason: 'AdminAccountDisabled' });
    } finally {
      await disabled.close();
    }
  });
});

describe('Signing key changed and API server restarted: every earlier token is invalid', () => {
  it('rejects a token signed with the previous key and accepts a new login', async () => {
    const before = await startTestGateway(adminEnv({ API_BASE_URL: BASE_URL }));
    const oldToken = await loginToken(before.url, ADMIN_PASSWORD);
    await before.close();
    const after = await startTestGateway(
      adminEnv({ API_BASE_URL: BASE_URL, ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY }),
    );
    try {
      expect((await getWithToken(after.url, WHO_AM_I, oldToken)).status).toBe(401);
      const newToken = await loginToken(after.url, ADMIN_PASSWORD);
      expect((await getWithToken(after.url, WHO_AM_I, newToken)).status).toBe(200);
    } finally {
      await after.close();
    }
  });
});

describe('Local development: the signing key is generated in memory at each start', () => {
  it('invalidates every earlier token after a restart', async () => {
    const first = await startTestGateway({ API_BASE_URL: BASE_URL });
    const token = await loginToken(first.url, 'admin');
    expect((await getWithToken(first.url, WHO_AM_I, token)).status).toBe(200);
    await first.close();
    const second = await startTestGateway({ API_BASE_URL: BASE_URL });
    try {
      expect((await getWithToken(second.url, WHO_AM_I, token)).status).toBe(401);
    } finally {
      await second.close();
    }
  });
});
