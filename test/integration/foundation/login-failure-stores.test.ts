// Issue 36, items 1 to 3, at the stores: failed logins are counted by the same rules in the
// database every instance shares (migration 008, on a real PostgreSQL) and in one process's memory
// (no database, or the fallback while it does not answer). Per client and for the account, in
// windows opened by a key's first failure; no flood of other clients frees a throttled one early;
// the stores stay small. Times are given, so every boundary is exact.
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseLoginFailures } from '../../../shared/auth/database-login-failures.ts';
import {
  loginKeys,
  type AdmittedLogin,
  type LoginAdmission,
  type LoginBudgets,
  type LoginFailureStore,
} from '../../../shared/auth/login-failure-store.ts';
import { ProcessLoginFailures } from '../../../shared/auth/process-login-failures.ts';
import { instancePools, startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';

const WINDOW_MS = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');

let database: TestDatabase;
beforeAll(async () => {
  database = await startTestDatabase();
});
afterAll(() => database?.destroy());

const keysOf = (client: string) => loginKeys('admin', client);
const budgets = (accountMax: number, clientMax: number): LoginBudgets => ({
  windowMs: WINDOW_MS,
  accountMax,
  clientMax,
});

function admitted(admission: LoginAdmission): AdmittedLogin {
  if (!admission.admitted) throw new Error(`refused by the ${admission.refusedBy}'s budget`);
  return admission;
}

const STORES: Array<[string, () => LoginFailureStore]> = [
  ['process memory', () => new ProcessLoginFailures()],
  ['the shared database', () => new DatabaseLoginFailures(poolDatabase(database.pool))],
];

describe.each(STORES)('Failed logins counted in %s, by the same rules', (_name, makeStore) => {
  let store: LoginFailureStore;
  beforeEach(async () => {
    await database.pool.query('DELETE FROM login_failures');
    store = makeStore();
  });

  it('a client may fail clientMax times in its window, opened by its first failure; then it waits until that window ends', async () => {
    const limits = budgets(100, 3);
    for (const [offset, count] of [
      [0, 1],
      [1_000, 2],
      [2_000, 3],
    ] as const) {
      expect(admitted(await store.admit(keysOf('a'), limits, T0 + offset)).clientFailures).toBe(count);
    }
    expect(await store.admit(keysOf('a'), limits, T0 + 2_500)).toEqual({
      admitted: false,
      refusedBy: 'client',
      retryAfterMs: WINDOW_MS - 2_500,
      accountFailures: 3,
    });
    // Another client is not touched; the refusal counted nothing and moved nothing.
    expect(admitted(await store.admit(keysOf('b'), limits, T0 + 3_000)).clientFailures).toBe(1);
    expect(await store.admit(keysOf('a'), limits, T0 + WINDOW_MS - 1)).toMatchObject({ retryAfterMs: 1 });
    const next = admitted(await store.admit(keysOf('a'), limits, T0 + WINDOW_MS));
    expect(next).toMatchObject({ clientFailures: 1, clientWindowEndsAt: T0 + 2 * WINDOW_MS });
  });

  it("the account's budget: past accountMax failures of all clients together, every client waits until the account's window ends", async () => {
    const limits = budgets(4, 3);
    for (let client = 1; client <= 4; client++) {
      expect(admitted(await store.admit(keysOf(`c${client}`), limits, T0 + client)).accountFailures).toBe(client);
    }
    for (const client of ['c1', 'new client']) {
      expect(await store.admit(keysOf(client), limits, T0 + 10)).toEqual({
        admitted: false,
        refusedBy: 'account',
        retryAfterMs: WINDOW_MS + 1 - 10,
        accountFailures: 4,
      });
    }
    const afterWindow = admitted(await store.admit(keysOf('new client'), limits, T0 + WINDOW_MS + 1));
    expect(afterWindow).toMatchObject({ accountFailures: 1, accountWindowEndsAt: T0 + 1 + 2 * WINDOW_MS });
  });

  it("a right password gives its attempt back: the account's failure is taken back and the client's failures forgotten", async () => {
    const limits = budgets(10, 3);
    await store.admit(keysOf('a'), limits, T0);
    await store.admit(keysOf('a'), limits, T0 + 1);
    const right = admitted(await store.admit(keysOf('a'), limits, T0 + 2));
    await store.giveBack(keysOf('a'), right, true);
    expect(admitted(await store.admit(keysOf('a'), limits, T0 + 3))).toMatchObject({
      clientFailures: 1,
      accountFailures: 3,
    });
  });

  it("an attempt whose password was never compared is given back, the client's other failures kept", async () => {
    const limits = budgets(10, 3);
    await store.admit(keysOf('a'), limits, T0);
    const busy = admitted(await store.admit(keysOf('a'), limits, T0 + 1));
    await store.giveBack(keysOf('a'), busy, false);
    expect(admitted(await store.admit(keysOf('a'), limits, T0 + 2))).toMatchObject({
      clientFailures: 2,
      accountFailures: 2,
    });
  });

  it('an attempt given back after its window ended leaves the new window alone', async () => {
    const limits = budgets(10, 3);
    const old = admitted(await store.admit(keysOf('a'), limits, T0));
    await store.admit(keysOf('a'), limits, T0 + WINDOW_MS);
    await store.giveBack(keysOf('a'), old, false);
    expect(admitted(await store.admit(keysOf('a'), limits, T0 + WINDOW_MS + 1))).toMatchObject({
      clientFailures: 2,
      accountFailures: 2,
    });
  });

  it('a flood of 20,000 distinct failing clients never frees a throttled client early (the bypass of CVE-2024-21662)', async () => {
    const limits = budgets(1_000_000, 5);
    for (let attempt = 0; attempt < 5; attempt++) await store.admit(keysOf('victim'), limits, T0);
    await inParallel(20_000, 10, (client) => store.admit(keysOf(`flood-${client}`), limits, T0 + 1_000));
    expect(await store.admit(keysOf('victim'), limits, T0 + 2_000)).toMatchObject({
      admitted: false,
      refusedBy: 'client',
      retryAfterMs: WINDOW_MS - 2_000,
    });
  }, 180_000);

  it("keeps at most about twice the account's budget of keys, however many clients fail over however many windows", async () => {
    const limits = budgets(10, 5);
    for (let window = 0; window < 20; window++) {
      const at = T0 + window * WINDOW_MS;
      for (let client = 0; client < 30; client++)
        await store.admit(keysOf(`w${window}-c${client}`), limits, at + client);
    }
    expect(await storedKeys(store)).toBeLessThanOrEqual(2 * limits.accountMax + 1);
  });
});

describe('The shared database: admissions are serialised, so no two instances take the last of a budget', () => {
  let instances: pg.Pool[] = [];
  beforeAll(() => {
    instances = instancePools(database, 2);
  });
  afterAll(() => Promise.all(instances.map((pool) => pool.end())));

  it('60 concurrent attempts on two instances, a budget of 10: exactly 10 are counted and compared', async () => {
    await database.pool.query('DELETE FROM login_failures');
    const stores = instances.map((pool) => new DatabaseLoginFailures(poolDatabase(pool)));
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, client) => stores[client % 2]!.admit(keysOf(`r${client}`), budgets(10, 5), T0)),
    );
    expect(answers.filter((answer) => answer.admitted)).toHaveLength(10);
    expect(answers.filter((answer) => !answer.admitted && answer.refusedBy === 'account')).toHaveLength(50);
    const { rows } = await database.pool.query("SELECT failures FROM login_failures WHERE key = 'account:admin'");
    expect(rows).toEqual([{ failures: 10 }]);
  });
});

