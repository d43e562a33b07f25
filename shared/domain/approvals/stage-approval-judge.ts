import { ApiError } from '../../base/http/api-error.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import {
  APPROVED_REVISION_ANNOTATION,
  APPROVED_STAGES_ANNOTATION,
  APPROVER_ANNOTATION,
  AUTHOR_ANNOTATION,
  WITHDRAWN_APPROVALS_ANNOTATION,
  WITHDRAWN_APPROVERS_ANNOTATION,
  noteForAudit,
} from '../audit/audit-annotations.ts';
import { DECISION_ANNOTATION, REASON_ANNOTATION } from '../audit/audit-event.ts';
import { type ApprovalCaller, approverName } from './approval-caller.ts';
import { policyStageGates, withPolicyGates, type PolicyGate } from './approval-policy.ts';
import { stageApprovalRecords } from '../../contract/rules/rollout-stage.ts';
import {
  approvalChanges,
  recordedRevisionAuthor,
  revisionOf,
  stageGates,
  statusWithoutApproval,
  withStagesApproved,
  type ApprovalChanges,
} from './stage-approvals.ts';
import { passTimeGates, type OverrideRecord, type OverrideRequest } from './time-gate-enforcement.ts';
import { timeGatesOf, type TimeGatePolicy } from './time-gates.ts';

// The judge of a Rollout's stage approvals (issue 37, issue 45; docs/resources.md "Approvals"), for every write
// path alike: a write's result is judged against the stored object and the Project's approval policy. The
// Rollout's writes only call it.

/**
 * What the Project says of one Rollout's approvals (issue 45), from one read of it: its stage gates
 * (`spec.approvalPolicy.stages`), its time gates (windows, freeze, soak time), and the caller's override of the
 * latter if any.
 */
export interface StageApprovalGates {
  stages: ReadonlyMap<string, PolicyGate>;
  policy: TimeGatePolicy;
  override?: OverrideRequest;
}

/** The gates `project` (read once) sets for Rollout `rollout`; none without a Project. */
export function stageApprovalGates(project: PlatformObject | undefined, rollout: string): StageApprovalGates {
  return { stages: policyStageGates(project, rollout), policy: timeGatesOf(project) };
}

/** A write's result as judged: the object to send (approvals that outlived their revision withdrawn) and what it changes. */
export interface JudgedApprovals {
  result: PlatformObject;
  changes: ApprovalChanges;
  /** Stages the Project's approval policy made stricter than the write asked (issue 45). */
  tightened: string[];
  /** The override of the Project's time gates that let the write's approvals through, for their records. */
  override?: OverrideRecord;
}

/**
 * Refuses the write (throws; nothing is sent) unless its approvals may be changed by `caller`, and notes why for
 * the audit trail with both principals. The result is first made as strict as the Project's policy: the gate it
 * asks holds whatever the write, and the stored object is judged the same way (a Rollout written before the
 * policy). A result that grants a stage's approval (or loosens a stage's gate) needs `approve` on the Rollout,
 * which the chain decided with the write's own verb; under four eyes the approver may not be the revision's
 * author (409 `ApproverIsAuthor`), the admin included; the Project's windows, freeze and soak times must allow it.
 */
export function judgeStageApprovals(
  caller: ApprovalCaller,
  stored: PlatformObject | undefined,
  written: PlatformObject,
  gates: StageApprovalGates,
): JudgedApprovals {
  const callerName = approverName(caller.principal);
  const { result, tightened } = withPolicyGates(written, gates.stages);
  const changes = approvalChanges(stored && withPolicyGates(stored, gates.stages).result, result);
  const author = changes.authorsRevision ? callerName : stored && recordedRevisionAuthor(stored);
  if (changes.granted.length > 0) {
    // Both principals, on a refused approval too.
    noteForAudit(caller, APPROVER_ANNOTATION, callerName);
    noteForAudit(caller, AUTHOR_ANNOTATION, author ?? '');
  }
  if (changes.granted.length > 0 || changes.loosened.length > 0) requireApprove(caller);
  if (changes.fourEyes.length > 0) {
    const stages = changes.fourEyes.join(', ');
    if (author === undefined)
      throw apiError(
        'RevisionAuthorUnknown',
        `stage ${stages} needs an approver other than the author of revision "${revisionOf(result)}", and no author is recorded for it (status.revisionAuthor); write spec.revision through the API to record one`,
      );
    if (author === callerName)
      throw apiError(
        'ApproverIsAuthor',
        `${callerName} changed revision "${revisionOf(result)}" and may not approve stage ${stages}, which needs another approver (approval.distinctFromAuthor)`,
      );
  }
  // Distinct approvers: one approval per approver and revision, whatever the write path.
  const again = changes.granted.filter((workspace) =>
    stageApprovalRecords(stored ?? {}, workspace).some(
      (record) => record.approvedBy === callerName && record.revision === revisionOf(result),
    ),
  );
  if (again.length > 0)
    throw apiError(
      'AlreadyApproved',
      `${callerName} has already approved stage ${again.join(', ')} of rollout "${result.metadata.name}" for revision "${revisionOf(result)}"; it needs another approver`,
    );
  // Windows, the freeze and soak times: checked once the approval is otherwise allowed.
  const override =
    changes.granted.length > 0
      ? passTimeGates(caller, gates.policy, { rollout: result.metadata.name! }, gates.override, {
          rollout: stored ?? result,
          stages: changes.granted,
        })
      : undefined;
  if (changes.granted.length > 0) {
    noteForAudit(caller, APPROVED_STAGES_ANNOTATION, changes.granted.join(','));
    noteForAudit(caller, APPROVED_REVISION_ANNOTATION, revisionOf(result) ?? '');
  }
  if (changes.withdrawn.length > 0) {
    noteForAudit(caller, WITHDRAWN_APPROVALS_ANNOTATION, changes.withdrawn.join(','));
    // Both principals of a withdrawal: the caller (the event's user) and each approver whose approval went.
    const approvers = changes.withdrawn.flatMap((workspace) =>
      stageApprovalRecords(stored ?? {}, workspace)
        .filter((record) => record.revision === revisionOf(stored))
        .map((record) => record.approvedBy),
    );
    noteForAudit(caller, WITHDRAWN_APPROVERS_ANNOTATION, [...new Set(approvers)].join(','));
    noteForAudit(caller, AUTHOR_ANNOTATION, author ?? '');
  }
  return {
    result: withStagesApproved(result, changes.outlived, false),
    changes,
    tightened,
    ...(override ? { override } : {}),
  };
}

