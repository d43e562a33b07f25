import type { PlanBinding } from '../approvals/plan-binding.ts';

/** What a run does to its Workspace. */
export type RunType = 'plan' | 'apply';

/** Where a run is in its lifecycle; `AwaitingTasks`: its run tasks have not all answered yet (issue 48). */
export type RunPhase = 'AwaitingTasks' | 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';

/** The kind of principal that started a run. */
export type PrincipalType = 'admin' | 'oidc' | 'serviceaccount';

/** A recorded plan or apply run of a Workspace. */
export interface Run {
  /** UUIDv7: time-ordered. */
  id: string;
  project: string;
  workspace: string;
  type: RunType;
  phase: RunPhase;
  /** `admin`, an OIDC username, or `system:serviceaccount:<namespace>:<name>`. */
  principal: string;
  principalType: PrincipalType;
  /** ISO 8601 with millisecond precision. */
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** When RUN_LOG_RETENTION removed the run's log (the run record stays); null while it is kept. */
  logRemovedAt: string | null;
  /** The user's message from the start of the run; nothing else changes it. */
  message: string;
  /** What the controller (or a lapsed lease) last said about the run. */
  statusMessage: string;
  /** How many times a controller claimed the run. */
  attempts: number;
  /** The principal (a ServiceAccount) of the controller that claimed the run last; null before any claim. */
  controller: string | null;
  /** When a user asked to cancel the run, and who; null when nobody did. */
  cancelRequestedAt: string | null;
  cancelRequestedBy: string | null;
  /** The succeeded plan run whose approval started this apply run (issue 37); null for every other run. */
  planRun: string | null;
}

/** What the caller supplies to record a new run; it starts `Pending`. */
export interface NewRun {
  project: string;
  workspace: string;
  type: RunType;
  principal: string;
  principalType: PrincipalType;
  message?: string;
  /** A plan's Workspace as it was planned for (issue 45): what approving it for apply compares with. */
  plannedFor?: PlanBinding;
}

/** One line of a run's log; `seq` counts from 1 within the run. */
export interface RunLogLine {
  seq: number;
  line: string;
}

export const RUN_TYPES: readonly RunType[] = ['plan', 'apply'];
export const PRINCIPAL_TYPES: readonly PrincipalType[] = ['admin', 'oidc', 'serviceaccount'];

/** Phases after which nothing changes any more. */
export const FINAL_PHASES: readonly RunPhase[] = ['Succeeded', 'Failed', 'Cancelled'];