describe("A process's table never drops a live window: when it is full, a new client is refused until the first window ends", () => {
  it('three clients fill a table of three; the fourth waits, the throttled one stays throttled, and room comes back when windows end', async () => {
    const store = new ProcessLoginFailures({ maxClients: 3 });
    const limits = budgets(100, 2);
    await store.admit(keysOf('victim'), limits, T0);
    await store.admit(keysOf('victim'), limits, T0);
    await store.admit(keysOf('b'), limits, T0 + 10);
    await store.admit(keysOf('c'), limits, T0 + 20);
    expect(await store.admit(keysOf('d'), limits, T0 + 30)).toMatchObject({
      admitted: false,
      refusedBy: 'client',
      retryAfterMs: WINDOW_MS - 30,
    });
    expect(await store.admit(keysOf('victim'), limits, T0 + 40)).toMatchObject({
      admitted: false,
      refusedBy: 'client',
    });
    expect(store.size).toBe(4);
    expect((await store.admit(keysOf('d'), limits, T0 + WINDOW_MS)).admitted).toBe(true);
  });
});

describe("A process's copy of the database's answers keeps following the account, however many clients it has seen", () => {
  it('with room for two clients, filled in one window: the account spending its budget in the next is still refused here', async () => {
    const copy = new ProcessLoginFailures({ maxClients: 2 });
    const limits = budgets(5, 5);
    const seen = (client: string, accountFailures: number, windowEndsAt: number, at: number) =>
      copy.mirror(
        keysOf(client),
        {
          admitted: true,
          accountFailures,
          accountWindowEndsAt: windowEndsAt,
          clientFailures: 1,
          clientWindowEndsAt: windowEndsAt,
        },
        limits,
        at,
      );
    for (let client = 1; client <= 3; client++) seen(`first-${client}`, client, T0 + WINDOW_MS, T0 + client);
    // The next window of the account: the table is full of windows that have ended.
    const next = T0 + WINDOW_MS + 1;
    for (let client = 1; client <= 5; client++) seen(`next-${client}`, client, next + WINDOW_MS, next + client);
    expect(copy.refusal(keysOf('someone new'), limits, next + 10)).toMatchObject({
      refusedBy: 'account',
      retryAfterMs: WINDOW_MS - 10,
    });
    expect(copy.size).toBeLessThanOrEqual(3);
  });
});

async function storedKeys(store: LoginFailureStore): Promise<number> {
  if (store instanceof ProcessLoginFailures) return store.size;
  const { rows } = await database.pool.query<{ count: string }>('SELECT count(*) FROM login_failures');
  return Number(rows[0]!.count);
}

/** Runs `count` calls of `work`, `concurrency` at a time. */
async function inParallel(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}