/**
 * The status of `current` without `approver`'s approval of `stage` (the withdraw route, authorized as `approve`):
 * the gate closes when the records left no longer meet the policy. 404 `StageNotFound`, or `ApprovalNotFound` when
 * the approver has no approval of it for the current revision. Both principals are noted for the audit trail: the
 * caller (the event's user) and the approver whose approval is withdrawn (`platform-api/withdrawn-approvers`), with
 * the revision's author.
 */
export function judgeWithdrawal(
  caller: ApprovalCaller,
  current: PlatformObject,
  stage: string,
  approver: string,
  gates: StageApprovalGates,
): Record<string, unknown> {
  const rollout = current.metadata.name!;
  if (!stageGates(current).has(stage))
    throw apiError('StageNotFound', `rollout "${rollout}" has no stage for workspace "${stage}"`);
  noteForAudit(caller, WITHDRAWN_APPROVERS_ANNOTATION, approver);
  noteForAudit(caller, AUTHOR_ANNOTATION, recordedRevisionAuthor(current) ?? '');
  const status = statusWithoutApproval(current, stage, approver, gates.stages);
  if (status === undefined)
    throw apiError(
      'ApprovalNotFound',
      `${approver} has no approval of stage "${stage}" of rollout "${rollout}" for revision "${revisionOf(current)}" to withdraw`,
    );
  noteForAudit(caller, WITHDRAWN_APPROVALS_ANNOTATION, stage);
  return status;
}

/** `approve` on the Rollout, which the chain decided with the write's own verb: 403 naming it otherwise, noted. */
function requireApprove(caller: ApprovalCaller): void {
  try {
    caller.authorization.requireVerb('approve');
  } catch (error) {
    if (error instanceof ApiError) {
      // The chain allowed the write's verb; the write as a whole is refused for want of `approve`.
      noteForAudit(caller, DECISION_ANNOTATION, 'forbid');
      noteForAudit(caller, REASON_ANNOTATION, error.message);
    }
    throw error;
  }
}

/**
 * The approve route's request as a write: `current` (as strict as the policy) with `stage` approved; 404 when it
 * has no such stage, 409 when it needs no approval or has it.
 */
export function withStageApproved(current: PlatformObject, stage: string, gates: StageApprovalGates): PlatformObject {
  const rollout = current.metadata.name!;
  const strict = withPolicyGates(current, gates.stages).result;
  const gate = stageGates(strict).get(stage);
  if (!gate) throw apiError('StageNotFound', `rollout "${rollout}" has no stage for workspace "${stage}"`);
  if (!gate.required)
    throw apiError('ApprovalNotRequired', `stage "${stage}" of rollout "${rollout}" does not require approval`);
  if (gate.approved)
    throw apiError(
      'AlreadyApproved',
      `stage "${stage}" of rollout "${rollout}" is already approved for revision "${revisionOf(current)}"`,
    );
  return withStagesApproved(strict, [stage], true);
}

/** The `Warning`s a judged write answers with: gates tightened by the policy, approvals outlived by a new revision. */
export function approvalWarnings({ changes, tightened }: JudgedApprovals): string[] {
  return [
    ...(tightened.length > 0
      ? [
          `299 - "the Project's approval policy gates stage ${tightened.join(', ')}: its approval fields were written as the policy asks"`,
        ]
      : []),
    ...(changes.outlived.length > 0
      ? [
          `299 - "spec.revision changed: the approval of stage ${changes.outlived.join(', ')} was withdrawn; approve the new revision"`,
        ]
      : []),
  ];
}
