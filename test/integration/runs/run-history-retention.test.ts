// Issue 35, item 2: RUN_LOG_RETENTION removes the logs of runs finished longer ago than it (the run
// stays and says so), RUN_HISTORY_RETENTION removes such runs with their logs; exactly what is older,
// judged on the time each run finished, never a Pending or Running run; in small batches that skip
// what another process holds; several replicas at once; and every minute from the process that keeps
// the history bounded.
import { beforeEach, describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { RunLogRemovedError } from '../../../shared/domain/runs/run-errors.ts';
import { RunHistoryRetention } from '../../../shared/domain/runs/history/run-history-retention.ts';
import { RunHistoryMaintenance } from '../../../shared/domain/runs/history/run-history-maintenance.ts';
import { RunLogCompactor } from '../../../shared/domain/runs/logs/run-log-compaction.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';
import { claimedRun, finishedRun, readWholeLog, storedLog, variedLines } from '../../support/run-history-fixtures.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';

const { database, store } = useRunStore();
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const compact = (runId: string) =>
  new RunLogCompactor(poolDatabase(database().pool), { delayMs: 0, linesPerStep: 10_000, restRatio: 0 }).compactRun(
    runId,
  );

/** Moves the run's end (and start) back in time, as the database's clock sees it. */
const finishedAgo = (runId: string, ms: number) =>
  database().pool.query(
    `UPDATE runs SET finished_at = date_trunc('milliseconds', now()) - $2 * interval '1 millisecond',
       created_at = date_trunc('milliseconds', now()) - $2 * interval '1 millisecond' - interval '1 hour'
     WHERE id = $1`,
    [runId, ms],
  );
const createdAgo = (runId: string, ms: number) =>
  database().pool.query(
    `UPDATE runs SET created_at = now() - $2 * interval '1 millisecond', started_at = CASE WHEN started_at IS NULL THEN NULL ELSE now() - $2 * interval '1 millisecond' END WHERE id = $1`,
    [runId, ms],
  );
const retention = (historyMs: number, logMs: number, batchRuns = 100, batchLines = 10_000) =>
  new RunHistoryRetention(poolDatabase(database().pool), { historyMs, logMs }, { batchRuns, batchLines });
const lineTexts = async (runId: string) => (await readWholeLog(store(), runId)).map((line) => line.line);

/** Runs in every state the retention must tell apart, ages relative to a retention of `retentionMs`. */
async function history(retentionMs: number) {
  const older = await finishedRun(store(), variedLines(1_200, 'older'));
  await compact(older);
  await finishedAgo(older, retentionMs + DAY_MS);
  // Just past it, and never compacted: its rows go a slice at a time.
  const justOlder = await finishedRun(store(), variedLines(2_500, 'just older'));
  await finishedAgo(justOlder, retentionMs + MINUTE_MS);
  const justYounger = await finishedRun(store(), variedLines(1_100, 'just younger'));
  await compact(justYounger);
  await finishedAgo(justYounger, retentionMs - MINUTE_MS);
  const running = await claimedRun(store());
  await running.append(variedLines(300, 'running'));
  await createdAgo(running.run.id, retentionMs * 3);
  const pending = await store().records.createRun({
    project: 'history',
    workspace: 'pending',
    type: 'plan',
    principal: 'admin',
    principalType: 'admin',
  });
  await createdAgo(pending.id, retentionMs * 4);
  const recent = await finishedRun(store(), variedLines(50, 'recent'));
  return { older, justOlder, justYounger, running: running.run.id, pending: pending.id, recent };
}

beforeEach(async () => {
  await database().pool.query('TRUNCATE runs CASCADE');
});

describe('Issue 35, item 2: RUN_LOG_RETENTION removes the logs of runs finished longer ago, and nothing else; the run stays and says so', () => {
  it('removes exactly the logs older than the setting (blocks and rows); younger logs, unfinished runs and every run record stay', async () => {
    const runs = await history(90 * DAY_MS);
    const kept = {
      justYounger: await lineTexts(runs.justYounger),
      running: await lineTexts(runs.running),
      recent: await lineTexts(runs.recent),
    };
    const report = await retention(365 * DAY_MS, 90 * DAY_MS, 100, 1_000).removeExpired();
    expect(report).toEqual({ logsRemoved: 2, runsRemoved: 0 });

    for (const removed of [runs.older, runs.justOlder]) {
      const run = await store().records.getRun('history', removed);
      expect(run.logRemovedAt).toEqual(expect.any(String));
      expect(Date.now() - Date.parse(run.logRemovedAt!)).toBeLessThan(MINUTE_MS);
      expect(await storedLog(database().pool, removed)).toEqual({ rows: 0, blocks: [] });
      await expect(store().logs.readLogLines(removed, 0, 100)).rejects.toBeInstanceOf(RunLogRemovedError);
      expect((await store().records.getLogProgress(removed)).logRemovedAt).toBe(run.logRemovedAt);
    }
    expect(await lineTexts(runs.justYounger)).toEqual(kept.justYounger);
    expect(await lineTexts(runs.running)).toEqual(kept.running);
    expect(await lineTexts(runs.recent)).toEqual(kept.recent);
    for (const id of [runs.justYounger, runs.running, runs.pending, runs.recent])
      expect((await store().records.getRun('history', id)).logRemovedAt).toBeNull();
    expect((await store().records.getRun('history', runs.running)).phase).toBe('Running');
    expect((await store().records.getRun('history', runs.pending)).phase).toBe('Pending');

    // A second pass finds nothing more.
    expect(await retention(365 * DAY_MS, 90 * DAY_MS).removeExpired()).toEqual({ logsRemoved: 0, runsRemoved: 0 });
  });

  it('a removed log with rows left behind (its purge died) is served from them at most until the next pass deletes them; then it reads as removed', async () => {
    const lines = variedLines(1_500, 'half purged');
    const runId = await finishedRun(store(), lines);
    // What a purge killed after the removal was recorded leaves: the record, and the rows.
    await database().pool.query("UPDATE runs SET log_removed_at = date_trunc('milliseconds', now()) WHERE id = $1", [
      runId,
    ]);
    expect((await store().logs.readLogLines(runId, 0, 100)).map((line) => line.line)).toEqual(lines.slice(0, 100));
    await expect(store().logs.readLogLines(runId, 1_500, 100)).rejects.toBeInstanceOf(RunLogRemovedError);
    const report = await new RunLogCompactor(poolDatabase(database().pool), {
      delayMs: 24 * 3_600_000,
      linesPerStep: 600,
      restRatio: 0,
    }).compactFinishedRuns();
    expect(report).toMatchObject({ lines: 0, blocks: 0, purged: 1_500 });
    expect(await storedLog(database().pool, runId)).toEqual({ rows: 0, blocks: [] });
    await expect(store().logs.readLogLines(runId, 0, 100)).rejects.toBeInstanceOf(RunLogRemovedError);
  });
});

describe('Issue 35, item 2: RUN_HISTORY_RETENTION removes runs finished longer ago, with their logs; never a Pending or Running run', () => {
  it('removes exactly the runs older than the setting, with their blocks and rows; the rest stay as they were', async () => {
    const runs = await history(30 * DAY_MS);
    const kept = await lineTexts(runs.justYounger);
    // A log retention longer than the history's: the logs go with their runs, no sooner.
    const report = await retention(30 * DAY_MS, 90 * DAY_MS, 100, 1_000).removeExpired();
    expect(report).toEqual({ logsRemoved: 2, runsRemoved: 2 });
    for (const removed of [runs.older, runs.justOlder]) {
      await expect(store().records.getRun('history', removed)).rejects.toMatchObject({ reason: 'RunNotFound' });
      expect(await storedLog(database().pool, removed)).toEqual({ rows: 0, blocks: [] });
      await expect(store().logs.readLogLines(removed, 0, 10)).rejects.toMatchObject({ reason: 'RunNotFound' });
    }
    expect(await lineTexts(runs.justYounger)).toEqual(kept);
    expect((await store().records.getRun('history', runs.justYounger)).logRemovedAt).toBeNull();
    expect((await store().records.getRun('history', runs.running)).phase).toBe('Running');
    expect((await store().records.getRun('history', runs.pending)).phase).toBe('Pending');
    expect(await lineTexts(runs.recent)).toHaveLength(50);
  });

  it('a run cancelled while Pending counts from its cancellation; a run back in the queue after a lapse is unfinished', async () => {
    const cancelled = await store().records.createRun({
      project: 'history',
      workspace: 'cancelled',
      type: 'plan',
      principal: 'admin',
      principalType: 'admin',
    });
    await store().records.requestCancel('history', cancelled.id, 'admin');
    await finishedAgo(cancelled.id, 31 * DAY_MS);
    const requeued = await claimedRun(store());
    await requeued.append(['before the lapse']);
    await database().pool.query(
      "UPDATE runs SET lease_expires_at = now() - interval '1 second', created_at = now() - interval '400 days' WHERE id = $1",
      [requeued.run.id],
    );
    expect(await store().leases.collectLapsedLeases()).toEqual([{ id: requeued.run.id, phase: 'Pending' }]);
    expect(await retention(30 * DAY_MS, 30 * DAY_MS).removeExpired()).toEqual({ logsRemoved: 1, runsRemoved: 1 });
    await expect(store().records.getRun('history', cancelled.id)).rejects.toMatchObject({ reason: 'RunNotFound' });
    expect(await lineTexts(requeued.run.id)).toEqual(['before the lapse']);
  });
});

describe('Issue 35, item 2: retention works in small batches that never wait for another process, and replicas share it', () => {
  it('two replicas removing 30 expired logs in batches of 4 at once: each removed once, all of them, none waited for', async () => {
    const expired = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const runId = await finishedRun(store(), variedLines(20 + index, `batch ${index}`));
        if (index % 2 === 0) await compact(runId);
        await finishedAgo(runId, 100 * DAY_MS + index * MINUTE_MS);
        return runId;
      }),
    );
    const young = await finishedRun(store(), ['young']);
    const otherPool = createDatabasePool(database().connectionString, () => undefined);
    try {
      const reports = await Promise.all([
        retention(365 * DAY_MS, 90 * DAY_MS, 4).removeExpired(),
        new RunHistoryRetention(
          poolDatabase(otherPool),
          { historyMs: 365 * DAY_MS, logMs: 90 * DAY_MS },
          { batchRuns: 4, batchLines: 7 },
        ).removeExpired(),
      ]);
      expect(reports[0]!.logsRemoved + reports[1]!.logsRemoved).toBe(30);
    } finally {
      await otherPool.end();
    }
    for (const runId of expired) {
      expect((await store().records.getRun('history', runId)).logRemovedAt).not.toBeNull();
      expect(await storedLog(database().pool, runId)).toEqual({ rows: 0, blocks: [] });
    }
    expect(await lineTexts(young)).toEqual(['young']);
  });

  it('skips a run another process holds (a compaction under way) instead of waiting for it; the next pass takes it', async () => {
    const held = await finishedRun(store(), ['held']);
    const free = await finishedRun(store(), ['free']);
    await finishedAgo(held, 100 * DAY_MS);
    await finishedAgo(free, 100 * DAY_MS);
    const holder = await database().pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM runs WHERE id = $1 FOR NO KEY UPDATE', [held]);
      const started = performance.now();
      expect(await retention(365 * DAY_MS, 90 * DAY_MS).removeExpired()).toEqual({ logsRemoved: 1, runsRemoved: 0 });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect((await store().records.getRun('history', held)).logRemovedAt).toBeNull();
      await holder.query('COMMIT');
    } finally {
      holder.release();
    }
    expect(await retention(365 * DAY_MS, 90 * DAY_MS).removeExpired()).toEqual({ logsRemoved: 1, runsRemoved: 0 });
    expect((await store().records.getRun('history', held)).logRemovedAt).not.toBeNull();
  });
});

