// Issue 35, item 1: a finished run's log moves from one row per line into compressed blocks, after a
// delay, and every reader serves it exactly as before: TestRuns.readLogLines at any position and page
// size, the log subscription (the run-log stream's catch-up), the run's last line number. Late lines:
// the controller's chunks after the run ended are refused as before, lines appended without a lease
// are merged after the blocks. Replicas compacting at once share the runs and never duplicate a line.
import { describe, expect, it } from 'vitest';
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import type { RunLogLine } from '../../../shared/domain/runs/run.ts';
import {
  linesOfBlock,
  MAX_BLOCK_LINES,
  MAX_BLOCK_TEXT_BYTES,
} from '../../../shared/domain/runs/logs/run-log-blocks.ts';
import { RunLogCompactor } from '../../../shared/domain/runs/logs/run-log-compaction.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';
import {
  claimedRun,
  expectEveryLineOnce,
  finishedRun,
  HISTORY_CONTROLLER,
  readWholeLog,
  storedLog,
  variedLines,
} from '../../support/run-history-fixtures.ts';

const { database, store } = useRunStore();
const compactor = (linesPerStep = 10_000) =>
  new RunLogCompactor(poolDatabase(database().pool), { delayMs: 0, linesPerStep, restRatio: 0 });

/** Every way a reader pages through the log: sizes 1, 7, 500 and 5,000 from several positions. */
async function everyReading(runId: string, lastSeq: number): Promise<RunLogLine[][]> {
  const readings: RunLogLine[][] = [];
  for (const pageSize of [7, 500, 5_000]) readings.push(await readWholeLog(store(), runId, pageSize));
  for (const afterSeq of [0, 1, 999, 1_000, 1_001, lastSeq - 1, lastSeq, lastSeq + 5]) {
    readings.push(await store().logs.readLogLines(runId, afterSeq, 1));
    readings.push(await store().logs.readLogLines(runId, afterSeq, 1_234));
  }
  return readings;
}

/** All lines through a log subscription (what the run-log stream's replay and resume read), after `afterSeq`. */
async function subscribedLines(runId: string, afterSeq: number, count: number): Promise<RunLogLine[]> {
  const received: RunLogLine[] = [];
  let done = () => {};
  const complete = new Promise<void>((resolve) => (done = resolve));
  const unsubscribe = await store().logs.subscribeToLogLines({
    runId,
    afterSeq,
    onLines: (lines) => {
      received.push(...lines);
      if (received.length >= count) done();
    },
  });
  await complete;
  await unsubscribe();
  return received;
}

