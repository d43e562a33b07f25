import type { Database, TransactionQuery } from '../../../base/database/database.ts';
import { LogAppendProgress } from './log-append-progress.ts';
import { LogChunkConflictError, LogSequenceGapError } from '../run-errors.ts';
import {
  checkLeaseIds,
  HELD,
  holderKey,
  isHeld,
  leaseFailure,
  readLeaseState,
  STATE_COLUMNS,
  type LeaseHolder,
  type LeaseState,
} from './lease-checks.ts';

/** The outcome of a log chunk: its line numbers, and how much of it an earlier try had stored. */
export interface AppendedChunk {
  firstSeq: number;
  lastSeq: number;
  nextSeq: number;
  /** Every line of the chunk was stored before, with the same text (a retry): nothing was stored now. */
  duplicate: boolean;
  /** How many of the chunk's first lines were stored before with the same text; the rest were stored now. */
  storedBefore: number;
}

export interface LogChunksOptions {
  /**
   * How long a chunk that starts after the next line waits for the lines before it (a pipelined
   * chunk overtaking its predecessor) while the log does not move, before it is a `LogSequenceGap`.
   */
  gapWaitMs: number;
}

export const DEFAULT_LOG_CHUNKS_OPTIONS: LogChunksOptions = { gapWaitMs: 2_000 };
/**
 * How soon a waiting chunk looks again for lines stored by another replica (which this process does
 * not hear of), doubling up to the most: many waiting chunks do not keep the database busy.
 */
const GAP_POLL_MS = { first: 10, most: 50 };

/**
 * The one insert of log lines (docs/run-history.md, "Leases"): numbered chunks stored under the
 * holder's lease, each a statement whose `WHERE` checks the lease and its holder, so a controller
 * that lost its lease, or never had it, stores nothing. A chunk that is not a plain append is decided
 * in one transaction under the run's row lock. The product reaches it through the run log's masking
 * (shared/domain/runs/logs/run-log-masking.ts), which hands it masked lines only.
 */
export class RunLogChunks {
  readonly #database: Database;
  readonly #options: LogChunksOptions;
  readonly #progress = new LogAppendProgress();

  constructor(database: Database, options: LogChunksOptions = DEFAULT_LOG_CHUNKS_OPTIONS) {
    this.#database = database;
    this.#options = options;
  }

  /**
   * Stores `lines` as lines `firstSeq`, `firstSeq + 1`, … of the run's log. Lines the chunk shares
   * with the stored log must have the same text (a retry, whole or in part): they are acknowledged,
   * and only the lines after them are stored. Other text over stored lines is refused; so is a gap,
   * once the lines before the chunk did not arrive within `gapWaitMs`. `lines` must not be empty.
   */
  async appendChunk(
    runId: string,
    leaseId: string,
    holder: LeaseHolder,
    firstSeq: number,
    lines: readonly string[],
  ): Promise<AppendedChunk> {
    checkLeaseIds(runId, leaseId);
    return this.inLineOrder(runId, firstSeq, lines.length, () =>
      this.#appendInOrder({ runId, leaseId, holder, firstSeq, lines }),
    );
  }

  /**
   * Runs `work` for the chunk of `lineCount` lines from `firstSeq` of run `runId` once the chunks of
   * this process that end just before it were decided: pipelined chunks are handled (masked, stored)
   * in the order of their lines, not of their arrival.
   */
  async inLineOrder<T>(runId: string, firstSeq: number, lineCount: number, work: () => Promise<T>): Promise<T> {
    const chunk = this.#progress.begin(runId, firstSeq, firstSeq + lineCount);
    try {
      await chunk.before;
      return await work();
    } finally {
      chunk.done();
    }
  }

  /** `appendChunk` once the chunks of this process before it were decided. */
  async #appendInOrder(chunk: ChunkToStore): Promise<AppendedChunk> {
    for (;;) {
      const outcome =
        (await this.#storeAtNextLine(chunk)) ?? (await this.#database.transaction((query) => storeChunk(query, chunk)));
      if ('appended' in outcome) {
        if (!outcome.appended.duplicate) this.#progress.stored(chunk.runId, outcome.appended.nextSeq);
        return outcome.appended;
      }
      await this.#awaitLinesBefore(chunk, outcome.gapAt);
    }
  }

