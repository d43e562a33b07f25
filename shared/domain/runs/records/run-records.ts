import type pg from 'pg';
import type { Database } from '../../../base/database/database.ts';
import { PROCESS_PAGE_TOKENS, type PageTokens } from '../../../base/database/page-tokens.ts';
import { decodeContinueToken, encodeContinueToken, type RunListScope } from './continue-token.ts';
import type { NewRun, Run, RunPhase } from '../run.ts';
import { InvalidPhaseTransitionError, RunNotFoundError } from '../run-errors.ts';
import { isUuid } from './run-id.ts';
import { phasesFrom } from '../phase-machine.ts';
import { RUN_COLUMNS, toRun, type RunRow } from './run-row.ts';
import { insertRun, type RunToInsert } from './insert-run.ts';

/** Which runs to list, and from where. */
export interface ListRunsQuery {
  project: string;
  /** Omit to list the whole project. */
  workspace?: string;
  /** Page size, clamped to 1..MAX_LIST_LIMIT. */
  limit: number;
  /** The `continue` token of the previous page. */
  continue?: string;
}

/** A page of runs, newest first; `continue` is present when more may follow. */
export interface RunPage {
  items: Run[];
  continue?: string;
}

export const MAX_LIST_LIMIT = 500;

/** Where a run and its log stand: `lastSeq` is the seq of its last log line (0 for none). */
export interface RunLogProgress {
  phase: RunPhase;
  message: string;
  /** The controller's status message (the user's `message` stays as given). */
  statusMessage: string;
  lastSeq: number;
  /** When RUN_LOG_RETENTION removed the run's log; null while it is kept. */
  logRemovedAt: string | null;
}

/** The phases the controller's work queue can be listed by. */
export type UnfinishedPhase = Extract<RunPhase, 'Pending' | 'Running'>;
export const UNFINISHED_PHASES: readonly UnfinishedPhase[] = ['Pending', 'Running'];

/**
 * The run records in PostgreSQL: a user's runs (create, get, list, cancel) and the controller's work
 * queue. Every method is one statement, so a failure leaves nothing half-written; a server that
 * cannot be reached surfaces as `DatabaseUnavailableError`. Leases, plan approvals and logs are
 * services of their own (shared/domain/runs/leases, records/plan-approvals.ts, shared/domain/runs/logs).
 */
export class RunRecords {
  readonly #database: Database;
  readonly #pageTokens: PageTokens;

  /** `pageTokens` sign the lists' `continue` tokens: a server's are keyed from the signing key every replica shares. */
  constructor(database: Database, pageTokens: PageTokens = PROCESS_PAGE_TOKENS) {
    this.#database = database;
    this.#pageTokens = pageTokens;
  }

  /** Records a new `Pending` run with a fresh UUIDv7 id. `signal`: the request's deadline (Database.query), here and below. */
  createRun(input: NewRun & Pick<RunToInsert, 'tasks'>, signal?: AbortSignal): Promise<Run> {
    return insertRun((text, values) => this.#query(text, values, signal), input);
  }

  /** The run `id` of `project`; throws `RunNotFoundError` when there is none. */
  async getRun(project: string, id: string, signal?: AbortSignal): Promise<Run> {
    if (!isUuid(id)) throw new RunNotFoundError(id);
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND project = $2`,
      [id, project],
      signal,
    );
    if (!rows[0]) throw new RunNotFoundError(id);
    return toRun(rows[0]);
  }

  /** A page of a project's (or one workspace's) runs, newest first, by keyset on `(created_at, id)`. */
  async listRuns(query: ListRunsQuery, signal?: AbortSignal): Promise<RunPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit) || 1, 1), MAX_LIST_LIMIT);
    const values: unknown[] = [query.project];
    const conditions = ['project = $1'];
    const scope: RunListScope = ['runs', query.project, query.workspace ?? null];
    if (query.workspace !== undefined) {
      values.push(query.workspace);
      conditions.push(`workspace = $${values.length}`);
    }
    if (query.continue !== undefined) {
      const after = decodeContinueToken(this.#pageTokens, scope, query.continue);
      values.push(after.createdAt, after.id);
      conditions.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
    }
    // One row more than asked tells whether another page exists without a second query.
    values.push(limit + 1);
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE ${conditions.join(' AND ')}
       ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
      signal,
    );
    return this.#pageOf(rows, limit, scope);
  }

  /**
   * A page of the runs in an unfinished phase across every Project, oldest first (the controller's
   * work queue), by keyset on `(created_at, id)` over a partial index.
   */
  async listUnfinishedRuns(query: { phase: UnfinishedPhase; limit: number; continue?: string }): Promise<RunPage> {
    const limit = Math.min(Math.max(Math.trunc(query.limit) || 1, 1), MAX_LIST_LIMIT);
    const values: unknown[] = [query.phase];
    const scope: RunListScope = ['unfinished-runs', query.phase];
    let after = '';
    if (query.continue !== undefined) {
      const position = decodeContinueToken(this.#pageTokens, scope, query.continue);
      values.push(position.createdAt, position.id);
      after = 'AND (created_at, id) > ($2::timestamptz, $3::uuid)';
    }
    values.push(limit + 1);
    // The phase list repeats the partial index's predicate so the planner can use it.
    const { rows } = await this.#query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE phase = $1 AND phase IN ('Pending', 'Running') ${after}
       ORDER BY created_at, id LIMIT $${values.length}`,
      values,
    );
    return this.#pageOf(rows, limit, scope);
  }