describe("Issue 35, item 1: a finished run's log is compacted into blocks; every reader serves the same lines and numbers", () => {
  it('readLogLines at any position and page size, the subscription from the start and from the middle, and the last line number are byte-identical after compaction', async () => {
    const long = `long ${'y'.repeat(MAX_BLOCK_TEXT_BYTES + 10)}`;
    const lines = [...variedLines(2_400), long, ...variedLines(150, 'after the long line')];
    const runId = await finishedRun(store(), lines);
    const before = await everyReading(runId, lines.length);
    const subscribedBefore = await subscribedLines(runId, 0, lines.length);
    const progressBefore = await store().records.getLogProgress(runId);
    expect(subscribedBefore.map((line) => line.line)).toEqual(lines);

    const done = await compactor().compactRun(runId);
    expect(done).toMatchObject({ lines: lines.length, complete: true });
    const stored = await storedLog(database().pool, runId);
    expect(stored.rows).toBe(0);
    // 500 lines a block, the long line alone in its own (past the text limit), the rest after it.
    expect(stored.blocks).toEqual([
      [1, 500],
      [501, 1_000],
      [1_001, 1_500],
      [1_501, 2_000],
      [2_001, 2_400],
      [2_401, 2_401],
      [2_402, 2_551],
    ]);
    expect(stored.blocks.every(([first, last]) => last - first < MAX_BLOCK_LINES)).toBe(true);

    expect(await everyReading(runId, lines.length)).toEqual(before);
    expect(await subscribedLines(runId, 0, lines.length)).toEqual(subscribedBefore);
    expect(await subscribedLines(runId, 1_500, lines.length - 1_500)).toEqual(subscribedBefore.slice(1_500));
    expect(await store().records.getLogProgress(runId)).toEqual(progressBefore);
  });

  it('a block holds the stored (masked) text exactly: decoded straight from the table it is the rows it replaced', async () => {
    const lines = variedLines(1_200, 'decoded');
    const runId = await finishedRun(store(), lines);
    await compactor().compactRun(runId);
    const { rows } = await database().pool.query(
      'SELECT first_seq, last_seq, encoding, body FROM run_log_blocks WHERE run_id = $1 ORDER BY first_seq',
      [runId],
    );
    const decoded = rows.flatMap((row) =>
      linesOfBlock({
        firstSeq: Number(row.first_seq),
        lastSeq: Number(row.last_seq),
        encoding: row.encoding,
        body: row.body,
      }),
    );
    expect(decoded).toEqual(lines);
    // Compressed: far fewer bytes than the text.
    const bodyBytes = rows.reduce((total, row) => total + row.body.length, 0);
    expect(bodyBytes).toBeLessThan(Buffer.byteLength(lines.join('\n')) / 2);
  });

  it('compacts only runs finished for RUN_LOG_COMPACTION_DELAY: never a Pending or Running one, nor one that just ended', async () => {
    const running = await claimedRun(store());
    await running.append(['still running']);
    const justEnded = await finishedRun(store(), ['just ended']);
    const delayed = new RunLogCompactor(poolDatabase(database().pool), {
      delayMs: 60_000,
      linesPerStep: 1_000,
      restRatio: 0,
    });
    await delayed.compactFinishedRuns(1_000);
    expect(await storedLog(database().pool, running.run.id)).toEqual({ rows: 1, blocks: [] });
    expect(await storedLog(database().pool, justEnded)).toEqual({ rows: 1, blocks: [] });
    expect(await delayed.compactRun(justEnded)).toMatchObject({ lines: 0, complete: false });
    // Ended a minute ago, as the database's clock sees it: due.
    await database().pool.query("UPDATE runs SET finished_at = now() - interval '61 seconds' WHERE id = $1", [
      justEnded,
    ]);
    await delayed.compactFinishedRuns(1_000);
    expect(await storedLog(database().pool, justEnded)).toEqual({ rows: 0, blocks: [[1, 1]] });
    expect(await storedLog(database().pool, running.run.id)).toEqual({ rows: 1, blocks: [] });
  });

  it('moves a long log in steps, each a transaction of its own: between steps readers see blocks then rows, every line once', async () => {
    const lines = variedLines(3_500, 'stepped');
    const runId = await finishedRun(store(), lines);
    const before = await readWholeLog(store(), runId);
    // Steps of 1,000 lines; the reads race them, each seeing the log between two steps (or before, or after).
    let compacting = true;
    const compaction = compactor(1_000).compactRun(runId);
    const settled = compaction.then(
      () => (compacting = false),
      () => (compacting = false),
    );
    let reads = 0;
    while (compacting) {
      expect(await readWholeLog(store(), runId, 700)).toEqual(before);
      reads++;
    }
    await settled;
    expect(await compaction).toMatchObject({ lines: lines.length, blocks: 7, complete: true });
    expect(reads).toBeGreaterThan(0);
    expect(await storedLog(database().pool, runId)).toMatchObject({ rows: 0 });
    await expectEveryLineOnce(database().pool, runId, lines.length);
    expect(await readWholeLog(store(), runId)).toEqual(before);
  });

  it('two replicas compacting the same runs at once: each run is moved once, no block overlaps, no line is lost', async () => {
    const runIds = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        finishedRun(store(), variedLines(1_500 + index * 100, `replica ${index}`)),
      ),
    );
    const expected = await Promise.all(runIds.map((runId) => readWholeLog(store(), runId)));
    const otherPool = createDatabasePool(database().connectionString, () => undefined);
    try {
      const replicas = [
        new RunLogCompactor(poolDatabase(database().pool), { delayMs: 0, linesPerStep: 400, restRatio: 0 }),
        new RunLogCompactor(poolDatabase(otherPool), { delayMs: 0, linesPerStep: 400, restRatio: 0 }),
      ];
      await Promise.all(
        replicas.flatMap((replica) => [replica.compactFinishedRuns(100), replica.compactFinishedRuns(100)]),
      );
      // A run a replica skipped (another held it) is finished by whichever looks next.
      await replicas[0]!.compactFinishedRuns(100);
    } finally {
      await otherPool.end();
    }
    for (const [index, runId] of runIds.entries()) {
      await expectEveryLineOnce(database().pool, runId, 1_500 + index * 100);
      expect((await storedLog(database().pool, runId)).rows).toBe(0);
      expect(await readWholeLog(store(), runId)).toEqual(expected[index]);
    }
  });
});

