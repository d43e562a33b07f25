import type { PrincipalType, RunOverride, RunType } from '../../contract/rules/run-record.ts';
import type { PlanBinding } from '../approvals/plan-binding.ts';

// The run record's shape is the contract's (browser-safe: the plugin and the console read it too).
export {
  FINAL_PHASES,
  type PrincipalType,
  type Run,
  type RunPhase,
  type RunOverride,
  type RunType,
} from '../../contract/rules/run-record.ts';

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
  /** An apply's override of the Project's windows or freeze (issue 45). */
  override?: RunOverride;
}

/** One line of a run's log; `seq` counts from 1 within the run. */
export interface RunLogLine {
  seq: number;
  line: string;
}

export const RUN_TYPES: readonly RunType[] = ['plan', 'apply'];
export const PRINCIPAL_TYPES: readonly PrincipalType[] = ['admin', 'oidc', 'serviceaccount'];
