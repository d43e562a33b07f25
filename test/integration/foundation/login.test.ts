import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { PasswordVerifier } from '../../../shared/auth/password-verifier.ts';
import { ADMIN_PASSWORD, adminEnv, adminHash } from '../../support/admin-fixtures.ts';
import { capturingLogger, login, startTestGateway } from '../../support/function-servers.ts';
import { AuditCapture } from '../../support/audit-capture.ts';

const LOGIN = '/api/v1alpha1/auth/login';

describe('POST /api/v1alpha1/auth/login: success (200) returns {"idToken"} and sets a cookie', () => {
  let gateway: RunningServer;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv({ API_BASE_URL: 'https://api.example.test' }));
  });
  afterAll(() => gateway.close());

  it('answers 200 with exactly one field, idToken', async () => {
    const response = await login(gateway.url, ADMIN_PASSWORD);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['idToken']);
    expect(body.idToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('sets an HttpOnly, SameSite cookie carrying the token, Secure because the base URL is https', async () => {
    const response = await login(gateway.url, ADMIN_PASSWORD);
    const { idToken } = (await response.json()) as { idToken: string };
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toContain(`=${idToken}`);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Max-Age=3600(;|$)/);
  });

  it('takes no body and no query parameters: the password goes in Authorization: Bearer', async () => {
    const response = await fetch(`${gateway.url}${LOGIN}`, {
      method: 'POST',
      body: JSON.stringify({ password: ADMIN_PASSWORD }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ reason: 'MissingPassword' });
  });
});

describe('Login cookie over plain http', () => {
  it('is not marked Secure when the base URL is http', async () => {
    const gateway = await startTestGateway(adminEnv({ API_BASE_URL: 'http://localhost:8080' }));
    try {
      const cookie = (await login(gateway.url, ADMIN_PASSWORD)).headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).not.toMatch(/Secure/);
    } finally {
      await gateway.close();
    }
  });
});

describe('Login failure: 403 for a wrong password and for a disabled account, told apart only by the body', () => {
  it('answers 403 InvalidPassword for a wrong password', async () => {
    const gateway = await startTestGateway(adminEnv());
    try {
      const response = await login(gateway.url, 'wrong password');
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'invalid password', reason: 'InvalidPassword' });
    } finally {
      await gateway.close();
    }
  });

  it('answers 403 AdminAccountDisabled while the account is disabled, even for the right password', async () => {
    const gateway = await startTestGateway(adminEnv({ ADMIN_ACCOUNT_ENABLED: 'false' }));
    try {
      const right = await login(gateway.url, ADMIN_PASSWORD);
      const wrong = await login(gateway.url, 'wrong password');
      expect(right.status).toBe(403);
      expect(wrong.status).toBe(403);
      const rightBody = (await right.json()) as { reason: string; error: string };
      expect(rightBody.reason).toBe('AdminAccountDisabled');
      expect(rightBody.error).not.toBe('invalid password');
      expect(await wrong.json()).toMatchObject({ reason: 'AdminAccountDisabled' });
    } finally {
      await gateway.close();
    }
  });

  it('reports the disabled account in public-config', async () => {
    const gateway = await startTestGateway(adminEnv({ ADMIN_ACCOUNT_ENABLED: 'false' }));
    try {
      const config = await (await fetch(`${gateway.url}/api/v1alpha1/system/public-config`)).json();
      expect(config).toEqual({ adminAccountEnabled: false });
    } finally {
      await gateway.close();
    }
  });
});

