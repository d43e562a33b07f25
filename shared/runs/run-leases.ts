import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { FINAL_PHASES, type Run, type RunPhase } from './run.ts';
import {
  InvalidPhaseTransitionError,
  LeaseNotHeldError,
  LogChunkConflictError,
  LogSequenceGapError,
  RunNotFoundError,
} from './run-errors.ts';
import { isUuid } from './run-id.ts';
import { MAX_RUN_ATTEMPTS, phasesFrom } from './phase-machine.ts';
import { queryRuns, RUN_COLUMNS, toRun, type RunRow } from './run-row.ts';

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

/** Which Pending runs a controller takes; none: any. */
export interface ClaimFilter {
  project?: string;
  /** Only with `project`: Workspace names are per Project. */
  workspace?: string;
}

/** The outcome of a log chunk: its line numbers, and whether it had been stored by an earlier try. */
export interface AppendedChunk {
  firstSeq: number;
  lastSeq: number;
  nextSeq: number;
  duplicate: boolean;
}

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
  live: boolean;
  last_log_seq: string;
  cancel_requested_at: Date | null;
}

const LEASE_COLUMNS = `${RUN_COLUMNS}, lease_id, lease_expires_at, last_log_seq`;
// The statements below compare lease expiry with the database's clock only, so controllers' clocks never matter.
const HELD = `lease_id = $2 AND lease_expires_at > now() AND phase = 'Running'`;

/**
 * The workspace controller's side of the runs (docs/run-history.md, "Leases"): claims with leases,
 * renewals, numbered log chunks and phase changes, each a single statement whose `WHERE` checks
 * the lease, so a controller that lost its lease changes nothing.
 */
export class RunLeases {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Takes the oldest Pending run (matching `filter`) for `controller` with a lease of `leaseMs`;
   * undefined when there is none. Leases that lapsed are collected first.
   */
  async claim(controller: string, leaseMs: number, filter: ClaimFilter = {}): Promise<LeasedRun | undefined> {
    await this.collectLapsedLeases();
    const values: unknown[] = [randomUUID(), leaseMs, controller, phasesFrom('Running', 'controller')];
    const conditions = [`phase = 'Pending'`, `phase IN ('Pending', 'Running')`];
    for (const column of ['project', 'workspace'] as const) {
      if (filter[column] === undefined) continue;
      values.push(filter[column]);
      conditions.push(`${column} = $${values.length}`);
    }
    // SKIP LOCKED: competing controllers each take a different run instead of queueing on one row.
    const { rows } = await queryRuns<LeaseRow>(
      this.#pool,
      `UPDATE runs SET phase = 'Running', attempts = attempts + 1, lease_id = $1,
         lease_expires_at = now() + $2 * interval '1 millisecond', controller = $3,
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
   * was requested, Failed on its last attempt. Resolves to the number of runs changed. Rows another
   * call is changing are skipped (SKIP LOCKED): competing collectors never wait on or deadlock with each other.
   */
  async collectLapsedLeases(): Promise<number> {
    const { rowCount } = await queryRuns(
      this.#pool,
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
         FOR UPDATE SKIP LOCKED)`,
      [MAX_RUN_ATTEMPTS],
    );
    return rowCount ?? 0;
  }

