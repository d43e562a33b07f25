import { assertDurationWithin } from '../../../base/config/duration-guard.ts';
import { RUN_LOG_COMPACTION_DELAY_BOUNDS } from '../../../base/config/run-history-settings.ts';
import { blockSizes, encodeLogBlock, LOG_BLOCK_ENCODING } from './run-log-blocks.ts';
import type { Database, TransactionQuery } from '../../../base/database/database.ts';

export interface CompactionOptions {
  /** A run's log is compacted once the run has been finished this long (RUN_LOG_COMPACTION_DELAY). */
  delayMs: number;
  /** Lines moved per transaction at most: each step holds the run's row lock only briefly. */
  linesPerStep: number;
  /**
   * After each step, a rest this many times as long as the step took: 1 keeps compaction to half of
   * one core of its process and leaves the database's time to the live runs' appends (finished runs'
   * logs can wait); 0 compacts a backlog as fast as it can.
   */
  restRatio: number;
}

export const DEFAULT_COMPACTION_OPTIONS: CompactionOptions = { delayMs: 60_000, linesPerStep: 5_000, restRatio: 1 };
/** Runs taken per query of the candidates. */
const RUNS_PER_ROUND = 100;

/** What a compaction pass did. */
export interface CompactionReport {
  /** Runs whose rows were all moved (or purged). */
  runs: number;
  /** Lines moved into blocks. */
  lines: number;
  blocks: number;
  /** Rows deleted without a block because retention had removed their run's log. */
  purged: number;
}

/**
 * The finished runs that still have rows in run_log_lines, found by walking the distinct run ids of
 * its primary key (one index probe per run that has rows: the live runs and those finished within the
 * delay, not the whole history). Runs finished `delay` ago or more, or whose log retention removed.
 */
const RUNS_TO_COMPACT = `
  WITH RECURSIVE with_rows (run_id) AS (
    (SELECT run_id FROM run_log_lines ORDER BY run_id LIMIT 1)
    UNION ALL
    SELECT (SELECT next.run_id FROM run_log_lines next WHERE next.run_id > with_rows.run_id ORDER BY next.run_id LIMIT 1)
    FROM with_rows WHERE with_rows.run_id IS NOT NULL
  )
  SELECT runs.id FROM with_rows JOIN runs ON runs.id = with_rows.run_id
  WHERE runs.finished_at <= now() - $1 * interval '1 millisecond' OR runs.log_removed_at IS NOT NULL
  LIMIT $2`;

/**
 * Moves finished runs' logs from one row per line into compressed blocks (docs/run-history.md,
 * "Compaction"). Each step is one transaction under the run's row lock (taken with SKIP LOCKED, so
 * replicas doing the same take different runs and never wait on each other): it reads the run's
 * lowest rows, writes them as blocks after the run's last block, and deletes those rows. A process
 * killed mid-step leaves the step undone (the transaction rolls back), never a line in both places
 * or in neither; the next pass starts again from the rows that are left.
 */
export class RunLogCompactor {
  readonly #database: Database;
  readonly #options: CompactionOptions;

  constructor(database: Database, options: CompactionOptions = DEFAULT_COMPACTION_OPTIONS) {
    this.#database = database;
    this.#options = options;
  }

  /**
   * Compacts every finished run that is due, `RUNS_PER_ROUND` at a time, until a round finds fewer
   * (the rest are held by another replica, or there are none) or `stopped()` says to stop.
   */
  async compactDueRuns(stopped: () => boolean = () => false): Promise<CompactionReport> {
    const total: CompactionReport = { runs: 0, lines: 0, blocks: 0, purged: 0 };
    for (;;) {
      const round = await this.compactFinishedRuns(RUNS_PER_ROUND);
      total.runs += round.runs;
      total.lines += round.lines;
      total.blocks += round.blocks;
      total.purged += round.purged;
      if (round.runs < RUNS_PER_ROUND || stopped()) return total;
    }
  }