  /**
   * The lines before a chunk starting at `firstSeq` are missing (the log's next line is `nextSeq`):
   * a pipelined chunk may have overtaken them, here or at another replica. Resolves once the log
   * reaches the chunk; a log that stands still for `gapWaitMs` has a real gap (`LogSequenceGapError`).
   * Looking again is one small read, so chunks waiting at other replicas cost the database little.
   */
  async #awaitLinesBefore({ runId, leaseId, holder, firstSeq }: ChunkToStore, nextSeq: number): Promise<void> {
    let deadline = Date.now() + this.#options.gapWaitMs;
    let pollMs = GAP_POLL_MS.first;
    while (nextSeq < firstSeq) {
      const now = Date.now();
      if (now >= deadline) throw new LogSequenceGapError(runId, firstSeq, nextSeq);
      await this.#progress.reached(runId, firstSeq, Math.min(deadline - now, pollMs));
      pollMs = Math.min(pollMs * 2, GAP_POLL_MS.most);
      const state = await this.#state(runId);
      // Gone, or the lease no longer held: the chunk's next try says so.
      if (!isHeld(state, leaseId, holder)) return;
      const moved = Number(state.last_log_seq) + 1;
      if (moved > nextSeq) {
        deadline = Date.now() + this.#options.gapWaitMs;
        // What one waiting chunk saw, the others of this process waiting on the run need not read again.
        this.#progress.stored(runId, moved);
      }
      nextSeq = moved;
    }
  }

  /**
   * The common case in one statement: a chunk that starts at the next line, under the holder's lease,
   * is stored; undefined for anything else, which `storeChunk` then decides under the row lock.
   */
  async #storeAtNextLine({
    runId,
    leaseId,
    holder,
    firstSeq,
    lines,
  }: ChunkToStore): Promise<{ appended: AppendedChunk } | undefined> {
    const lastSeq = firstSeq + lines.length - 1;
    // Reserving the numbers and inserting the lines is one statement: all lines land, or none. An
    // UPDATE that waited for another append's row lock checks its WHERE again on the row that append left.
    const { rowCount } = await this.#database.query(
      `WITH reserved AS (
         UPDATE runs SET last_log_seq = $5 WHERE id = $1 AND ${HELD} AND last_log_seq = $4 - 1 RETURNING id
       )
       INSERT INTO run_log_lines (run_id, seq, line)
       SELECT reserved.id, $4 - 1 + appended.ordinal, appended.line
       FROM reserved, unnest($6::text[]) WITH ORDINALITY AS appended (line, ordinal)`,
      [runId, leaseId, holderKey(holder), firstSeq, lastSeq, lines],
    );
    return rowCount
      ? { appended: { firstSeq, lastSeq, nextSeq: lastSeq + 1, duplicate: false, storedBefore: 0 } }
      : undefined;
  }

  #state(runId: string): Promise<LeaseState | undefined> {
    return readLeaseState(this.#database, runId);
  }
}

interface ChunkToStore {
  runId: string;
  leaseId: string;
  holder: LeaseHolder;
  firstSeq: number;
  lines: readonly string[];
}

/**
 * Decides and stores one chunk under the run's row lock, so concurrent chunks of the run are decided
 * one after another, each on the log as the one before it left it. `gapAt`: the next line, which the
 * chunk starts after.
 */
async function storeChunk(
  query: TransactionQuery,
  { runId, leaseId, holder, firstSeq, lines }: ChunkToStore,
): Promise<{ appended: AppendedChunk } | { gapAt: number }> {
  const { rows } = await query<LeaseState>(`SELECT ${STATE_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`, [runId]);
  const state = rows[0];
  if (!isHeld(state, leaseId, holder)) throw leaseFailure(runId, leaseId, holder, state);
  const nextSeq = Number(state.last_log_seq) + 1;
  if (firstSeq > nextSeq) return { gapAt: nextSeq };
  const lastSeq = firstSeq + lines.length - 1;
  const storedBefore = Math.min(lines.length, nextSeq - firstSeq);
  const differing = await firstDifferingLine(query, runId, firstSeq, lines.slice(0, storedBefore));
  if (differing !== undefined) throw new LogChunkConflictError(runId, firstSeq, differing, nextSeq);
  const rest = lines.slice(storedBefore);
  if (rest.length > 0) {
    await query(
      `INSERT INTO run_log_lines (run_id, seq, line)
       SELECT $1, $2 - 1 + appended.ordinal, appended.line
       FROM unnest($3::text[]) WITH ORDINALITY AS appended (line, ordinal)`,
      [runId, nextSeq, rest],
    );
    await query('UPDATE runs SET last_log_seq = $2 WHERE id = $1', [runId, lastSeq]);
  }
  return {
    appended: {
      firstSeq,
      lastSeq,
      nextSeq: Math.max(nextSeq, lastSeq + 1),
      duplicate: rest.length === 0,
      storedBefore,
    },
  };
}

/** The number of the first of `lines` (lines `firstSeq`, …, all stored) whose stored text differs; undefined when none does. */
async function firstDifferingLine(
  query: TransactionQuery,
  runId: string,
  firstSeq: number,
  lines: readonly string[],
): Promise<number | undefined> {
  if (lines.length === 0) return undefined;
  const { rows } = await query<{ seq: string; line: string }>(
    'SELECT seq, line FROM run_log_lines WHERE run_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq',
    [runId, firstSeq, firstSeq + lines.length - 1],
  );
  const stored = new Map(rows.map((row) => [Number(row.seq), row.line]));
  const index = lines.findIndex((line, offset) => stored.get(firstSeq + offset) !== line);
  return index === -1 ? undefined : firstSeq + index;
}