describe('A bcrypt hash with the $2y$ prefix makes login fail with 403 even for the right password', () => {
  it('refuses the right password and warns at start-up', async () => {
    const logger = capturingLogger();
    const gateway = await startTestGateway(
      adminEnv({ ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(ADMIN_PASSWORD, '$2y$') }),
      { logger },
    );
    try {
      const response = await login(gateway.url, ADMIN_PASSWORD);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ reason: 'InvalidPassword' });
      expect(logger.lines.some((line) => line.includes('"level":"warn"') && line.includes('$2y'))).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it.each(['$2a$', '$2b$'] as const)('accepts the right password with a %s hash', async (prefix) => {
    const gateway = await startTestGateway(
      adminEnv({ ADMIN_ACCOUNT_PASSWORD_HASH: adminHash(ADMIN_PASSWORD, prefix) }),
    );
    try {
      expect((await login(gateway.url, ADMIN_PASSWORD)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('Login input: a missing or malformed header is a 4xx, never a 500', () => {
  let gateway: RunningServer;
  beforeAll(async () => {
    gateway = await startTestGateway(adminEnv());
  });
  afterAll(() => gateway.close());

  it.each([
    ['no Authorization header', undefined, 400],
    ['Basic credentials', 'Basic YWRtaW46YWRtaW4=', 400],
    ['"Bearer" with nothing after it', 'Bearer ', 400],
    ['a password over 72 bytes', `Bearer ${'p'.repeat(73)}`, 403],
  ])('%s → %s', async (_label, header, status) => {
    const response = await fetch(`${gateway.url}${LOGIN}`, {
      method: 'POST',
      headers: header === undefined ? {} : { authorization: header },
    });
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error: expect.any(String), reason: expect.any(String) });
  });

  it('only POST is open: GET without a token is 401, GET with a valid token is 405', async () => {
    expect((await fetch(`${gateway.url}${LOGIN}`)).status).toBe(401);
    const { idToken } = (await (await login(gateway.url, ADMIN_PASSWORD)).json()) as { idToken: string };
    const response = await fetch(`${gateway.url}${LOGIN}`, { headers: { authorization: `Bearer ${idToken}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('Repeated failed logins from one client are throttled (429 with Retry-After)', () => {
  it('throttles a client after 5 failures and keeps other clients unaffected', async () => {
    const gateway = await startTestGateway(adminEnv({ TRUSTED_PROXY_HOPS: '1' }));
    try {
      const attacker = { 'x-forwarded-for': '203.0.113.7' };
      for (let attempt = 0; attempt < 5; attempt++)
        expect((await login(gateway.url, 'guess', attacker)).status).toBe(403);
      const throttled = await login(gateway.url, ADMIN_PASSWORD, attacker);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await throttled.json()).toMatchObject({ reason: 'TooManyFailedLogins' });
      expect((await login(gateway.url, ADMIN_PASSWORD, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it("clears a client's failures after a successful login", async () => {
    const gateway = await startTestGateway(adminEnv());
    try {
      for (let attempt = 0; attempt < 4; attempt++) await login(gateway.url, 'guess');
      expect((await login(gateway.url, ADMIN_PASSWORD)).status).toBe(200);
      for (let attempt = 0; attempt < 4; attempt++) expect((await login(gateway.url, 'guess')).status).toBe(403);
    } finally {
      await gateway.close();
    }
  });
});

describe('Issue 36, item 2: an account-wide budget; IPv6 clients by prefix; what is counted is said', () => {
  it('past LOGIN_ACCOUNT_MAX_FAILURES failures of all clients together, every client gets 429 until the window moves; then the right password works', async () => {
    const logger = capturingLogger();
    const audit = new AuditCapture();
    // The gateway runs in this process: its clock is stopped while the test counts, so the window
    // cannot move on a busy machine, and the test moves it past the window's end.
    const gateway = await startTestGateway(
      adminEnv({ TRUSTED_PROXY_HOPS: '1', LOGIN_ACCOUNT_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '3s' }),
      { logger, auditSinks: [audit] },
    );
    vi.useFakeTimers({ toFake: ['Date'] });
    const firstFailureAt = Date.now();
    try {
      const from = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
      const failures = [];
      for (let client = 1; client <= 3; client++) failures.push(await login(gateway.url, 'guess', from(client)));
      expect(failures.map((response) => response.status)).toEqual([403, 403, 403]);
      expect(audit.completed(failures[2]!).annotations).toMatchObject({
        'platform-api/login-outcome': 'wrong-password',
        'platform-api/login-account-failures': '3/3',
        'platform-api/login-failure-store': 'process',
      });
      const lockout = logger.lines.filter((line) => line.includes('admin account locked'));
      expect(lockout).toHaveLength(1);
      expect(lockout[0]).toContain('"level":"warn"');

      // A client never seen before, with the right password: the account's budget is spent.
      const refused = await login(gateway.url, ADMIN_PASSWORD, from(99));
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBe(3);
      expect(await refused.json()).toMatchObject({ reason: 'TooManyFailedLoginsForAccount' });
      expect(audit.completed(refused).annotations).toMatchObject({
        'platform-api/login-outcome': 'account-throttled',
        'platform-api/login-account-failures': '3/3',
      });

      // A millisecond before the window's end the account still waits; at its end the window has moved.
      vi.setSystemTime(firstFailureAt + 3_000 - 1);
      expect((await login(gateway.url, ADMIN_PASSWORD, from(99))).status).toBe(429);
      vi.setSystemTime(firstFailureAt + 3_000);
      const after = await login(gateway.url, ADMIN_PASSWORD, from(99));
      expect(after.status).toBe(200);
      const { idToken } = (await after.json()) as { idToken: string };
      const metrics = await (
        await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${idToken}` } })
      ).text();
      expect(metrics).toMatch(/^platform_api_login_account_lockouts_total 1$/m);
      expect(metrics).toMatch(/^platform_api_login_throttle_refusals_total\{budget="account"\} [1-9]/m);
      expect(metrics).toMatch(/^platform_api_shared_limit_store\{limit="login_failures",store="process"\} 1$/m);
      expect(metrics).toMatch(/^platform_api_login_account_failures 0$/m);
    } finally {
      vi.useRealTimers();
      await gateway.close();
    }
  });

  it('the addresses of one IPv6 /64 are one client: after 5 failures from five of them, a sixth address is throttled', async () => {
    const gateway = await startTestGateway(adminEnv({ TRUSTED_PROXY_HOPS: '1' }));
    try {
      const from = (n: number) => ({ 'x-forwarded-for': `2001:db8:77:1::${n.toString(16)}` });
      for (let n = 1; n <= 5; n++) expect((await login(gateway.url, 'guess', from(n))).status).toBe(403);
      const throttled = await login(gateway.url, ADMIN_PASSWORD, from(0xbeef));
      expect(throttled.status).toBe(429);
      expect(await throttled.json()).toMatchObject({ reason: 'TooManyFailedLogins' });
      expect((await login(gateway.url, ADMIN_PASSWORD, { 'x-forwarded-for': '2001:db8:77:2::1' })).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('a disabled account compares nothing and counts nothing: every attempt is 403 AdminAccountDisabled, never 429', async () => {
    const gateway = await startTestGateway(adminEnv({ ADMIN_ACCOUNT_ENABLED: 'false' }));
    try {
      for (let attempt = 0; attempt < 8; attempt++) {
        const response = await login(gateway.url, 'guess');
        expect(response.status).toBe(403);
        expect(await response.json()).toMatchObject({ reason: 'AdminAccountDisabled' });
      }
    } finally {
      await gateway.close();
    }
  });

  it('without a database, the start-up log says failed logins are counted in each process on its own', async () => {
    const logger = capturingLogger();
    const gateway = await startTestGateway(adminEnv(), { logger });
    try {
      const said = logger.lines.filter((line) => line.includes('failed logins are counted in this process only'));
      expect(said).toHaveLength(1);
      expect(JSON.parse(said[0]!)).toMatchObject({ level: 'warn', accountMaxFailures: 20, clientMaxFailures: 5 });
    } finally {
      await gateway.close();
    }
  });
});

describe('A burst of logins must not stall the instance: comparisons are queued off the main thread, bounded', () => {
  it('answers busy at once when the queue is full instead of queueing more CPU work', async () => {
    const verifier = new PasswordVerifier(2);
    const hash = adminHash('x');
    try {
      const results = await Promise.all([
        verifier.compare('x', hash),
        verifier.compare('y', hash),
        verifier.compare('x', hash),
      ]);
      expect(results).toEqual([true, false, 'busy']);
    } finally {
      await verifier.close();
    }
  });
});