describe('Issue 35, item 1: late lines after a run ended are refused (the controller) or merged (without a lease), before and after compaction', () => {
  it("the holder's retry of its last chunk and a new chunk after the run ended are 409 LeaseNotHeld, before and after compaction; nothing is stored", async () => {
    const claimed = await claimedRun(store());
    await claimed.append(['one', 'two', 'three']);
    await claimed.finish();
    const retry = () =>
      store().logChunks.appendChunk(claimed.run.id, claimed.lease.id, HISTORY_CONTROLLER, 3, ['three']);
    const late = () => store().logChunks.appendChunk(claimed.run.id, claimed.lease.id, HISTORY_CONTROLLER, 4, ['four']);
    for (const stage of ['before compaction', 'after compaction']) {
      await expect(retry(), stage).rejects.toMatchObject({
        reason: 'LeaseNotHeld',
        message: expect.stringContaining('the run is Succeeded'),
      });
      await expect(late(), stage).rejects.toMatchObject({ reason: 'LeaseNotHeld' });
      expect(
        (await readWholeLog(store(), claimed.run.id)).map((line) => line.line),
        stage,
      ).toEqual(['one', 'two', 'three']);
      await compactor().compactRun(claimed.run.id);
    }
    expect((await store().records.getLogProgress(claimed.run.id)).lastSeq).toBe(3);
  });

  it('lines appended without a lease after compaction follow the blocks as rows, in order, and the next pass compacts them too', async () => {
    const lines = variedLines(1_100, 'merged');
    const runId = await finishedRun(store(), lines);
    await compactor().compactRun(runId);
    const appended = await store().appendLogLines(runId, ['late one', 'late two']);
    expect(appended).toEqual([
      { seq: 1_101, line: 'late one' },
      { seq: 1_102, line: 'late two' },
    ]);
    const merged = [...lines, 'late one', 'late two'];
    expect((await readWholeLog(store(), runId, 300)).map((line) => line.line)).toEqual(merged);
    expect(await store().logs.readLogLines(runId, 1_099, 10)).toEqual([
      { seq: 1_100, line: lines[1_099] },
      { seq: 1_101, line: 'late one' },
      { seq: 1_102, line: 'late two' },
    ]);
    expect(await storedLog(database().pool, runId)).toEqual({
      rows: 2,
      blocks: [
        [1, 500],
        [501, 1_000],
        [1_001, 1_100],
      ],
    });
    await compactor().compactFinishedRuns(1_000);
    expect(await storedLog(database().pool, runId)).toEqual({
      rows: 0,
      blocks: [
        [1, 500],
        [501, 1_000],
        [1_001, 1_100],
        [1_101, 1_102],
      ],
    });
    expect((await readWholeLog(store(), runId, 300)).map((line) => line.line)).toEqual(merged);
  });

  it('an empty log, and a run that is gone, read as before: no lines; RunNotFound', async () => {
    const runId = await finishedRun(store(), []);
    await compactor().compactRun(runId);
    expect(await store().logs.readLogLines(runId, 0, 100)).toEqual([]);
    await expect(store().logs.readLogLines('0190a0a0-0000-7000-8000-000000000000', 0, 10)).rejects.toMatchObject({
      reason: 'RunNotFound',
    });
  });
});

describe("Issue 35: compaction must not slow a live run's append: migration 007 indexes nothing the append changes", () => {
  it('no index of runs references last_log_seq, so the append’s UPDATE of its run stays a HOT update (no index entry written)', async () => {
    const { rows: indexes } = await database().pool.query<{ definition: string }>(
      "SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'runs'::regclass",
    );
    expect(indexes.map((index) => index.definition)).toEqual(
      expect.arrayContaining([expect.stringContaining('runs_finished_with_log_oldest_first')]),
    );
    expect(indexes.filter((index) => index.definition.includes('last_log_seq'))).toEqual([]);
    const running = await claimedRun(store());
    const client = await database().pool.connect();
    try {
      // The connection's counts of updates not yet reported, before and after (nothing is reported mid-transaction).
      const updates = async () =>
        (
          await client.query(
            "SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'runs'",
          )
        ).rows[0] as { updated: number; hot: number };
      await client.query('BEGIN');
      const before = await updates();
      // The reservation of line numbers the chunk route's append makes, in a transaction of its own here.
      await client.query('UPDATE runs SET last_log_seq = last_log_seq + 500 WHERE id = $1', [running.run.id]);
      const after = await updates();
      expect({ updated: after.updated - before.updated, hot: after.hot - before.hot }).toEqual({ updated: 1, hot: 1 });
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
