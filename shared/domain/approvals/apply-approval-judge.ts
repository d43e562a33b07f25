import { apiError } from '../../base/http/error-catalogue.ts';
import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import type { PlanApprovalRecord } from '../../contract/rules/run-record.ts';
import {
  approvalsStillNeeded,
  type ApprovalRequirement,
  type ApprovalsStillNeeded,
} from '../../contract/rules/rollout-stage.ts';
import {
  APPROVER_ANNOTATION,
  AUTHOR_ANNOTATION,
  WITHDRAWN_APPROVERS_ANNOTATION,
  noteForAudit,
} from '../audit/audit-annotations.ts';
import { type ApprovalCaller, approverName } from './approval-caller.ts';
import { policyApplyGate } from './approval-policy.ts';
import { passTimeGates, type OverrideRecord, type OverrideRequest } from './time-gate-enforcement.ts';
import { timeGatesOf } from './time-gates.ts';

// The judge of a Workspace's applies (issue 37, issue 45; docs/resources.md "Approvals"), from one read of the
// Project that owns it: an apply started directly, and a plan approved for apply. The run routes only call it.

/** The Workspace of an apply: its Project's name and its own. */
export interface ApplyTarget {
  project: string;
  workspace: string;
}

/**
 * An apply started directly (without a plan), where the Workspace itself allows it: refused unless the Project's
 * windows and freeze allow it now (or `override`, authorized beforehand, acts anyway), and refused with 409
 * `ApplyNeedsPlan` where the Project's policy gates the Workspace's applies, whatever the Workspace says.
 */
export function judgeDirectApply(
  caller: ApprovalCaller,
  project: PlatformObject | undefined,
  { project: projectName, workspace }: ApplyTarget,
  override: OverrideRequest | undefined,
): OverrideRecord | undefined {
  const overridden = passTimeGates(caller, timeGatesOf(project), { apply: workspace }, override);
  if (policyApplyGate(project, workspace))
    throw apiError(
      'ApplyNeedsPlan',
      `project "${projectName}" gates the applies of workspace "${workspace}" (spec.approvalPolicy.applies): start a plan run, then approve that plan for apply`,
    );
  return overridden;
}

/** A succeeded plan run as approving it for apply reads it: which Workspace, and who started it. */
export interface PlanToApprove extends ApplyTarget {
  id: string;
  principal: string;
}

/**
 * Approving `plan` for apply: the Project's windows and freeze must allow it now (or `override` acts anyway), and
 * where its policy asks four eyes of the Workspace's applies, the approver may not be who started the plan
 * (409 `ApproverIsAuthor`), the admin included. Both principals are noted for the audit trail, on a refusal too.
 * What the plan was planned for and whether it is stale are judged with its record (PlanApprovals).
 */
export function judgePlanApproval(
  caller: ApprovalCaller,
  project: PlatformObject | undefined,
  plan: PlanToApprove,
  override: OverrideRequest | undefined,
): OverrideRecord | undefined {
  const approver = approverName(caller.principal);
  const overridden = passTimeGates(caller, timeGatesOf(project), { apply: plan.workspace }, override);
  noteForAudit(caller, APPROVER_ANNOTATION, approver);
  noteForAudit(caller, AUTHOR_ANNOTATION, plan.principal);
  if (policyApplyGate(project, plan.workspace)?.distinctFromAuthor && approver === plan.principal)
    throw apiError(
      'ApproverIsAuthor',
      `${approver} started plan run ${plan.id} and may not approve it for apply: project "${plan.project}" asks another approver (spec.approvalPolicy.applies[].approvals.distinctFromAuthor)`,
    );
  return overridden;
}

/** What a Workspace's applies need where the Project's policy asks nothing of them: one approval, from anybody. */
export const ONE_APPROVAL: ApprovalRequirement = { count: 1, groups: [], distinctFromAuthor: false };

/** What the Project's policy asks of `workspace`'s applies (issue 45, item 2): its `applies[]` entry, or one approval. */
export function applyRequirement(project: PlatformObject | undefined, workspace: string): ApprovalRequirement {
  return policyApplyGate(project, workspace) ?? ONE_APPROVAL;
}

/**
 * Who still has to approve `plan` for apply, from its approvals: the stages' rule (approvalsStillNeeded), one rule
 * for both, each approval read as a record of the plan's "revision", its id, whose author is who started the plan.
 */
export function planStillNeeds(
  requirement: ApprovalRequirement,
  approvals: readonly PlanApprovalRecord[],
  plan: { id: string; principal: string },
): ApprovalsStillNeeded {
  return approvalsStillNeeded(
    requirement,
    approvals.map((approval) => ({ ...approval, revision: plan.id })),
    plan.id,
    plan.principal,
  );
}

/**
 * Withdrawing `approver`'s approval of `plan` (the withdraw route, authorized as `approve`): both principals are
 * noted for the audit trail, the caller (the event's user) and the approver whose approval goes, with the plan's
 * author. Whether there is such an approval, and whether its apply started, is the record's to say.
 */
export function judgePlanWithdrawal(caller: ApprovalCaller, plan: PlanToApprove, approver: string): void {
  noteForAudit(caller, WITHDRAWN_APPROVERS_ANNOTATION, approver);
  noteForAudit(caller, AUTHOR_ANNOTATION, plan.principal);
}
