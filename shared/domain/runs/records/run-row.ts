import type { PrincipalType, Run, RunLogLine, RunOverride, RunPhase, RunType } from '../run.ts';

/** A `runs` row as `RUN_COLUMNS` selects it. */
export interface RunRow {
  id: string;
  project: string;
  workspace: string;
  type: RunType;
  phase: RunPhase;
  principal: string;
  principal_type: PrincipalType;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  log_removed_at: Date | null;
  message: string;
  status_message: string;
  attempts: number;
  controller: string | null;
  cancel_requested_at: Date | null;
  cancel_requested_by: string | null;
  plan_run: string | null;
  override: RunOverride | null;
  plan_has_changes: boolean | null;
}

/** The columns of a `Run`; the lease itself is never among them. */
export const RUN_COLUMNS =
  'id, project, workspace, type, phase, principal, principal_type, created_at, started_at, finished_at, log_removed_at, message, status_message, attempts, controller, cancel_requested_at, cancel_requested_by, plan_run, override, plan_has_changes';

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    project: row.project,
    workspace: row.workspace,
    type: row.type,
    phase: row.phase,
    principal: row.principal,
    principalType: row.principal_type,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    logRemovedAt: row.log_removed_at?.toISOString() ?? null,
    message: row.message,
    statusMessage: row.status_message,
    attempts: row.attempts,
    controller: row.controller,
    cancelRequestedAt: row.cancel_requested_at?.toISOString() ?? null,
    cancelRequestedBy: row.cancel_requested_by,
    planRun: row.plan_run,
    ...(row.override ? { override: row.override } : {}),
    planHasChanges: row.plan_has_changes,
  };
}

export function toLogLine(row: { seq: string; line: string }): RunLogLine {
  return { seq: Number(row.seq), line: row.line };
}