  /**
   * A user's cancellation of run `id` of `project`, recorded with `principal`: a Pending run is
   * Cancelled at once; a Running one is marked, and its controller acknowledges at its next renewal.
   * Cancelling a Cancelled run again answers it unchanged; a Succeeded or Failed one is 409.
   */
  async requestCancel(project: string, id: string, principal: string, signal?: AbortSignal): Promise<Run> {
    if (!isUuid(id)) throw new RunNotFoundError(id);
    const cancelledAtOnce = phasesFrom('Cancelled', 'user');
    // The phase check is part of the UPDATE, so a claim racing with the cancellation cannot both win.
    const { rows } = await this.#query<RunRow>(
      `UPDATE runs SET
         phase = CASE WHEN phase = ANY($4::text[]) THEN 'Cancelled' ELSE phase END,
         finished_at = CASE WHEN phase = ANY($4::text[]) THEN date_trunc('milliseconds', now()) ELSE finished_at END,
         cancel_requested_at = coalesce(cancel_requested_at, date_trunc('milliseconds', now())),
         cancel_requested_by = coalesce(cancel_requested_by, $3)
       WHERE id = $1 AND project = $2 AND phase = ANY($5::text[])
       RETURNING ${RUN_COLUMNS}`,
      [id, project, principal, cancelledAtOnce, [...cancelledAtOnce, ...phasesFrom('Running', 'user')]],
      signal,
    );
    if (rows[0]) return toRun(rows[0]);
    const current = await this.getRun(project, id, signal);
    if (current.phase === 'Cancelled') return current;
    throw new InvalidPhaseTransitionError(id, current.phase, 'Cancelled' satisfies RunPhase);
  }

  /** Run `id`'s phase and message with the seq of its last log line; throws `RunNotFoundError` when there is none. */
  async getLogProgress(id: string): Promise<RunLogProgress> {
    if (!isUuid(id)) throw new RunNotFoundError(id);
    const { rows } = await this.#query<{
      phase: RunPhase;
      message: string;
      status_message: string;
      last_log_seq: string;
      log_removed_at: Date | null;
    }>('SELECT phase, message, status_message, last_log_seq, log_removed_at FROM runs WHERE id = $1', [id]);
    if (!rows[0]) throw new RunNotFoundError(id);
    return {
      phase: rows[0].phase,
      message: rows[0].message,
      statusMessage: rows[0].status_message,
      lastSeq: Number(rows[0].last_log_seq),
      logRemovedAt: rows[0].log_removed_at?.toISOString() ?? null,
    };
  }

  /**
   * The work queue at a glance, for the metrics: how many runs are Pending and how long the oldest has
   * waited. One aggregate over the partial index of unfinished runs, so a scrape costs little however
   * long the history grows.
   */
  async pendingQueue(): Promise<{ depth: number; oldestAgeSeconds: number }> {
    const { rows } = await this.#query<{ depth: number; oldest_age_seconds: number | null }>(
      `SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest_age_seconds
       FROM runs WHERE phase = 'Pending'`,
      [],
    );
    const row = rows[0];
    return { depth: row?.depth ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age_seconds ?? 0) };
  }

  #query<Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    signal?: AbortSignal,
  ): Promise<pg.QueryResult<Row>> {
    return this.#database.query<Row>(text, values, signal ? { signal } : {});
  }

  /** The first `limit` rows as a page, with a continue token for `scope` when the query found one row more. */
  #pageOf(rows: RunRow[], limit: number, scope: RunListScope): RunPage {
    const items = rows.slice(0, limit).map(toRun);
    const last = items[items.length - 1];
    return rows.length > limit && last
      ? { items, continue: encodeContinueToken(this.#pageTokens, scope, { createdAt: last.createdAt, id: last.id }) }
      : { items };
  }
}
