/** What a run does to its Workspace. */
export type RunType = 'plan' | 'apply';

/** Where a run is in its lifecycle. */
export type RunPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';

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
  message: string;
}

/** What the caller supplies to record a new run; it starts `Pending`. */
export interface NewRun {
  project: string;
  workspace: string;
  type: RunType;
  principal: string;
  principalType: PrincipalType;
  message?: string;
}

/** One line of a run's log; `seq` counts from 1 within the run. */
export interface RunLogLine {
  seq: number;
  line: string;
}

export const RUN_TYPES: readonly RunType[] = ['plan', 'apply'];
export const PRINCIPAL_TYPES: readonly PrincipalType[] = ['admin', 'oidc', 'serviceaccount'];

/** For each target phase, the phases a run may move to it from. */
export const LEGAL_PREVIOUS_PHASES: Readonly<Record<RunPhase, readonly RunPhase[]>> = {
  Pending: [],
  Running: ['Pending'],
  Succeeded: ['Running'],
  Failed: ['Running'],
  Cancelled: ['Pending', 'Running'],
};

/** Phases after which nothing changes any more. */
export const FINAL_PHASES: readonly RunPhase[] = ['Succeeded', 'Failed', 'Cancelled'];

