import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request } from 'node:http';
import { join } from 'node:path';
import { ADMIN_PASSWORD, adminEnv } from '../../support/admin-fixtures.ts';
import {
  SOURCE_ENTRY,
  getWithToken,
  loginToken,
  spawnFunctionProcess as spawnWith,
  type FunctionProcess,
} from '../../support/function-servers.ts';

// An authenticated route that needs nothing but a valid token (no cluster, no database).
const WHO_AM_I = '/api/v1alpha1/auth/whoami';

// Issue 10: the same suite runs on the TypeScript sources and on the bundles `npm run build` writes.
const ENTRIES = [
  ['the sources (node knative/server.ts)', SOURCE_ENTRY],
  ['the bundle (node dist/entry.mjs)', join(inject('bundleDir'), 'entry.mjs')],
] as const;

describe.each(ENTRIES)('Container entry on %s', (_, entry) => {
  const spawnFunctionProcess = (env: Record<string, string>) => spawnWith(env, { entry });

  describe('Horizontal scale: a token issued by one process is accepted by another that has the same key', () => {
    const processes: FunctionProcess[] = [];
    afterAll(() => Promise.all(processes.map((child) => child.stop())));

    it('accepts the token in a second process with the same key and rejects it in one with another key', async () => {
      const env = adminEnv({ API_BASE_URL: 'https://api.example.test' });
      const [loginProcess, sameKey, otherKey] = await Promise.all([
        spawnFunctionProcess({ ...env, FUNCTION_TARGET: 'login' }),
        spawnFunctionProcess({ ...env, FUNCTION_TARGET: 'resources' }),
        spawnFunctionProcess({ ...env, FUNCTION_TARGET: 'resources', ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'z'.repeat(64) }),
      ]);
      processes.push(loginProcess!, sameKey!, otherKey!);
      const token = await loginToken(loginProcess!.url, ADMIN_PASSWORD);
      expect((await getWithToken(sameKey!.url, WHO_AM_I, token)).status).toBe(200);
      expect((await getWithToken(otherKey!.url, WHO_AM_I, token)).status).toBe(401);
    });
  });

  describe('Container entry (Knative): PORT, FUNCTION_TARGET, limits and draining', () => {
    let child: FunctionProcess;
    beforeAll(async () => {
      child = await spawnFunctionProcess({
        ...adminEnv(),
        FUNCTION_TARGET: 'login',
        K_SERVICE: 'platform-api-login',
        MAX_REQUEST_BODY_BYTES: '2048',
        MAX_REQUEST_HEADER_BYTES: '4096',
      });
    });
    afterAll(() => child.stop());

    it("serves only the routes of its FUNCTION_TARGET (another function's route is 401 without a token, 404 with one)", async () => {
      const token = await loginToken(child.url, ADMIN_PASSWORD);
      expect((await fetch(`${child.url}${WHO_AM_I}`)).status).toBe(401);
      expect((await getWithToken(child.url, WHO_AM_I, token)).status).toBe(404);
    });

    it('refuses a body over MAX_REQUEST_BODY_BYTES with 413 before any handler runs', async () => {
      const response = await fetch(`${child.url}/api/v1alpha1/auth/login`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
        body: 'x'.repeat(10_000),
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ reason: 'PayloadTooLarge' });
    });

    it('refuses a chunked body that grows past the limit with 413', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const outgoing = request(
          `${child.url}/api/v1alpha1/auth/login`,
          { method: 'POST', headers: { authorization: 'Bearer x', 'transfer-encoding': 'chunked' } },
          (response) => {
            response.resume();
            resolve(response.statusCode!);
          },
        );
        outgoing.on('error', reject);
        for (let chunk = 0; chunk < 8; chunk++) outgoing.write('y'.repeat(1024));
        outgoing.end();
      });
      expect(status).toBe(413);
    });

    it('refuses headers over MAX_REQUEST_HEADER_BYTES with 431', async () => {
      const response = await fetch(`${child.url}/healthz`, { headers: { 'x-padding': 'p'.repeat(8192) } });
      expect(response.status).toBe(431);
    });
  });

  describe('Container entry: SIGTERM drains in-flight requests', () => {
    it('finishes a login whose body is still arriving when SIGTERM comes, then exits 0', async () => {
      const child = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login' });
      const outgoing = request(`${child.url}/api/v1alpha1/auth/login`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_PASSWORD}`,
          'content-type': 'application/octet-stream',
          'transfer-encoding': 'chunked',
          expect: '100-continue',
        },
      });
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        outgoing.on('response', (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
        });
        outgoing.on('error', reject);
      });
      // 100 Continue: the server has parsed the request, which cannot be answered before its body ends.
      const continued = new Promise((resolve) => outgoing.once('continue', resolve));
      outgoing.flushHeaders();
      await continued;
      outgoing.write('first half of the body; ');
      const exited = child.stop();
      await waitFor(() => child.output().includes('shutting down: draining in-flight requests'));
      expect(child.child.exitCode, 'the process exited with a request in flight').toBeNull();
      outgoing.end('second half');
      const response = await answered;
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ idToken: expect.any(String) });
      expect(await exited).toBe(0);
    });
  });

  describe('Configuration: every bad value is refused at start-up with a message naming the variable', () => {
    it.each([
      ['ADMIN_ACCOUNT_TOKEN_TTL', '1 day'],
      ['ADMIN_ACCOUNT_ENABLED', 'maybe'],
      ['ADMIN_ACCOUNT_PASSWORD_HASH', 'plaintext-password'],
      ['ADMIN_ACCOUNT_TOKEN_SIGNING_KEY', 'short'],
      ['API_BASE_URL', 'not a url'],
      ['FUNCTION_TARGET', 'everything'],
    ])('%s=%s stops the process with exit 1 and names the variable', async (variable, value) => {
      const error = await spawnFunctionProcess({ ...adminEnv(), FUNCTION_TARGET: 'login', [variable]: value }).then(
        () => null,
        (failure: Error) => failure.message,
      );
      expect(error).toMatch(/exited with 1/);
      expect(error).toContain(`refusing to start: ${variable}`);
    });
  });
});

/** Waits until the condition holds, checking every 20 ms, for a generous 20 s at most. */
async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
