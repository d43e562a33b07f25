import { randomUUID } from 'node:crypto';
import type { Database, TransactionQuery } from '../database/database.ts';
import { LogAppendProgress } from './log-append-progress.ts';
import { FINAL_PHASES, type PrincipalType, type Run, type RunPhase } from './run.ts';
import {
  InvalidPhaseTransitionError,
  LeaseNotHeldError,
  LogChunkConflictError,
  LogSequenceGapError,
  RunNotFoundError,
} from './run-errors.ts';
import { isUuid } from './run-id.ts';
import { MAX_RUN_ATTEMPTS, phasesFrom } from './phase-machine.ts';
import { RUN_COLUMNS, toRun, type RunRow } from './run-row.ts';

/** A controller's hold on a running run. */
export interface RunLease {
  /** Carried by every renewal, log append and phase change of the holder. */
  id: string;
  expiresAt: string;
  /** Which claim of the run this is, from 1. */
  attempt: number;
  /** The number the next log line gets: where a new holder continues the log. */
  nextLogSeq: number;
  /** A user asked to cancel the run: stop, then move it to Cancelled. */
  cancelRequested: boolean;
}

export interface LeasedRun {
  run: Run;
  lease: RunLease;
}

/** A run whose lease lapsed, and the phase the collector moved it to (Pending again, Failed or Cancelled). */
export interface LapsedLease {
  id: string;
  phase: RunPhase;
}

/** Which Pending runs a controller takes; none: any. */
export interface ClaimFilter {
  project?: string;
  /** Only with `project`: Workspace names are per Project. */
  workspace?: string;
}

/** The principal that claims a lease, as runs record principals (`runPrincipal`); only it may use the lease. */
export interface LeaseHolder {
  principal: string;
  principalType: PrincipalType;
}

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

export interface RunLeasesOptions {
  /**
   * How long a chunk that starts after the next line waits for the lines before it (a pipelined
   * chunk overtaking its predecessor) while the log does not move, before it is a `LogSequenceGap`.
   */
  gapWaitMs: number;
}

export const DEFAULT_LEASES_OPTIONS: RunLeasesOptions = { gapWaitMs: 2_000 };
/**
 * How soon a waiting chunk looks again for lines stored by another replica (which this process does
 * not hear of), doubling up to the most: many waiting chunks do not keep the database busy.
 */
const GAP_POLL_MS = { first: 10, most: 50 };

/** The phases a controller may end a run in. */
export type FinalControllerPhase = Extract<RunPhase, 'Succeeded' | 'Failed' | 'Cancelled'>;

interface LeaseRow extends RunRow {
  lease_id: string;
  lease_expires_at: Date;
  last_log_seq: string;
}

interface LeaseState {
  phase: RunPhase;
  lease_id: string | null;
  lease_holder: string | null;
  live: boolean;
  last_log_seq: string;
  cancel_requested_at: Date | null;
}

const LEASE_COLUMNS = `${RUN_COLUMNS}, lease_id, lease_expires_at, last_log_seq`;
const STATE_COLUMNS =
  'phase, lease_id, lease_holder, coalesce(lease_expires_at > now(), false) AS live, last_log_seq, cancel_requested_at';
// The statements below compare lease expiry with the database's clock only, so controllers' clocks never matter.
// The lease id is $2 and its holder's key $3 in every statement that checks the lease.
const HELD = `lease_id = $2 AND lease_holder = $3 AND lease_expires_at > now() AND phase = 'Running'`;

/**
 * The workspace controller's side of the runs (docs/run-history.md, "Leases"): claims with leases,
 * renewals, numbered log chunks and phase changes, each a single statement whose `WHERE` checks
 * the lease and its holder, so a controller that lost its lease, or never had it, changes nothing.
 * A log chunk that is not a plain append is decided in one transaction under the run's row lock.
 */
export class RunLeases {
  readonly #database: Database;
  readonly #options: RunLeasesOptions;
  readonly #progress = new LogAppendProgress();

  constructor(database: Database, options: RunLeasesOptions = DEFAULT_LEASES_OPTIONS) {
    this.#database = database;
    this.#options = options;
  }

