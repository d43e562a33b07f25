// Issue 36, "Show": the limits that must hold across instances, on the fleet (`npm run fleet --
// --replicas 3`: every function three processes behind the gateway, one database). A client
// rotating over the login replicas and over 1,000 IPv4 addresses and 1,000 addresses of one IPv6
// /64 (through the gateway's trusted X-Forwarded-For) gets no more failures in a window than the
// account's budget, and the right password works once the window has moved; a principal's run-log
// streams and watches are capped across two instances, not per process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../../../infra/development/fleet/fleet.ts';
import { FLEET_START_BOUND_MS, REPLICA_START_BOUND_MS } from '../../support/fleet-start.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { capturingLogger, login, loginToken } from '../../support/function-servers.ts';

const REPLICAS = 3;
// Long enough that the window cannot move while the 2,000 attempts are counted: on a busy two-core
// machine they took 57 s, past the 45 s window this test had, and failures of a second window were
// counted (issue 44, item 14). The wait for the window's end after them is idle.
const WINDOW_SECONDS = 120;
const ACCOUNT_BUDGET = 20;
const CLIENT_BUDGET = 5;
const MAX_STREAMS = 4;
const MAX_WATCHES = 3;
// Each step waits on fifteen processes of a shared machine.
const STEP_TIMEOUT_MS = 120_000;
const EVENT_BOUND_MS = 20_000;

let fleet: Fleet;
let database: TestDatabase;
let dataDir: string;
let token: string;
const output = new Map<string, string[]>();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'platform-api-fleet-limits-'));
  database = await startTestDatabase();
  const env = {
    PORT: '0',
    DATABASE_URL: database.connectionString,
    // The gateway trusts the one proxy in front of it, the test client, for the client's address.
    TRUSTED_PROXY_HOPS: '1',
    LOGIN_FAILURE_WINDOW: `${WINDOW_SECONDS}s`,
    LOGIN_ACCOUNT_MAX_FAILURES: String(ACCOUNT_BUDGET),
    LOGIN_CLIENT_MAX_FAILURES: String(CLIENT_BUDGET),
    RUN_LOG_MAX_STREAMS_PER_PRINCIPAL: String(MAX_STREAMS),
    MAX_WATCHES_PER_PRINCIPAL: String(MAX_WATCHES),
    AUDIT_STDOUT: 'false',
  };
  fleet = await startFleet(loadSettings(env), env, {
    startTimeoutMs: REPLICA_START_BOUND_MS,
    replicas: REPLICAS,
    dataDir,
    logger: capturingLogger(),
    host: '127.0.0.1',
    healthCheckIntervalMs: 1000,
    onReplicaOutput: (replica, text) => {
      const key = `${replica.name}#${replica.index}`;
      output.set(key, [...(output.get(key) ?? []), text]);
    },
  });
  token = await loginToken(fleet.url);
}, FLEET_START_BOUND_MS);

afterAll(async () => {
  await fleet?.close();
  await database?.destroy();
  await rm(dataDir, { recursive: true, force: true });
});

const replicaUrl = (name: 'run-logs' | 'resources' | 'login', index: number) => fleet.replicas.get(name)![index]!.url;
const said = (replica: string, text: string) =>
  (output.get(replica) ?? [])
    .join('')
    .split('\n')
    .filter((line) => line.includes(text));

