// A Rollout stage's gate as every reader reads it (issue 43, item 7: one rule for the server, the plugin, the
// console and the development controller). Browser-safe: plain TypeScript, no node: import. The server writes the
// effective gate (the Project's approval policy joined with the Rollout's own fields, issue 45) into these fields,
// and records each approval in `status.stages[].approvals` in one status write (docs/resources.md "Approvals").

/** Most distinct approvers a stage or an apply may ask for (`approval.count`, the policy's `approvals.count`). */
export const MAX_APPROVERS = 10;
/** Most groups a stage or an apply may require approvers from (`approval.groups`). */
export const MAX_REQUIRED_GROUPS = 8;

/** The gate fields of a stage of a Rollout's `spec.stages[]`. */
export interface RolloutStageGate {
  workspace: string;
  /** Deprecated: `approval.required`. True here also requires approval. */
  requireApproval?: boolean;
  approval?: { required?: boolean; distinctFromAuthor?: boolean; count?: number; groups?: string[] };
  /** Presented by the API server from `status` (stageApproved); writing true approves, false withdraws. */
  approved?: boolean;
}

/** One approval of a stage, as the API server records it in `status.stages[].approvals[]` (never clients). */
export interface StageApprovalRecord {
  approvedBy: string;
  approvedAt: string;
  revision: string;
  /** The approver's groups when it approved (OIDC groups with their prefix, or the ServiceAccount's). */
  groups?: string[];
  /** An incident commander's override of the Project's windows, freeze or soak time (issue 45 item 3). */
  override?: { reason: string; overrode: string };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a stage waits for an approval: `approval.required`, four eyes (`approval.distinctFromAuthor`, which
 * implies it), more than one approver or a required group, or the deprecated `requireApproval`; read leniently
 * (what is malformed the cluster refuses).
 */
export function stageNeedsApproval(stage: unknown): boolean {
  if (!isObject(stage)) return false;
  const approval = isObject(stage.approval) ? stage.approval : {};
  return (
    stage.requireApproval === true ||
    approval.required === true ||
    approval.distinctFromAuthor === true ||
    (typeof approval.count === 'number' && approval.count > 1) ||
    (Array.isArray(approval.groups) && approval.groups.length > 0)
  );
}

/** What a stage's gate asks: how many distinct approvers, from which groups, and whether four eyes apply. */
export interface ApprovalRequirement {
  count: number;
  groups: string[];
  distinctFromAuthor: boolean;
}

/** The requirement of a stage's gate as written (`approval.count` 1 by default, `approval.groups` none). */
export function stageRequirement(stage: unknown): ApprovalRequirement {
  const approval = isObject(stage) && isObject(stage.approval) ? stage.approval : {};
  return {
    count: typeof approval.count === 'number' && approval.count > 1 ? Math.min(approval.count, MAX_APPROVERS) : 1,
    groups: Array.isArray(approval.groups)
      ? approval.groups.filter((group): group is string => typeof group === 'string')
      : [],
    distinctFromAuthor: approval.distinctFromAuthor === true,
  };
}

/** Who still has to approve: how many more distinct approvers, and from which groups none has approved yet. */
export interface ApprovalsStillNeeded {
  approvers: number;
  groups: string[];
}

/**
 * Who still has to approve a stage for `revision`, from its approval records: each distinct approver of that
 * revision counts once, except under four eyes the revision's author (and, with no author known, nobody: four
 * eyes cannot be shown); a required group is met by one approval from a member of it. The policy is met when
 * nothing is still needed.
 */
export function approvalsStillNeeded(
  requirement: ApprovalRequirement,
  records: readonly StageApprovalRecord[],
  revision: string | undefined,
  author: string | undefined,
): ApprovalsStillNeeded {
  const counted = new Map<string, StageApprovalRecord>();
  for (const record of records) {
    if (record.revision !== revision) continue;
    if (requirement.distinctFromAuthor && (author === undefined || record.approvedBy === author)) continue;
    if (!counted.has(record.approvedBy)) counted.set(record.approvedBy, record);
  }
  return {
    approvers: Math.max(0, requirement.count - counted.size),
    groups: requirement.groups.filter(
      (group) => ![...counted.values()].some((record) => record.groups?.includes(group)),
    ),
  };
}

/** Whether nothing more is needed. */
export const approvalsMet = (needed: ApprovalsStillNeeded): boolean =>
  needed.approvers === 0 && needed.groups.length === 0;

/** "1 more approver, one of group g" as the plugin and the console say it; empty when nothing is needed. */
export function describeStillNeeded(needed: ApprovalsStillNeeded): string {
  const parts: string[] = [];
  if (needed.approvers > 0) parts.push(`${needed.approvers} more approver${needed.approvers === 1 ? '' : 's'}`);
  if (needed.groups.length > 0)
    parts.push(
      `an approver from ${needed.groups.length === 1 ? 'group' : 'each of groups'} ${needed.groups.join(', ')}`,
    );
  return parts.join(', including ');
}

/** A Rollout as far as its approvals go: its revision, stages, and the server's records in its status. */
export interface RolloutApprovalView {
  spec?: { revision?: string; stages?: unknown[] };
  status?: { revisionAuthor?: unknown; stages?: unknown[] };
}

/** The server's status entry of a stage, if any. */
function statusStage(rollout: RolloutApprovalView, workspace: string): Record<string, unknown> | undefined {
  const stages = rollout.status?.stages;
  return (Array.isArray(stages) ? stages : []).find(
    (entry): entry is Record<string, unknown> => isObject(entry) && entry.workspace === workspace,
  );
}

/**
 * Whether a stage's gate is open: the API server recorded, in the same write as the approval that completed the
 * policy, `status.stages[].approval` for the current `spec.revision`. A new revision closes every gate.
 */
export function stageApproved(rollout: RolloutApprovalView, workspace: string): boolean {
  const approval = statusStage(rollout, workspace)?.approval;
  return isObject(approval) && typeof approval.revision === 'string' && approval.revision === rollout.spec?.revision;
}

/** The approval records of a stage (`status.stages[].approvals`), read leniently. */
export function stageApprovalRecords(rollout: RolloutApprovalView, workspace: string): StageApprovalRecord[] {
  const records = statusStage(rollout, workspace)?.approvals;
  return (Array.isArray(records) ? records : []).filter(
    (record): record is StageApprovalRecord =>
      isObject(record) && typeof record.approvedBy === 'string' && typeof record.revision === 'string',
  );
}

/** The author of the current revision as the server recorded it; undefined when not known. */
export function revisionAuthorOf(rollout: RolloutApprovalView): string | undefined {
  const author = rollout.status?.revisionAuthor;
  if (!isObject(author) || typeof author.principal !== 'string') return undefined;
  return author.revision === rollout.spec?.revision ? author.principal : undefined;
}

/** Who still has to approve `stage` (a stage of `rollout.spec.stages`) for its current revision. */
export function stageStillNeeds(rollout: RolloutApprovalView, stage: RolloutStageGate): ApprovalsStillNeeded {
  return approvalsStillNeeded(
    stageRequirement(stage),
    stageApprovalRecords(rollout, stage.workspace),
    rollout.spec?.revision,
    revisionAuthorOf(rollout),
  );
}

/**
 * Who still has to approve a stage that asks more than one approval or a group, or has approvals already, as the
 * plugin and the console say it: "needs 1 more approver, including an approver from group g; approved so far by
 * alice"; empty for a stage that asks one approval and has none.
 */
export function whoStillApproves(rollout: RolloutApprovalView, stage: RolloutStageGate): string {
  const requirement = stageRequirement(stage);
  const given = stageApprovalRecords(rollout, stage.workspace)
    .filter((record) => record.revision === rollout.spec?.revision)
    .map((record) => record.approvedBy);
  if (requirement.count === 1 && requirement.groups.length === 0 && given.length === 0) return '';
  const needed = describeStillNeeded(stageStillNeeds(rollout, stage));
  return [needed ? `needs ${needed}` : '', given.length > 0 ? `approved so far by ${given.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
}