  /**
   * Takes the oldest Pending run (matching `filter`) for `controller` with a lease of `leaseMs`, bound
   * to `controller`: undefined when there is none. Leases that lapsed are collected first.
   */
  async claim(
    controller: LeaseHolder,
    leaseMs: number,
    filter: ClaimFilter = {},
    onLapsed: (lapsed: LapsedLease[]) => void = () => {},
  ): Promise<LeasedRun | undefined> {
    const lapsed = await this.collectLapsedLeases();
    if (lapsed.length > 0) onLapsed(lapsed);
    const values: unknown[] = [
      randomUUID(),
      leaseMs,
      controller.principal,
      phasesFrom('Running', 'controller'),
      holderKey(controller),
    ];
    const conditions = [`phase = 'Pending'`, `phase IN ('Pending', 'Running')`];
    for (const column of ['project', 'workspace'] as const) {
      if (filter[column] === undefined) continue;
      values.push(filter[column]);
      conditions.push(`${column} = $${values.length}`);
    }
    // SKIP LOCKED: competing controllers each take a different run instead of queueing on one row.
    const { rows } = await this.#database.query<LeaseRow>(
      `UPDATE runs SET phase = 'Running', attempts = attempts + 1, lease_id = $1,
         lease_expires_at = now() + $2 * interval '1 millisecond', controller = $3, lease_holder = $5,
         started_at = date_trunc('milliseconds', now())
       WHERE phase = ANY($4::text[]) AND id = (
         SELECT id FROM runs WHERE ${conditions.join(' AND ')}
         ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING ${LEASE_COLUMNS}`,
      values,
    );
    return rows[0] && toLeasedRun(rows[0]);
  }

  /**
   * Returns every run whose lease expired to the queue, or ends it: Cancelled when a cancellation
   * was requested, Failed on its last attempt. Resolves to the runs changed and their new phase. Rows another
   * call is changing are skipped (SKIP LOCKED): competing collectors never wait on or deadlock with each other.
   */
  async collectLapsedLeases(): Promise<LapsedLease[]> {
    const { rows } = await this.#database.query<LapsedLease>(
      `UPDATE runs SET
         phase = CASE WHEN cancel_requested_at IS NOT NULL THEN 'Cancelled' WHEN attempts >= $1 THEN 'Failed' ELSE 'Pending' END,
         finished_at = CASE WHEN cancel_requested_at IS NOT NULL OR attempts >= $1 THEN date_trunc('milliseconds', now()) END,
         status_message = CASE
           WHEN cancel_requested_at IS NOT NULL THEN format('cancelled: the lease of %s lapsed after cancellation was requested', coalesce(controller, 'its controller'))
           WHEN attempts >= $1 THEN format('failed: the lease of %s lapsed on attempt %s of %s; the run is not retried again', coalesce(controller, 'its controller'), attempts, $1::int)
           ELSE format('the lease of %s lapsed on attempt %s of %s; the run is back in the queue', coalesce(controller, 'its controller'), attempts, $1::int) END,
         lease_id = NULL, lease_expires_at = NULL
       WHERE id IN (
         SELECT id FROM runs WHERE phase = 'Running' AND (lease_expires_at IS NULL OR lease_expires_at <= now())
         FOR UPDATE SKIP LOCKED)
       RETURNING id, phase`,
      [MAX_RUN_ATTEMPTS],
    );
    return rows;
  }

  /** Extends the lease by `leaseMs` from now; the answer says whether a cancellation was requested. */
  async renew(runId: string, leaseId: string, holder: LeaseHolder, leaseMs: number): Promise<LeasedRun> {
    this.#checkIds(runId, leaseId);
    const { rows } = await this.#database.query<LeaseRow>(
      `UPDATE runs SET lease_expires_at = now() + $4 * interval '1 millisecond'
       WHERE id = $1 AND ${HELD} RETURNING ${LEASE_COLUMNS}`,
      [runId, leaseId, holderKey(holder), leaseMs],
    );
    if (rows[0]) return toLeasedRun(rows[0]);
    throw leaseFailure(runId, leaseId, holder, await this.#state(runId));
  }

  /** The run, if `leaseId` is its current, unexpired lease and `holder` claimed it; throws `LeaseNotHeldError` otherwise. */
  async heldRun(runId: string, leaseId: string, holder: LeaseHolder): Promise<Run> {
    this.#checkIds(runId, leaseId);
    const { rows } = await this.#database.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND ${HELD}`, [
      runId,
      leaseId,
      holderKey(holder),
    ]);
    if (rows[0]) return toRun(rows[0]);
    throw leaseFailure(runId, leaseId, holder, await this.#state(runId));
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
    this.#checkIds(runId, leaseId);
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
   * Ends the run in `phase` with the controller's `statusMessage`. Cancelled only acknowledges a
   * requested cancellation. A retry of the same call after it succeeded answers the run again.
   */
  async finish(
    runId: string,
    leaseId: string,
    holder: LeaseHolder,
    phase: FinalControllerPhase,
    statusMessage?: string,
  ): Promise<Run> {
    this.#checkIds(runId, leaseId);
    const { rows } = await this.#database.query<RunRow>(
      `UPDATE runs SET phase = $4, status_message = coalesce($5, status_message),
         finished_at = date_trunc('milliseconds', now()), lease_expires_at = NULL
       WHERE id = $1 AND ${HELD} AND phase = ANY($6::text[])
         AND ($4 <> 'Cancelled' OR cancel_requested_at IS NOT NULL)
       RETURNING ${RUN_COLUMNS}`,
      [runId, leaseId, holderKey(holder), phase, statusMessage ?? null, phasesFrom(phase, 'controller')],
    );
    if (rows[0]) return toRun(rows[0]);
    const state = await this.#state(runId);
    // The lease (and its holder) stays on a finished run, so the holder's retry is recognised.
    if (state && isLease(state, leaseId, holder) && state.phase === phase) {
      const { rows: finished } = await this.#database.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [
        runId,
      ]);
      return toRun(finished[0]!);
    }
    if (isHeld(state, leaseId, holder) && (phase !== 'Cancelled' || state.cancel_requested_at === null)) {
      throw new InvalidPhaseTransitionError(runId, state.phase, phase);
    }
    throw leaseFailure(runId, leaseId, holder, state);
  }

  #checkIds(runId: string, leaseId: string): void {
    if (!isUuid(runId)) throw new RunNotFoundError(runId);
    if (!isUuid(leaseId)) throw new LeaseNotHeldError(runId, 'the lease id is not one this service issued');
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

  async #state(runId: string): Promise<LeaseState | undefined> {
    const { rows } = await this.#database.query<LeaseState>(`SELECT ${STATE_COLUMNS} FROM runs WHERE id = $1`, [runId]);
    return rows[0];
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

