import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import {
  classifyDatabaseError,
  DatabaseUnavailableError,
  isConnectionFailure,
} from '../../../shared/base/database/database-unavailable-error.ts';
import type { RunLogLine } from '../../../shared/domain/runs/run.ts';
import type { LeaseHolder } from '../../../shared/domain/runs/leases/run-leases.ts';
import { testRuns } from '../../support/test-runs.ts';
import type { NewRun } from '../../../shared/domain/runs/run.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';

const { database, store } = useRunStore();
const CONTROLLER: LeaseHolder = {
  principal: 'system:serviceaccount:platform:controller',
  principalType: 'serviceaccount',
};

const serviceAccountApply: NewRun = {
  project: 'availability',
  workspace: 'w',
  type: 'apply',
  principal: 'system:serviceaccount:platform:workspace-controller',
  principalType: 'serviceaccount',
};

/**
 * "Fails fast" as an event: waits for `work` to reject and resolves to the error. Fails if it
 * resolves, or is still pending after FAIL_FAST_BOUND_MS: a generous bound only a call that waits
 * for the query timeout (15 s) or hangs would exceed, whatever the machine's load.
 */
async function rejectionOf(work: () => Promise<unknown>): Promise<unknown> {
  let bound: NodeJS.Timeout | undefined;
  const pending = new Promise<never>((_, reject) => {
    bound = setTimeout(
      () => reject(new Error(`still pending after ${FAIL_FAST_BOUND_MS} ms: the call does not fail fast`)),
      FAIL_FAST_BOUND_MS,
    );
  });
  const outcome = work().then(
    () => {
      throw new Error('the call succeeded; expected a rejection');
    },
    (rejection: unknown) => rejection,
  );
  try {
    return await Promise.race([outcome, pending]);
  } finally {
    clearTimeout(bound);
  }
}

const FAIL_FAST_BOUND_MS = 12_000;

describe('database down: every call fails fast with DatabaseUnavailableError and nothing is half-written', () => {
  it('rejects writes and reads while the server is stopped, and no row appears after it is back', async () => {
    const before = await store().records.createRun(serviceAccountApply);
    await store().appendLogLines(before.id, ['before the outage']);
    await database().stopServer();
    try {
      const create = await rejectionOf(() =>
        store().records.createRun({ ...serviceAccountApply, workspace: 'during-outage' }),
      );
      expect(create).toBeInstanceOf(DatabaseUnavailableError);
      expect(create).toMatchObject({ reason: 'DatabaseUnavailable', retryAfterSeconds: 5 });
      const others = [
        () => store().records.getRun('availability', before.id),
        () => store().records.listRuns({ project: 'availability', limit: 10 }),
        () => store().leases.claim(CONTROLLER, 30_000),
        () => store().records.requestCancel('availability', before.id, 'admin'),
        () => store().appendLogLines(before.id, ['during the outage']),
        () => store().logs.readLogLines(before.id, 0, 10),
        () => store().logs.subscribeToLogLines({ runId: before.id, afterSeq: 0, onLines: () => undefined }),
      ];
      for (const call of others) expect(await rejectionOf(call)).toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      await database().startServer();
    }
    // Other tests of the file add runs of their own; none is this test's outage write.
    const { items } = await store().records.listRuns({ project: 'availability', limit: 500 });
    expect(items).toContainEqual(before);
    expect(items.filter((run) => run.workspace === 'during-outage')).toEqual([]);
    expect(await store().logs.readLogLines(before.id, 0, 10)).toEqual([{ seq: 1, line: 'before the outage' }]);
  });

  it('maps a connection terminated in the middle of a statement to DatabaseUnavailableError', async () => {
    const victim = await database().pool.connect();
    // The terminated backend also surfaces as the client's 'error' event: expected here, not a crash.
    victim.on('error', () => undefined);
    try {
      const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // The rejection is caught at once: the backend may die before the terminate call returns.
      const sleeping = victim.query('SELECT pg_sleep(10)').then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
      await expect
        .poll(async () => {
          const active = await database().pool.query(
            "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'",
            [rows[0]!.pid],
          );
          return active.rowCount;
        })
        .toBe(1);
      await database().pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      const error = await sleeping;
      expect(classifyDatabaseError(error)).toBeInstanceOf(DatabaseUnavailableError);
    } finally {
      victim.release(true);
    }
  });

  it('gives up on a server that accepts connections but never answers within the connection timeout', async () => {
    const accepted = new Set<Socket>();
    const silent: Server = createServer((socket) => void accepted.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const pool = createDatabasePool(`postgres://u:p@127.0.0.1:${port}/db`, () => undefined);
    try {
      // Without the pool's 2 s connection timeout the call would wait for the 15 s query timeout or forever.
      expect(await rejectionOf(() => testRuns(pool).records.listRuns({ project: 'p', limit: 1 }))).toBeInstanceOf(
        DatabaseUnavailableError,
      );
    } finally {
      await pool.end();
      for (const socket of accepted) socket.destroy();
      silent.close();
    }
  });

  it('leaves programming errors alone: a bad statement is not an outage', async () => {
    const error = await database()
      .pool.query('SELEC 1')
      .then(
        () => undefined,
        (rejection: unknown) => rejection,
      );
    expect(isConnectionFailure(error)).toBe(false);
    expect(classifyDatabaseError(error)).toBe(error);
  });
});

describe('run history survives a restart of the database server', () => {
  it('keeps runs, phases and log lines, and the same pool works again afterwards', async () => {
    // A Workspace of its own: the claim takes the oldest Pending run of the Workspace, which must be this one whatever ran before.
    const run = await store().records.createRun({ ...serviceAccountApply, workspace: 'restart-history' });
    const { lease } = (await store().leases.claim(CONTROLLER, 60_000, {
      project: 'availability',
      workspace: 'restart-history',
    }))!;
    await store().logChunks.appendChunk(run.id, lease.id, CONTROLLER, 1, ['line 1', 'line 2']);
    const before = await store().records.getRun('availability', run.id);

    await database().stopServer();
    await database().startServer();

    expect(await store().records.getRun('availability', run.id)).toEqual(before);
    expect(await store().logs.readLogLines(run.id, 0, 10)).toHaveLength(2);
    expect((await store().leases.finish(run.id, lease.id, CONTROLLER, 'Succeeded')).phase).toBe('Succeeded');
  });

  it('a log subscriber reconnects after the restart and receives the lines appended since', async () => {
    const run = await store().records.createRun({ ...serviceAccountApply, workspace: 'restart' });
    const received: RunLogLine[] = [];
    const unsubscribe = await store().logs.subscribeToLogLines({
      runId: run.id,
      afterSeq: 0,
      onLines: (lines) => void received.push(...lines),
    });
    await store().appendLogLines(run.id, ['before restart']);
    await expect.poll(() => received.length).toBe(1);

    await database().stopServer();
    await database().startServer();
    await store().appendLogLines(run.id, ['after restart']);

    await expect
      .poll(() => received.map((line) => line.line), { timeout: 5_000 })
      .toEqual(['before restart', 'after restart']);
    await unsubscribe();
  });
});
