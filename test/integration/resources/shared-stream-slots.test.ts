// Issue 36, item 4: RUN_LOG_MAX_STREAMS_PER_PRINCIPAL and MAX_WATCHES_PER_PRINCIPAL hold across
// every instance, not per process. Each instance's StreamSessions takes a row per open stream in the
// database (migration 008), kept counted by the instance's heartbeat; an instance that dies stops
// beating and its slots are freed once it has been silent for the expiry. Two instances here are two
// StreamSessions with their own pools on one real PostgreSQL; the fleet test proves it over HTTP.
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminTokenAuthenticator } from '../../../shared/auth/admin-token.ts';
import type { OidcPrincipal } from '../../../shared/auth/principal.ts';
import type { AdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { SharedStreamSlots } from '../../../shared/domain/streams/shared-stream-slots.ts';
import { StreamSessions, type StreamSession } from '../../../shared/domain/streams/stream-sessions.ts';
import { instancePools, startTestDatabase, type TestDatabase } from '../../support/test-database.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { sharedLimit } from '../../../shared/base/database/shared-limit.ts';
import { capturingLogger } from '../../support/function-servers.ts';

const MAX = 3;
const HEARTBEAT_MS = 300;
// Far above the heartbeat, so a loaded machine delaying a beat does not make a live instance look dead.
const EXPIRY_MS = 3_000;
const ada: OidcPrincipal = { type: 'oidc', name: 'ada', groups: [], claims: {} };
const bob: OidcPrincipal = { type: 'oidc', name: 'bob', groups: [], claims: {} };

let database: TestDatabase;
beforeAll(async () => {
  database = await startTestDatabase();
});
afterAll(() => database?.destroy());

interface Instance {
  sessions: StreamSessions;
  slots: SharedStreamSlots;
  pool: pg.Pool;
  logger: ReturnType<typeof capturingLogger>;
  stores: string[];
}

const instances: Instance[] = [];
function instance(kind: 'run_log' | 'watch' = 'run_log'): Instance {
  const [pool] = instancePools(database, 1) as [pg.Pool];
  const logger = capturingLogger();
  const stores: string[] = [];
  const shared = poolDatabase(pool);
  const limit = sharedLimit({
    name: kind === 'run_log' ? 'run_log_streams' : 'watches',
    database: shared,
    logger,
    metrics: { sharedLimitStore: (_limit, store) => stores.push(store), sharedLimitFallback: () => {} },
    budgets: { max: MAX },
    retryMs: 300,
  });
  const slots = new SharedStreamSlots({
    kind,
    database: shared,
    limit,
    heartbeatMs: HEARTBEAT_MS,
    expiryMs: EXPIRY_MS,
  });
  const sessions = new StreamSessions({
    limit: {
      kind,
      max: MAX,
      streams: kind === 'run_log' ? 'run-log streams' : 'watches',
      setting: kind === 'run_log' ? 'RUN_LOG_MAX_STREAMS_PER_PRINCIPAL' : 'MAX_WATCHES_PER_PRINCIPAL',
      reason: kind === 'run_log' ? 'TooManyStreams' : 'TooManyWatches',
    },
    adminSettings: {} as AdminSettingsSource,
    adminTokens: {} as AdminTokenAuthenticator,
    shared: slots,
  });
  const made = { sessions, slots, pool, logger, stores };
  instances.push(made);
  return made;
}

beforeEach(() => database.pool.query('DELETE FROM stream_instances'));
afterEach(async () => {
  for (const made of instances.splice(0)) {
    made.slots.stopHeartbeat();
    await made.pool.end().catch(() => undefined);
  }
});

async function refusal(opening: Promise<StreamSession>): Promise<ApiError> {
  const error = await opening.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const slotRows = async (where = 'true') =>
  Number(
    (await database.pool.query<{ count: string }>(`SELECT count(*) FROM stream_slots WHERE ${where}`)).rows[0]!.count,
  );

describe('Issue 36: a principal holds at most the cap across every instance', () => {
  it('two on one instance and one on another fill a cap of 3: the fourth is refused on either, with 429 and Retry-After; a close frees one for any', async () => {
    const [a, b] = [instance(), instance()];
    const held = [await a.sessions.open(ada, 't'), await a.sessions.open(ada, 't'), await b.sessions.open(ada, 't')];
    for (const other of [a, b]) {
      const refused = await refusal(other.sessions.open(ada, 't'));
      expect(refused).toMatchObject({ status: 429, reason: 'TooManyStreams' });
      expect(refused.message).toContain(
        'at most 3 run-log streams may be open at once per principal across every instance',
      );
      expect(refused.headers).toMatchObject({ 'retry-after': '5' });
    }
    // Another principal has a cap of its own.
    await b.sessions.open(bob, 't');
    held[0]!.release();
    await expect.poll(() => slotRows(`principal = 'oidc:ada'`)).toBe(2);
    expect(await b.sessions.open(ada, 't')).toBeDefined();
  });

  it('run-log streams and watches are counted apart', async () => {
    const [streams, watches] = [instance('run_log'), instance('watch')];
    for (let index = 0; index < MAX; index++) await streams.sessions.open(ada, 't');
    for (let index = 0; index < MAX; index++) await watches.sessions.open(ada, 't');
    expect(await refusal(watches.sessions.open(ada, 't'))).toMatchObject({ reason: 'TooManyWatches' });
  });

  it('ten opens racing on two instances for a cap of 3: exactly three are taken', async () => {
    const [a, b] = [instance(), instance()];
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) => (index % 2 ? a : b).sessions.open(ada, 't')),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(MAX);
    expect(await slotRows()).toBe(MAX);
  });
});

