// A run record as the run routes answer it (docs/resources.md, "Runs"), declared once: the server
// records and answers it, and the plugin and the console read it (browser-safe: issue 43, item 7).

import type { ApprovalRequirement, ApprovalsStillNeeded } from './rollout-stage.ts';

/** What a run does to its Workspace. */
export type RunType = 'plan' | 'apply';

/** Where a run is in its lifecycle; `AwaitingTasks`: its run tasks have not all answered yet (issue 48). */
export type RunPhase = 'AwaitingTasks' | 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled';

/** The kind of principal that started a run. */
export type PrincipalType = 'admin' | 'oidc' | 'serviceaccount';

/** Phases after which nothing changes any more. */
export const FINAL_PHASES: readonly RunPhase[] = ['Succeeded', 'Failed', 'Cancelled'];

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
  /** A succeeded plan: whether it proposes changes (false: nothing to apply); null when the controller did not say, and for applies. */
  planHasChanges: boolean | null;
  /** The override of the Project's windows or freeze that let this apply run through (issue 45); absent otherwise. */
  override?: RunOverride;
}

/** Who overrode the Project's approval windows or freeze for an apply run, why, and which refusal it overrode. */
export interface RunOverride {
  /** The principal with the `override` verb who started or approved the apply. */
  by: string;
  /** The reason the caller gave. */
  reason: string;
  /** The refusal overridden: `ProjectFrozen` or `OutsideApprovalWindow`. */
  overrode: string;
}

/** The run that supersedes a plan: the newest run of its Workspace recorded after it. */
export interface SupersedingRun {
  id: string;
  type: RunType;
}

/** Whether a succeeded plan run may still be approved for apply, as the run answer states it (issue 44, item 15). */
export interface PlanApprovalState {
  /** Neither superseded nor past `applyableUntil`, when the answer was made. */
  applyable: boolean;
  /** When it finished plus PLAN_APPROVAL_MAX_AGE (RFC 3339): later, it is stale. */
  applyableUntil: string;
  /** The newest run of its Workspace recorded after it; null while the plan is the newest. */
  supersededBy: SupersedingRun | null;
  /**
   * What else holds the plan back now, by the catalogue reason its approval would be refused with (issue 48: its
   * `post_plan` run tasks still running, `RunTasksPending`, or a mandatory one failed, `RunTaskFailed`); null when
   * nothing else does. `applyable` is false whenever this is set. (The four fields below are absent in answers of
   * servers from before issues 45 item 2 and 48; clients read them as optional.)
   */
  blockedBy?: PlanApprovalBlock | null;
  /** The approvals of this plan for apply so far, each approver once (issue 45, item 2). */
  approvals?: PlanApprovalRecord[];
  /** What the Project's policy asks of the Workspace's applies: one approval from anybody where it asks nothing more. */
  requirement?: ApprovalRequirement;
  /** Who still has to approve before the apply run starts (the approval that meets it starts it). */
  stillNeeded?: ApprovalsStillNeeded;
}

/** Why a plan may not be approved for apply, besides staleness (PlanApprovalState.blockedBy). */
export interface PlanApprovalBlock {
  /** The catalogue reason approving it would be refused with (docs/errors.md). */
  reason: string;
  /** The sentence that refusal would carry, naming what holds it back. */
  message: string;
}

/** One approval of a plan for apply, as the server records it (one row per approver, issue 45 item 2). */
export interface PlanApprovalRecord {
  approvedBy: string;
  /** RFC 3339. */
  approvedAt: string;
  /** The approver's groups when it approved (OIDC groups with their prefix, or the ServiceAccount's). */
  groups: string[];
}

/** A run as the run history routes answer it: with, for a succeeded plan, whether it may still be applied. */
export type RunAnswer = Run & { planApproval: PlanApprovalState | null };

/**
 * A run answer as a client reads it: a server from before the approvals (issue 37) answers without
 * `planRun`, one from before issue 44, item 15 without `planApproval`.
 */
export type RunAsRead = Omit<RunAnswer, 'planRun' | 'planApproval' | 'planHasChanges'> &
  Partial<Pick<RunAnswer, 'planRun' | 'planApproval' | 'planHasChanges'>>;
