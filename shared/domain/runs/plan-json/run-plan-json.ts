import type { Database } from '../../../base/database/database.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import {
  HELD,
  STATE_COLUMNS,
  checkLeaseIds,
  holderKey,
  leaseFailure,
  type LeaseHolder,
  type LeaseState,
} from '../leases/lease-checks.ts';
import { isUuid } from '../records/run-id.ts';
import type { Run } from '../run.ts';

/**
 * Stores the document in the statement that checks the lease, so a lease that lapses (or a run that ends) between
 * a check and the write cannot let a former holder write: a retry of the same upload replaces the row.
 */
const STORE = `
  INSERT INTO run_plan_json (run_id, document)
  SELECT id, $4 FROM runs WHERE id = $1 AND type = 'plan' AND ${HELD}
  ON CONFLICT (run_id) DO UPDATE SET document = excluded.document, uploaded_at = excluded.uploaded_at
  RETURNING run_id`;

/**
 * The plan's JSON of plan runs (issue 48, item 2; docs/run-tasks.md): what the controller holding a plan run's
 * lease uploads (`terraform show -json`), kept as the bytes it sent, and read by the run's tasks and its readers.
 */
export class RunPlanJson {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * Keeps `document` as the plan's JSON of run `runId`, for the holder of its lease `leaseId`: 409 `NotAPlanRun`
   * for an apply run, `LeaseNotHeld` when the lease is not the holder's current one, 404 for no such run.
   */
  async store(runId: string, leaseId: string, holder: LeaseHolder, document: string): Promise<void> {
    checkLeaseIds(runId, leaseId);
    const { rows } = await this.#database.query(STORE, [runId, leaseId, holderKey(holder), document]);
    if (rows[0]) return;
    const { rows: states } = await this.#database.query<LeaseState & { type: Run['type'] }>(
      `SELECT type, ${STATE_COLUMNS} FROM runs WHERE id = $1`,
      [runId],
    );
    const state = states[0];
    if (state?.type === 'apply')
      throw apiError('NotAPlanRun', `run ${runId} is an apply run: only a plan run has a plan's JSON`);
    throw leaseFailure(runId, leaseId, holder, state);
  }

  /** The plan's JSON of run `runId` as it was uploaded; undefined when none was (or it was removed). */
  async read(runId: string): Promise<string | undefined> {
    if (!isUuid(runId)) return undefined;
    const { rows } = await this.#database.query<{ document: string }>(
      'SELECT document FROM run_plan_json WHERE run_id = $1',
      [runId],
    );
    return rows[0]?.document;
  }

  /** Whether run `runId` has a plan's JSON now (a task's request links to it only then). */
  async has(runId: string): Promise<boolean> {
    if (!isUuid(runId)) return false;
    const { rows } = await this.#database.query('SELECT 1 FROM run_plan_json WHERE run_id = $1', [runId]);
    return rows.length > 0;
  }
}

/**
 * The plan run whose JSON a task of `run` judges: a plan run's own; an apply run's, the plan it was approved from
 * (`planRun`; none for an apply started without a plan).
 */
export function judgedPlanRun(run: Pick<Run, 'id' | 'type' | 'planRun'>): string | null {
  return run.type === 'plan' ? run.id : run.planRun;
}