  /** Compacts up to `maxRuns` finished runs' logs, each wholly; resolves with what it did. */
  async compactFinishedRuns(maxRuns = RUNS_PER_ROUND): Promise<CompactionReport> {
    assertDurationWithin('RUN_LOG_COMPACTION_DELAY', this.#options.delayMs, RUN_LOG_COMPACTION_DELAY_BOUNDS);
    const { rows } = await this.#database.query<{ id: string }>(RUNS_TO_COMPACT, [this.#options.delayMs, maxRuns]);
    const report: CompactionReport = { runs: 0, lines: 0, blocks: 0, purged: 0 };
    for (const { id } of rows) {
      const done = await this.compactRun(id);
      report.lines += done.lines;
      report.blocks += done.blocks;
      report.purged += done.purged;
      if (done.complete) report.runs++;
    }
    return report;
  }

  /**
   * Moves the rows of run `runId` into blocks, step by step, once it has been finished for the delay.
   * `complete` is false when another process holds the run (it is compacting it) or it is not due.
   */
  async compactRun(runId: string): Promise<{ lines: number; blocks: number; purged: number; complete: boolean }> {
    const done = { lines: 0, blocks: 0, purged: 0, complete: false };
    for (;;) {
      const started = performance.now();
      const step = await this.#database.transaction((query) => this.#step(query, runId));
      if (step === 'skipped') return done;
      if (step === 'nothing left') return { ...done, complete: true };
      done.lines += step.lines;
      done.blocks += step.blocks;
      done.purged += step.purged;
      const restMs = (performance.now() - started) * this.#options.restRatio;
      if (restMs > 0) await new Promise((resolve) => setTimeout(resolve, restMs));
    }
  }

  async #step(
    query: TransactionQuery,
    runId: string,
  ): Promise<'skipped' | 'nothing left' | { lines: number; blocks: number; purged: number }> {
    // NO KEY UPDATE: conflicts with an append's reservation of numbers (an UPDATE of the run), not
    // with the foreign-key checks of inserts elsewhere. SKIP LOCKED: a run another replica is
    // compacting is left to it.
    const { rows: runs } = await query<{ log_removed_at: Date | null }>(
      `SELECT log_removed_at FROM runs
       WHERE id = $1 AND (finished_at <= now() - $2 * interval '1 millisecond' OR log_removed_at IS NOT NULL)
       FOR NO KEY UPDATE SKIP LOCKED`,
      [runId, this.#options.delayMs],
    );
    if (!runs[0]) return 'skipped';
    const { rows: last } = await query<{ last_seq: string }>(
      'SELECT last_seq FROM run_log_blocks WHERE run_id = $1 ORDER BY first_seq DESC LIMIT 1',
      [runId],
    );
    const compactedThrough = Number(last[0]?.last_seq ?? 0);
    // From after the last block: the index entries of the rows earlier steps moved stay until VACUUM.
    const { rows } = await query<{ seq: string; line: string }>(
      'SELECT seq, line FROM run_log_lines WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [runId, compactedThrough, this.#options.linesPerStep],
    );
    if (rows.length === 0) return 'nothing left';
    const firstSeq = Number(rows[0]!.seq);
    const lastSeq = Number(rows[rows.length - 1]!.seq);
    if (runs[0].log_removed_at) {
      // Retention removed the log (and its blocks) but did not get to every row: no reader sees them.
      await query('DELETE FROM run_log_lines WHERE run_id = $1 AND seq BETWEEN $2 AND $3', [runId, firstSeq, lastSeq]);
      return { lines: 0, blocks: 0, purged: rows.length };
    }
    checkContiguous(runId, rows, compactedThrough);
    const lines = rows.map((row) => row.line);
    const starts: number[] = [];
    const ends: number[] = [];
    const bodies: Buffer[] = [];
    let offset = 0;
    // One block at a time: compaction takes one thread of the pool, not every core, from the process.
    for (const size of blockSizes(lines)) {
      bodies.push(await encodeLogBlock(lines.slice(offset, offset + size)));
      starts.push(firstSeq + offset);
      ends.push(firstSeq + offset + size - 1);
      offset += size;
    }
    await query(
      `INSERT INTO run_log_blocks (run_id, first_seq, last_seq, encoding, body)
       SELECT $1, block.first_seq, block.last_seq, $2, block.body
       FROM unnest($3::bigint[], $4::bigint[], $5::bytea[]) AS block (first_seq, last_seq, body)`,
      [runId, LOG_BLOCK_ENCODING, starts, ends, bodies],
    );
    await query('DELETE FROM run_log_lines WHERE run_id = $1 AND seq BETWEEN $2 AND $3', [runId, firstSeq, lastSeq]);
    return { lines: rows.length, blocks: bodies.length, purged: 0 };
  }
}

/**
 * The rows must go on from the run's last block with no gap (appends number lines without gaps, and
 * compaction moves the lowest rows first): a block must never overlap another or skip a line.
 */
function checkContiguous(runId: string, rows: readonly { seq: string }[], compactedThrough: number): void {
  const gap = rows.findIndex((row, index) => Number(row.seq) !== compactedThrough + 1 + index);
  if (gap !== -1) {
    throw new Error(
      `run ${runId}: its rows do not go on from its last compacted line ${compactedThrough} without a gap (line ${rows[gap]!.seq})`,
    );
  }
}
