// Issue 36, items 1 and 2, at the throttle the login function asks: which client an attempt counts
// for, one budget for every instance when there is a database, and a database that does not answer
// never opening the door (counted in the process from the counts it last gave, said in the log and
// the metrics). login-failure-stores.test.ts proves the counting rules; login.test.ts the answers.
import { createServer, type Server, type Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, LoginThrottle, type LoginFailureStoreName } from '../../../shared/auth/login-throttle.ts';
import type { Database } from '../../../shared/base/database/database.ts';
import { sharedLimit, type SharedLimitOptions } from '../../../shared/base/database/shared-limit.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import { NO_METRICS } from '../../../shared/base/metrics/metrics.ts';
import {
  DEFAULT_LOGIN_THROTTLE,
  type LoginThrottleSettings,
} from '../../../shared/base/config/login-throttle-settings.ts';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { instancePools, startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { capturingLogger, silentLogger } from '../../support/function-servers.ts';

const settings = (overrides: Partial<LoginThrottleSettings>): LoginThrottleSettings => ({
  ...DEFAULT_LOGIN_THROTTLE,
  ...overrides,
});

/** A throttle as the app context makes it: its limit from sharedLimit (the metrics it reports go to `metrics`). */
function throttleOf(options: {
  settings: LoginThrottleSettings;
  database?: Database;
  logger: Logger;
  metrics?: SharedLimitOptions['metrics'];
  retryMs?: number;
}): LoginThrottle {
  const limit = sharedLimit({
    name: 'login_failures',
    database: options.database,
    logger: options.logger,
    metrics: options.metrics ?? NO_METRICS,
    budgets: {},
    ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
  });
  return new LoginThrottle({ settings: options.settings, limit });
}

let database: TestDatabase;
beforeAll(async () => {
  database = await startTestDatabase();
});
afterAll(() => database?.destroy());

describe('Issue 36: an attempt counts for its client: an IPv4 address, an IPv6 /64, an IPv4-mapped address as IPv4', () => {
  it('three addresses of one /64 are one client: the third attempt is refused by the client budget of 2', async () => {
    const throttle = throttleOf({ settings: settings({ clientMaxFailures: 2 }), logger: silentLogger });
    expect((await throttle.admit('2001:db8:1:2::1')).admitted).toBe(true);
    expect((await throttle.admit('2001:db8:1:2:ffff::2')).admitted).toBe(true);
    expect(await throttle.admit('2001:db8:1:2::3')).toMatchObject({ admitted: false, refusedBy: 'client' });
    expect((await throttle.admit('2001:db8:1:3::1')).admitted).toBe(true);
  });

  it('::ffff:203.0.113.7 and 203.0.113.7 are one client; with LOGIN_IPV6_PREFIX_LENGTH=128 two IPv6 addresses are two', async () => {
    const ipv4 = throttleOf({ settings: settings({ clientMaxFailures: 1 }), logger: silentLogger });
    expect((await ipv4.admit('::ffff:203.0.113.7')).admitted).toBe(true);
    expect(await ipv4.admit('203.0.113.7')).toMatchObject({ admitted: false, refusedBy: 'client' });
    const exact = throttleOf({
      settings: settings({ clientMaxFailures: 1, ipv6PrefixLength: 128 }),
      logger: silentLogger,
    });
    expect((await exact.admit('2001:db8::1')).admitted).toBe(true);
    expect((await exact.admit('2001:db8::2')).admitted).toBe(true);
  });

  it('a refusal announces whole seconds, at least one: the Retry-After of the 429', async () => {
    const throttle = throttleOf({
      settings: settings({ clientMaxFailures: 1, windowMs: 90_000 }),
      logger: silentLogger,
    });
    await throttle.admit('198.51.100.1');
    expect(await throttle.admit('198.51.100.1')).toMatchObject({ retryAfterSeconds: 90, store: 'process' });
  });
});

describe('Issue 36, item 1: with a database, every instance counts against one budget', () => {
  let pools: pg.Pool[] = [];
  beforeAll(() => {
    pools = instancePools(database, 2);
  });
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  it('two instances with an account budget of 3: the fourth attempt, on either, is refused for the account', async () => {
    await database.pool.query('DELETE FROM login_failures');
    const [first, second] = pools.map((pool) =>
      throttleOf({
        settings: settings({ accountMaxFailures: 3 }),
        database: poolDatabase(pool),
        logger: silentLogger,
      }),
    );
    expect(first!.store).toBe('database');
    const answers = [
      await first!.admit('203.0.113.1'),
      await second!.admit('203.0.113.2'),
      await first!.admit('203.0.113.3'),
    ];
    expect(answers.map((answer) => answer.admitted && answer.store)).toEqual(['database', 'database', 'database']);
    expect(await second!.admit('203.0.113.4')).toMatchObject({ admitted: false, refusedBy: 'account' });
    expect(await first!.admit('203.0.113.5')).toMatchObject({ admitted: false, refusedBy: 'account' });
  });

  it('a refusal the database gave stands in the instance until its window ends: the attack that follows costs the database nothing', async () => {
    await database.pool.query('DELETE FROM login_failures');
    let statements = 0;
    const counting = new Proxy(pools[0]!, {
      get: (pool, property) =>
        property === 'query'
          ? (...args: Parameters<pg.Pool['query']>) => {
              statements++;
              return (pool.query as (...query: unknown[]) => unknown)(...args);
            }
          : Reflect.get(pool, property),
    });
    const throttle = throttleOf({
      settings: settings({ accountMaxFailures: 2 }),
      database: poolDatabase(counting),
      logger: silentLogger,
    });
    await throttle.admit('203.0.113.21');
    await throttle.admit('203.0.113.22');
    // The second admission told this instance the budget is spent: no statement for what follows.
    for (let client = 23; client < 33; client++) {
      expect(await throttle.admit(`203.0.113.${client}`)).toMatchObject({
        admitted: false,
        refusedBy: 'account',
        store: 'database',
      });
    }
    expect(statements).toBe(2);
  });

  it("a success gives its attempt back in the database: the client's failures forgotten, the account's taken back", async () => {
    await database.pool.query('DELETE FROM login_failures');
    const throttle = throttleOf({
      settings: settings({ clientMaxFailures: 2 }),
      database: poolDatabase(pools[0]!),
      logger: silentLogger,
    });
    await throttle.admit('203.0.113.9');
    const right = await throttle.admit('203.0.113.9');
    if (!right.admitted) throw new Error('refused');
    await throttle.succeeded(right);
    const { rows } = await database.pool.query('SELECT key, failures FROM login_failures ORDER BY key');
    expect(rows).toEqual([{ key: 'account:admin', failures: 1 }]);
  });
});

describe('Issue 36, item 1: a database that does not answer does not open the door', () => {
  it('stopped: counted in the process from the counts it last gave, said once in the log and to the metrics; back in the database once it answers', async () => {
    await database.pool.query('DELETE FROM login_failures');
    const logger = capturingLogger();
    const stores: LoginFailureStoreName[] = [];
    let fallbacks = 0;
    const [pool] = instancePools(database, 1) as [pg.Pool];
    const throttle = throttleOf({
      settings: settings({ accountMaxFailures: 5 }),
      database: poolDatabase(pool),
      logger,
      metrics: {
        sharedLimitStore: (_limit, store) => stores.push(store),
        sharedLimitFallback: () => fallbacks++,
      },
      retryMs: 500,
    });
    try {
      for (let client = 1; client <= 3; client++)
        expect(await throttle.admit(`192.0.2.${client}`)).toMatchObject({ admitted: true, store: 'database' });
      await database.stopServer();
      // The fleet's count so far was 3 of 5: this process goes on from there, so two more, not five.
      expect(await throttle.admit('192.0.2.4')).toMatchObject({ admitted: true, store: 'process', accountFailures: 4 });
      expect(await throttle.admit('192.0.2.5')).toMatchObject({ admitted: true, store: 'process', accountFailures: 5 });
      expect(await throttle.admit('192.0.2.6')).toMatchObject({
        admitted: false,
        refusedBy: 'account',
        store: 'process',
      });
      expect(fallbacks).toBe(3);
      // Said at start (the database), then on the failure.
      expect(stores).toEqual(['database', 'process']);
      const said = logger.lines.filter((line) => line.includes('counted in this process only'));
      expect(said).toHaveLength(1);
      expect(said[0]).toContain('"level":"error"');

      await database.startServer();
      await new Promise((resolve) => setTimeout(resolve, 600));
      const back = await eventuallyAnswered(() => throttle.admit('192.0.2.7'));
      expect(back).toMatchObject({ store: 'database' });
      expect(stores).toEqual(['database', 'process', 'database']);
      expect(logger.lines.some((line) => line.includes('counted in the database again'))).toBe(true);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it('one that accepts connections and never answers costs an attempt at most a few seconds, then the process counts it', async () => {
    const silent = await silentServer();
    const pool = createDatabasePool(`postgres://user:secret@127.0.0.1:${silent.port}/platform`, () => undefined);
    const throttle = throttleOf({
      settings: DEFAULT_LOGIN_THROTTLE,
      database: poolDatabase(pool),
      logger: silentLogger,
    });
    try {
      const started = Date.now();
      expect(await throttle.admit('192.0.2.10')).toMatchObject({ admitted: true, store: 'process' });
      expect(Date.now() - started).toBeLessThan(4_000);
      // Then the database is left alone for a while: the next attempt does not wait for it.
      const next = Date.now();
      expect(await throttle.admit('192.0.2.11')).toMatchObject({ store: 'process' });
      expect(Date.now() - next).toBeLessThan(100);
    } finally {
      await pool.end().catch(() => undefined);
      await silent.close();
    }
  });
});

describe('Issue 44, item 6: failures counted during a database outage are carried back to the database when it answers again', () => {
  it('an account budget of 4 spent in the process while the database is down: once it is back, neither this instance nor another admits a fifth', async () => {
    await database.pool.query('DELETE FROM login_failures');
    const [mine, other] = instancePools(database, 2) as [pg.Pool, pg.Pool];
    const throttleOn = (pool: pg.Pool) =>
      throttleOf({
        settings: settings({ accountMaxFailures: 4 }),
        database: poolDatabase(pool),
        logger: silentLogger,
        retryMs: 500,
      });
    const throttle = throttleOn(mine);
    try {
      expect(await throttle.admit('192.0.2.31')).toMatchObject({
        admitted: true,
        store: 'database',
        accountFailures: 1,
      });
      await database.stopServer();
      for (let client = 32; client <= 34; client++)
        expect(await throttle.admit(`192.0.2.${client}`)).toMatchObject({ admitted: true, store: 'process' });
      expect(await throttle.admit('192.0.2.35')).toMatchObject({ admitted: false, refusedBy: 'account' });

      await database.startServer();
      // The first attempt the database answers finds the outage's three failures there, with the one before.
      expect(await eventuallyAnswered(() => throttle.admit('192.0.2.36'))).toMatchObject({
        admitted: false,
        refusedBy: 'account',
        store: 'database',
      });
      const { rows } = await database.pool.query("SELECT failures FROM login_failures WHERE key = 'account:admin'");
      expect(rows).toEqual([{ failures: 4 }]);
      expect(await throttleOn(other).admit('192.0.2.37')).toMatchObject({
        admitted: false,
        refusedBy: 'account',
        store: 'database',
      });
    } finally {
      await Promise.all([mine.end(), other.end()]);
    }
  }, 60_000);
});

describe('The throttled client: the peer address, or behind TRUSTED_PROXY_HOPS proxies the address the outermost trusted proxy saw', () => {
  it.each([
    ['no trusted proxies: the peer, whatever X-Forwarded-For says', '10.0.0.9', '1.1.1.1', 0, '10.0.0.9'],
    ['no X-Forwarded-For', '10.0.0.9', undefined, 1, '10.0.0.9'],
    ['an empty X-Forwarded-For', '10.0.0.9', '', 1, '10.0.0.9'],
    ['one trusted proxy: the last address it appended', '10.0.0.9', '6.6.6.6, 1.1.1.1', 1, '1.1.1.1'],
    ['two trusted proxies: the second last', '10.0.0.9', '6.6.6.6, 1.1.1.1 ,10.0.0.1', 2, '1.1.1.1'],
    ['spaces and empty entries ignored', '10.0.0.9', ' 1.1.1.1 ,, ', 1, '1.1.1.1'],
    ['more trusted hops than addresses: the first address', '10.0.0.9', '1.1.1.1, 10.0.0.1', 5, '1.1.1.1'],
    ['only separators: the peer', '10.0.0.9', ' , ', 1, '10.0.0.9'],
  ] as const)('%s', (_case, remoteAddress, forwardedFor, trustedHops, expected) => {
    expect(clientAddress(remoteAddress, forwardedFor, trustedHops)).toBe(expected);
  });
});

/** Asks until the database answers again (a restarted server takes a moment to accept connections). */
async function eventuallyAnswered<T extends { store: LoginFailureStoreName }>(ask: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await ask();
    if (answer.store === 'database' || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 600));
  }
}

/** A TCP server that accepts connections and never sends a byte. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