describe('Issue 36: an instance that dies frees its slots once it has been silent for the expiry', () => {
  it("a beating instance's slots keep counting past the expiry; a dead one's stop counting and are swept with it", async () => {
    const [a, b] = [instance(), instance()];
    await a.sessions.open(ada, 't');
    await a.sessions.open(ada, 't');
    await b.sessions.open(ada, 't');
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MS * 2));
    expect(await refusal(b.sessions.open(ada, 't'))).toMatchObject({ reason: 'TooManyStreams' });

    a.slots.stopHeartbeat();
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MS + HEARTBEAT_MS));
    await b.sessions.open(ada, 't');
    await b.sessions.open(ada, 't');
    expect(await slotRows()).toBe(3);
    expect((await database.pool.query('SELECT count(*)::int AS n FROM stream_instances')).rows[0].n).toBe(1);
  });
});

describe('Issue 36: an instance swept while it could not beat (frozen, cut off) writes its slots again at its next heartbeat', () => {
  it("its streams are still open, so they count again: the other instance's next open is refused", async () => {
    const [a, b] = [instance(), instance()];
    await a.sessions.open(ada, 't');
    await a.sessions.open(ada, 't');
    a.slots.stopHeartbeat();
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MS + HEARTBEAT_MS));
    await b.sessions.open(ada, 't');
    expect(await slotRows()).toBe(1);
    await a.slots.heartbeat();
    expect(await slotRows()).toBe(3);
    expect(await refusal(b.sessions.open(ada, 't'))).toMatchObject({ reason: 'TooManyStreams' });
  });
});

describe('Issue 36: a database that does not answer leaves the cap to each process, said once; its slots are written when it answers again', () => {
  it('stopped: the per-process count decides and is logged; once it is back the slots taken meanwhile are counted for every instance', async () => {
    const [a, b] = [instance(), instance()];
    const held = await a.sessions.open(ada, 't');
    await database.stopServer();
    try {
      await a.sessions.open(ada, 't');
      await a.sessions.open(ada, 't');
      // The per-process cap still holds.
      expect(await refusal(a.sessions.open(ada, 't'))).toMatchObject({ reason: 'TooManyStreams' });
      // A release the database cannot hear is kept for later.
      held.release();
      // Said at start (the database), then on the failure.
      expect(a.stores).toEqual(['database', 'process']);
      expect(a.logger.lines.filter((line) => line.includes('counted in this process only'))).toHaveLength(1);
    } finally {
      await database.startServer();
    }
    // This instance was silent past the expiry: the next to open sweeps it, then it writes its slots again.
    await new Promise((resolve) => setTimeout(resolve, EXPIRY_MS));
    await expect
      .poll(async () => slotRows(`principal = 'oidc:ada'`), { timeout: 15_000, interval: HEARTBEAT_MS })
      .toBe(2);
    expect(a.stores).toEqual(['database', 'process', 'database']);
    // B sees A's two: one more for ada, not three.
    await b.sessions.open(ada, 't');
    expect(await refusal(b.sessions.open(ada, 't'))).toMatchObject({ reason: 'TooManyStreams' });
  }, 60_000);
});

describe('Without a database the cap is per process, and the refusal says so', () => {
  it('names "in this instance"', async () => {
    const sessions = new StreamSessions({
      limit: {
        kind: 'watch',
        max: 1,
        streams: 'watches',
        setting: 'MAX_WATCHES_PER_PRINCIPAL',
        reason: 'TooManyWatches',
      },
      adminSettings: {} as AdminSettingsSource,
      adminTokens: {} as AdminTokenAuthenticator,
    });
    await sessions.open(ada, 't');
    expect((await refusal(sessions.open(ada, 't'))).message).toContain('per principal in this instance');
  });
});