  /** Extends the lease by `leaseMs` from now; the answer says whether a cancellation was requested. */
  async renew(runId: string, leaseId: string, leaseMs: number): Promise<LeasedRun> {
    this.#checkIds(runId, leaseId);
    const { rows } = await queryRuns<LeaseRow>(
      this.#pool,
      `UPDATE runs SET lease_expires_at = now() + $3 * interval '1 millisecond'
       WHERE id = $1 AND ${HELD} RETURNING ${LEASE_COLUMNS}`,
      [runId, leaseId, leaseMs],
    );
    if (rows[0]) return toLeasedRun(rows[0]);
    throw leaseFailure(runId, leaseId, await this.#state(runId));
  }

  /** The run, if `leaseId` is its current, unexpired lease; throws `LeaseNotHeldError` otherwise. */
  async heldRun(runId: string, leaseId: string): Promise<Run> {
    this.#checkIds(runId, leaseId);
    const { rows } = await queryRuns<RunRow>(this.#pool, `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND ${HELD}`, [
      runId,
      leaseId,
    ]);
    if (rows[0]) return toRun(rows[0]);
    throw leaseFailure(runId, leaseId, await this.#state(runId));
  }

  /**
   * Stores `lines` as lines `firstSeq`, `firstSeq + 1`, … of the run's log. The chunk must start at
   * the next line; a chunk stored before (a retry) is acknowledged without storing it again; a gap
   * or a different chunk over stored lines is refused. `lines` must not be empty.
   */
  async appendChunk(
    runId: string,
    leaseId: string,
    firstSeq: number,
    lines: readonly string[],
  ): Promise<AppendedChunk> {
    this.#checkIds(runId, leaseId);
    const lastSeq = firstSeq + lines.length - 1;
    // Reserving the numbers and inserting the lines is one statement: all lines land, or none.
    const { rowCount } = await queryRuns(
      this.#pool,
      `WITH reserved AS (
         UPDATE runs SET last_log_seq = $4 WHERE id = $1 AND ${HELD} AND last_log_seq = $3 - 1 RETURNING id
       )
       INSERT INTO run_log_lines (run_id, seq, line)
       SELECT reserved.id, $3 - 1 + appended.ordinal, appended.line
       FROM reserved, unnest($5::text[]) WITH ORDINALITY AS appended (line, ordinal)`,
      [runId, leaseId, firstSeq, lastSeq, lines],
    );
    if (rowCount) return { firstSeq, lastSeq, nextSeq: lastSeq + 1, duplicate: false };
    const state = await this.#state(runId);
    if (!isHeld(state, leaseId)) throw leaseFailure(runId, leaseId, state);
    const nextSeq = Number(state!.last_log_seq) + 1;
    if (firstSeq > nextSeq) throw new LogSequenceGapError(runId, firstSeq, nextSeq);
    if (lastSeq < nextSeq && (await this.#storedLinesEqual(runId, firstSeq, lines)))
      return { firstSeq, lastSeq, nextSeq, duplicate: true };
    throw new LogChunkConflictError(runId, firstSeq, nextSeq);
  }

  /**
   * Ends the run in `phase` with the controller's `statusMessage`. Cancelled only acknowledges a
   * requested cancellation. A retry of the same call after it succeeded answers the run again.
   */
  async finish(runId: string, leaseId: string, phase: FinalControllerPhase, statusMessage?: string): Promise<Run> {
    this.#checkIds(runId, leaseId);
    const { rows } = await queryRuns<RunRow>(
      this.#pool,
      `UPDATE runs SET phase = $3, status_message = coalesce($4, status_message),
         finished_at = date_trunc('milliseconds', now()), lease_expires_at = NULL
       WHERE id = $1 AND ${HELD} AND phase = ANY($5::text[])
         AND ($3 <> 'Cancelled' OR cancel_requested_at IS NOT NULL)
       RETURNING ${RUN_COLUMNS}`,
      [runId, leaseId, phase, statusMessage ?? null, phasesFrom(phase, 'controller')],
    );
    if (rows[0]) return toRun(rows[0]);
    const state = await this.#state(runId);
    // The lease stays on a finished run, so the holder's retry is recognised.
    if (state && state.lease_id === leaseId && state.phase === phase) {
      const { rows: finished } = await queryRuns<RunRow>(this.#pool, `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [
        runId,
      ]);
      return toRun(finished[0]!);
    }
    if (isHeld(state, leaseId) && (phase !== 'Cancelled' || state!.cancel_requested_at === null)) {
      throw new InvalidPhaseTransitionError(runId, state!.phase, phase);
    }
    throw leaseFailure(runId, leaseId, state);
  }

  #checkIds(runId: string, leaseId: string): void {
    if (!isUuid(runId)) throw new RunNotFoundError(runId);
    if (!isUuid(leaseId)) throw new LeaseNotHeldError(runId, 'the lease id is not one this service issued');
  }

  async #state(runId: string): Promise<LeaseState | undefined> {
    const { rows } = await queryRuns<LeaseState>(
      this.#pool,
      'SELECT phase, lease_id, coalesce(lease_expires_at > now(), false) AS live, last_log_seq, cancel_requested_at FROM runs WHERE id = $1',
      [runId],
    );
    return rows[0];
  }

  async #storedLinesEqual(runId: string, firstSeq: number, lines: readonly string[]): Promise<boolean> {
    const { rows } = await queryRuns<{ line: string }>(
      this.#pool,
      'SELECT line FROM run_log_lines WHERE run_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq',
      [runId, firstSeq, firstSeq + lines.length - 1],
    );
    return rows.length === lines.length && rows.every((row, index) => row.line === lines[index]);
  }
}

function isHeld(state: LeaseState | undefined, leaseId: string): boolean {
  return state !== undefined && state.lease_id === leaseId && state.live && state.phase === 'Running';
}

/** Why `leaseId` does not hold the run: it is gone, finished, lapsed, or another controller's. */
function leaseFailure(runId: string, leaseId: string, state: LeaseState | undefined): Error {
  if (!state) return new RunNotFoundError(runId);
  if (FINAL_PHASES.includes(state.phase)) return new LeaseNotHeldError(runId, `the run is ${state.phase}`);
  if (state.lease_id !== leaseId)
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