/** Opens until the answer is not 429 (a slot freed elsewhere is seen once that stream's close reached the database). */
async function openOnceFreed(open: () => Promise<Response>): Promise<Response> {
  const deadline = Date.now() + EVENT_BOUND_MS;
  for (;;) {
    const response = await open();
    if (response.status !== 429 || Date.now() > deadline) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Issue 36 on the fleet', { shuffle: false }, () => {
  it(
    'every login replica says at start that failed logins are counted in the database; run-logs and resources say so of their caps',
    () => {
      for (let index = 0; index < REPLICAS; index++) {
        expect(
          said(`login#${index}`, 'failed logins are counted in the database, shared by every instance'),
        ).toHaveLength(1);
        expect(
          said(`run-logs#${index}`, 'run-log streams are capped per principal across every instance'),
        ).toHaveLength(1);
        expect(said(`resources#${index}`, 'watches are capped per principal across every instance')).toHaveLength(1);
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    `run-log streams: ${MAX_STREAMS} per principal across two instances; the next is refused on either, and on a third; a close frees one`,
    async () => {
      const started = await fetch(`${fleet.url}/api/v1alpha1/projects/demo/workspaces/network-staging/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'plan' }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      const open = (replica: number) =>
        fetch(`${replicaUrl('run-logs', replica)}/api/v1alpha1/run-logs/demo/${id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
      const held = [await open(0), await open(0), await open(1), await open(1)];
      expect(held.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      for (const replica of [0, 1, 2]) {
        const refused = await open(replica);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(await refused.json()).toMatchObject({
          reason: 'TooManyStreams',
          error: expect.stringContaining(
            `at most ${MAX_STREAMS} run-log streams may be open at once per principal across every instance`,
          ),
        });
      }
      await held[2]!.body!.cancel();
      const freed = await openOnceFreed(() => open(0));
      expect(freed.status).toBe(200);
      for (const response of [held[0]!, held[1]!, held[3]!, freed]) await response.body!.cancel();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    `watches: ${MAX_WATCHES} per principal across two instances; the next is refused on either; a close frees one`,
    async () => {
      const open = (replica: number) =>
        fetch(`${replicaUrl('resources', replica)}/apis/platform.dev/v1alpha1/namespaces/demo/workspaces?watch=true`, {
          headers: { authorization: `Bearer ${token}` },
        });
      const held = [await openOnceFreed(() => open(0)), await open(0), await open(1)];
      expect(held.map((response) => response.status)).toEqual([200, 200, 200]);
      for (const replica of [0, 1]) {
        const refused = await open(replica);
        expect(refused.status).toBe(429);
        expect(await refused.json()).toMatchObject({ reason: 'TooManyWatches' });
      }
      await held[0]!.body!.cancel();
      const freed = await openOnceFreed(() => open(1));
      expect(freed.status).toBe(200);
      for (const response of [held[1]!, held[2]!, freed]) await response.body!.cancel();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    `a client rotating over ${REPLICAS} login replicas, 1,000 IPv4 addresses and 1,000 addresses of one IPv6 /64 gets ${ACCOUNT_BUDGET} failures in the window, no more; then every client waits, the admin too, until the window moves`,
    async () => {
      const addresses = Array.from({ length: 2_000 }, (_, index) =>
        index % 2 === 0
          ? `198.18.${Math.floor(index / 2 / 250)}.${((index / 2) % 250) + 1}`
          : `2001:db8:36:1:${(index % 65_536).toString(16)}::${((index * 7) % 65_536).toString(16)}`,
      );
      const answers: Array<{ address: string; status: number; reason?: string; retryAfter: string | null }> = [];
      const began = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < addresses.length) {
            const address = addresses[next++]!;
            const response = await login(fleet.url, 'not the password', { 'x-forwarded-for': address });
            const body = (await response.json()) as { reason?: string };
            answers.push({
              address,
              status: response.status,
              ...(body.reason ? { reason: body.reason } : {}),
              retryAfter: response.headers.get('retry-after'),
            });
          }
        }),
      );
      const tookMs = Date.now() - began;
      // The premise: every attempt fell in one window of the account (which opened with the first failure).
      expect(tookMs, `${answers.length} attempts took ${tookMs} ms`).toBeLessThan(WINDOW_SECONDS * 1000);

      const failures = answers.filter((answer) => answer.status === 403);
      expect(failures).toHaveLength(ACCOUNT_BUDGET);
      expect(failures.every((answer) => answer.reason === 'InvalidPassword')).toBe(true);
      expect(failures.filter((answer) => answer.address.includes(':')).length).toBeLessThanOrEqual(CLIENT_BUDGET);
      const refused = answers.filter((answer) => answer.status !== 403);
      expect(refused.every((answer) => answer.status === 429 && Number(answer.retryAfter) >= 1)).toBe(true);
      expect(new Set(refused.map((answer) => answer.reason))).toEqual(
        new Set(['TooManyFailedLogins', 'TooManyFailedLoginsForAccount']),
      );
      // The failures were compared on more than one replica: rotating over them gained nothing.
      // Log lines are written in batches (at most 1 s late): wait for the last ones.
      const perReplica = () => [0, 1, 2].map((index) => said(`login#${index}`, 'admin login failed').length);
      await expect
        .poll(() => perReplica().reduce((sum, count) => sum + count, 0), { timeout: 5_000 })
        .toBe(ACCOUNT_BUDGET);
      expect(perReplica().filter((count) => count > 0).length).toBeGreaterThanOrEqual(2);
      const { rows } = await database.pool.query("SELECT failures FROM login_failures WHERE key = 'account:admin'");
      expect(rows).toEqual([{ failures: ACCOUNT_BUDGET }]);

      // The documented trade-off: the admin, from an address never seen, waits as well.
      const admin = await login(fleet.url, 'admin', { 'x-forwarded-for': '192.0.2.200' });
      expect(admin.status).toBe(429);
      expect(await admin.json()).toMatchObject({ reason: 'TooManyFailedLoginsForAccount' });
      const wait = Number(admin.headers.get('retry-after'));
      expect(wait).toBeLessThanOrEqual(WINDOW_SECONDS);

      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      const deadline = Date.now() + EVENT_BOUND_MS;
      let after: Response;
      do {
        after = await login(fleet.url, 'admin', { 'x-forwarded-for': '192.0.2.200' });
        if (after.status === 429) await new Promise((resolve) => setTimeout(resolve, 250));
      } while (after.status === 429 && Date.now() < deadline);
      expect(after.status).toBe(200);
      expect(await after.json()).toMatchObject({ idToken: expect.any(String) });
    },
    STEP_TIMEOUT_MS + WINDOW_SECONDS * 1000,
  );
});
