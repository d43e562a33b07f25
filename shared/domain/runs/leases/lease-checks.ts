import type { Database } from '../../../base/database/database.ts';
import { FINAL_PHASES, type PrincipalType, type RunPhase } from '../run.ts';
import { LeaseNotHeldError, RunNotFoundError } from '../run-errors.ts';
import { isUuid } from '../records/run-id.ts';

/** The principal that claims a lease, as runs record principals (`runPrincipal`); only it may use the lease. */
export interface LeaseHolder {
  principal: string;
  principalType: PrincipalType;
}

/** Where a run's lease and log stand, as the checks below read them. */
export interface LeaseState {
  phase: RunPhase;
  lease_id: string | null;
  lease_holder: string | null;
  live: boolean;
  last_log_seq: string;
  cancel_requested_at: Date | null;
}

export const STATE_COLUMNS =
  'phase, lease_id, lease_holder, coalesce(lease_expires_at > now(), false) AS live, last_log_seq, cancel_requested_at';
// The statements compare lease expiry with the database's clock only, so controllers' clocks never matter.
// The lease id is $2 and its holder's key $3 in every statement that checks the lease.
export const HELD = `lease_id = $2 AND lease_holder = $3 AND lease_expires_at > now() AND phase = 'Running'`;

/** Refuses ids that cannot be a run's or a lease's before any statement. */
export function checkLeaseIds(runId: string, leaseId: string): void {
  if (!isUuid(runId)) throw new RunNotFoundError(runId);
  if (!isUuid(leaseId)) throw new LeaseNotHeldError(runId, 'the lease id is not one this service issued');
}

/** The run's lease state; undefined when there is no such run. */
export async function readLeaseState(database: Database, runId: string): Promise<LeaseState | undefined> {
  const { rows } = await database.query<LeaseState>(`SELECT ${STATE_COLUMNS} FROM runs WHERE id = $1`, [runId]);
  return rows[0];
}

/** The key a lease's holder is stored under: the type keeps an OIDC user named `admin` apart from the admin. */
export function holderKey(holder: LeaseHolder): string {
  return `${holder.principalType}:${holder.principal}`;
}

/** Whether `leaseId` is the run's (current or last) lease and `holder` claimed it. */
export function isLease(state: LeaseState, leaseId: string, holder: LeaseHolder): boolean {
  return state.lease_id === leaseId && state.lease_holder === holderKey(holder);
}

export function isHeld(state: LeaseState | undefined, leaseId: string, holder: LeaseHolder): state is LeaseState {
  return state !== undefined && isLease(state, leaseId, holder) && state.live && state.phase === 'Running';
}

/**
 * Why `leaseId` does not hold the run for `holder`: it is gone, finished, lapsed, or not theirs. Another
 * principal presenting the run's lease id is answered exactly as for an id that was never issued: it
 * learns nothing of the lease.
 */
export function leaseFailure(
  runId: string,
  leaseId: string,
  holder: LeaseHolder,
  state: LeaseState | undefined,
): Error {
  if (!state) return new RunNotFoundError(runId);
  if (FINAL_PHASES.includes(state.phase)) return new LeaseNotHeldError(runId, `the run is ${state.phase}`);
  if (!isLease(state, leaseId, holder))
    return new LeaseNotHeldError(runId, 'another lease holds it, or it went back to the queue');
  return new LeaseNotHeldError(runId, 'the lease expired');
}