/** The key a lease's holder is stored under: the type keeps an OIDC user named `admin` apart from the admin. */
function holderKey(holder: LeaseHolder): string {
  return `${holder.principalType}:${holder.principal}`;
}

/** Whether `leaseId` is the run's (current or last) lease and `holder` claimed it. */
function isLease(state: LeaseState, leaseId: string, holder: LeaseHolder): boolean {
  return state.lease_id === leaseId && state.lease_holder === holderKey(holder);
}

function isHeld(state: LeaseState | undefined, leaseId: string, holder: LeaseHolder): state is LeaseState {
  return state !== undefined && isLease(state, leaseId, holder) && state.live && state.phase === 'Running';
}

/**
 * Why `leaseId` does not hold the run for `holder`: it is gone, finished, lapsed, or not theirs. Another
 * principal presenting the run's lease id is answered exactly as for an id that was never issued: it
 * learns nothing of the lease.
 */
function leaseFailure(runId: string, leaseId: string, holder: LeaseHolder, state: LeaseState | undefined): Error {
  if (!state) return new RunNotFoundError(runId);
  if (FINAL_PHASES.includes(state.phase)) return new LeaseNotHeldError(runId, `the run is ${state.phase}`);
  if (!isLease(state, leaseId, holder))
    return new LeaseNotHeldError(runId, 'another lease holds it, or it went back to the queue');
  return new LeaseNotHeldError(runId, 'the lease expired');
}

function toLeasedRun(row: LeaseRow): LeasedRun {
  return {
    run: toRun(row),
    lease: {
      id: row.lease_id,
      expiresAt: row.lease_expires_at.toISOString(),
      attempt: row.attempts,
      nextLogSeq: Number(row.last_log_seq) + 1,
      cancelRequested: row.cancel_requested_at !== null,
    },
  };
}