describe('Issue 35: the history is kept bounded every minute by the process that owns it (RunHistoryMaintenance, a pass)', () => {
  it('one pass removes what is past its retention, then compacts the runs finished for the delay, and says so in the log', async () => {
    const finished = await finishedRun(store(), variedLines(1_500, 'maintained'));
    const expired = await finishedRun(store(), ['expired']);
    await finishedAgo(expired, 3 * DAY_MS);
    const before = await readWholeLog(store(), finished);
    const logger = capturingLogger();
    const maintenance = new RunHistoryMaintenance(
      async () => poolDatabase(database().pool),
      { retentionMs: 7 * DAY_MS, logRetentionMs: 2 * DAY_MS, compactionDelayMs: 0 },
      logger,
    );
    const [pass, joined] = await Promise.all([maintenance.runOnce(), maintenance.runOnce()]);
    // A second call while a pass is under way joins it: one pass at a time in a process.
    expect(joined).toBe(pass);
    expect(pass.removed).toEqual({ logsRemoved: 1, runsRemoved: 0 });
    expect(pass.compacted).toMatchObject({ runs: 1, lines: 1_500, blocks: 3 });
    expect(await storedLog(database().pool, finished)).toEqual({
      rows: 0,
      blocks: [
        [1, 500],
        [501, 1_000],
        [1_001, 1_500],
      ],
    });
    expect(await readWholeLog(store(), finished)).toEqual(before);
    expect((await store().records.getRun('history', expired)).logRemovedAt).not.toBeNull();
    const logged = logger.lines.join('\n');
    expect(logged).toContain('run logs compacted');
    expect(logged).toContain('"logsRemoved":1');
  });
});

