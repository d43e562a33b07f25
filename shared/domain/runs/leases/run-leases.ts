import { randomUUID } from 'node:crypto';
import type { Database } from '../../../base/database/database.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import type { ApiError } from '../../../base/http/api-error.ts';
import type { Run, RunPhase } from '../run.ts';
import { InvalidPhaseTransitionError } from '../run-errors.ts';
import { MAX_RUN_ATTEMPTS, phasesFrom } from '../phase-machine.ts';
import { RUN_COLUMNS, toRun, type RunRow } from '../records/run-row.ts';
import { insertPendingTaskResults, pendingTaskResultValues } from '../tasks/pending-task-results.ts';
import type { TasksToAwait } from '../tasks/run-task-protocol.ts';
import {
  checkLeaseIds,
  HELD,
  holderKey,
  isHeld,
  isLease,
  leaseFailure,
  readLeaseState,
  type LeaseHolder,
  type LeaseState,
} from './lease-checks.ts';

export type { LeaseHolder } from './lease-checks.ts';

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

/** The phases a controller may end a run in. */
export type FinalControllerPhase = Extract<RunPhase, 'Succeeded' | 'Failed' | 'Cancelled'>;

interface LeaseRow extends RunRow {
  lease_id: string;
  lease_expires_at: Date;
  last_log_seq: string;
}

const LEASE_COLUMNS = `${RUN_COLUMNS}, lease_id, lease_expires_at, last_log_seq`;

/**
 * The workspace controller's side of the runs (docs/run-history.md, "Leases"): claims with leases,
 * renewals and phase changes, each a single statement whose `WHERE` checks the lease and its holder,
 * so a controller that lost its lease, or never had it, changes nothing. Its log chunks are stored
 * by RunLogChunks (log-chunks.ts), under the same checks.
 */
export class RunLeases {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
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
    checkLeaseIds(runId, leaseId);
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
    checkLeaseIds(runId, leaseId);
    const { rows } = await this.#database.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND ${HELD}`, [
      runId,
      leaseId,
      holderKey(holder),
    ]);
    if (rows[0]) return toRun(rows[0]);
    throw leaseFailure(runId, leaseId, holder, await this.#state(runId));
  }

  /**
   * Ends the run in `phase` with the controller's `statusMessage`. Cancelled only acknowledges a
   * requested cancellation. A retry of the same call after it succeeded answers the run again.
   * `postPlan`: the run tasks a plan is checked by once it has succeeded (issue 48, the post_plan stage), each
   * recorded with a pending result by the statement that records the success (and only if it does).
   */
  async finish(
    runId: string,
    leaseId: string,
    holder: LeaseHolder,
    phase: FinalControllerPhase,
    statusMessage?: string,
    planHasChanges?: boolean,
    postPlan?: TasksToAwait,
  ): Promise<Run> {
    checkLeaseIds(runId, leaseId);
    if (planHasChanges !== undefined && phase !== 'Succeeded') throw planChangesRefused(phase);
    const { rows } = await this.#database.query<RunRow>(
      `WITH finished AS (
         UPDATE runs SET phase = $4, status_message = coalesce($5, status_message),
           finished_at = date_trunc('milliseconds', now()), lease_expires_at = NULL,
           plan_has_changes = coalesce($7, plan_has_changes)
         WHERE id = $1 AND ${HELD} AND phase = ANY($6::text[])
           AND ($4 <> 'Cancelled' OR cancel_requested_at IS NOT NULL)
           AND ($7::boolean IS NULL OR type = 'plan')
         RETURNING ${RUN_COLUMNS}
       ), succeeded_plan AS (
         SELECT id FROM finished WHERE type = 'plan' AND phase = 'Succeeded'
       ), post_plan_results AS (
         ${insertPendingTaskResults('succeeded_plan', 8)}
       )
       SELECT * FROM finished`,
      [
        runId,
        leaseId,
        holderKey(holder),
        phase,
        statusMessage ?? null,
        phasesFrom(phase, 'controller'),
        planHasChanges ?? null,
        ...pendingTaskResultValues(postPlan),
      ],
    );
    if (rows[0]) return toRun(rows[0]);
    if (planHasChanges !== undefined) {
      const { rows: typed } = await this.#database.query<{ type: string }>('SELECT type FROM runs WHERE id = $1', [
        runId,
      ]);
      if (typed[0]?.type === 'apply') throw planChangesRefused('an apply run');
    }
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

  #state(runId: string): Promise<LeaseState | undefined> {
    return readLeaseState(this.#database, runId);
  }
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

/** `hasChanges` said of something other than a plan that succeeds: refused, never ignored. */
function planChangesRefused(what: string): ApiError {
  return apiError('InvalidPlanChanges', `hasChanges is reported only when a plan succeeds, not with ${what}`);
}