describe('Issue 44, item 1: no pass computes a cut-off it has not checked (an invalid one must never mean "remove everything")', () => {
  it.each([
    ['a negative history retention (a cut-off in the future)', -DAY_MS, 90 * DAY_MS, 'RUN_HISTORY_RETENTION'],
    ['a negative log retention', 365 * DAY_MS, -1, 'RUN_LOG_RETENTION'],
    ['a retention that is not a number', Number.NaN, 90 * DAY_MS, 'RUN_HISTORY_RETENTION'],
    ['a retention past its maximum (876000h)', 9_999_999_999 * 3_600_000, 90 * DAY_MS, 'RUN_HISTORY_RETENTION'],
  ])(
    '%s: the pass refuses, naming the setting, and every finished run keeps its log',
    async (_case, historyMs, logMs, name) => {
      const finished = await finishedRun(store(), variedLines(20, 'finished'));
      const lines = await lineTexts(finished);
      await expect(retention(historyMs, logMs).removeExpired()).rejects.toThrow(
        new RegExp(`^${name} of .* ms is outside`),
      );
      expect((await store().records.getRun('history', finished)).logRemovedAt).toBeNull();
      expect(await lineTexts(finished)).toEqual(lines);
    },
  );

  it('compaction refuses a delay outside 0s to 876000h before it looks for runs', async () => {
    const compactor = new RunLogCompactor(poolDatabase(database().pool), {
      delayMs: -MINUTE_MS,
      linesPerStep: 100,
      restRatio: 0,
    });
    await expect(compactor.compactFinishedRuns()).rejects.toThrow(/^RUN_LOG_COMPACTION_DELAY of -60000 ms is outside/);
  });
});
