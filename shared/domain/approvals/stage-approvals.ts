import { isDeepStrictEqual } from 'node:util';
import {
  approvalsMet,
  approvalsStillNeeded,
  stageApprovalRecords,
  stageApproved,
  stageNeedsApproval,
  stageRequirement,
  type StageApprovalRecord,
} from '../../contract/rules/rollout-stage.ts';
import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';
import { stricterRequirement, type PolicyGate } from './approval-policy.ts';

// A Rollout's approvals (issue 37, docs/resources.md "Approvals"), judged on the result of a write against the
// stored object, whatever the write's shape: merge patch, JSON patch, server-side apply, PUT, the approve route.

/** One stage's gate and its state, as a Rollout's spec says them. */
export interface StageGate {
  /** Wait for an approval: `approval.required`, the deprecated `requireApproval`, or four eyes. */
  required: boolean;
  /** Four eyes: the approver may not be the revision's author. */
  distinctFromAuthor: boolean;
  approved: boolean;
}

/** The stages of a Rollout by workspace (their key), read leniently: what is malformed the cluster refuses. */
export function stageGates(object: PlatformObject | undefined): Map<string, StageGate> {
  const gates = new Map<string, StageGate>();
  const stages = object?.spec?.stages;
  if (!Array.isArray(stages)) return gates;
  for (const stage of stages) {
    if (!isJsonObject(stage) || typeof stage.workspace !== 'string') continue;
    const approval = isJsonObject(stage.approval) ? stage.approval : {};
    const distinctFromAuthor = approval.distinctFromAuthor === true;
    gates.set(stage.workspace, {
      required: stageNeedsApproval(stage),
      distinctFromAuthor,
      approved: stage.approved === true,
    });
  }
  return gates;
}

/** The Rollout's revision (`spec.revision`), if it has one. */
export function revisionOf(object: PlatformObject | undefined): string | undefined {
  const revision = object?.spec?.revision;
  return typeof revision === 'string' ? revision : undefined;
}

/** What a write does to a Rollout's approvals, from its result and the stored object (none: a create). */
export interface ApprovalChanges {
  /** The write creates the Rollout or changes `spec.revision`: its writer becomes the revision's author. */
  authorsRevision: boolean;
  /** Stages the result approves that were not approved before (a create's approved stages included). */
  granted: string[];
  /**
   * Stages approved before that the result still approves although it changes the revision: their approval
   * was for the revision before, so the server withdraws it (`withStagesApproved(…, false)`).
   */
  outlived: string[];
  /** Stages approved before that the written result leaves unapproved: set false, removed, or outlived. */
  withdrawn: string[];
  /** Stages whose gate the result loosens: no longer required, or no longer four eyes. */
  loosened: string[];
  /** Granted stages under four eyes, before or after the write (the stricter holds). */
  fourEyes: string[];
}

/** Judges a write's result against the stored object (undefined for a create). */
export function approvalChanges(stored: PlatformObject | undefined, result: PlatformObject): ApprovalChanges {
  const before = stageGates(stored);
  const after = stageGates(result);
  const authorsRevision = stored === undefined || revisionOf(stored) !== revisionOf(result);
  const changes: ApprovalChanges = {
    authorsRevision,
    granted: [],
    outlived: [],
    withdrawn: [],
    loosened: [],
    fourEyes: [],
  };
  for (const [workspace, gate] of after) {
    const previous = before.get(workspace);
    if (gate.approved && previous?.approved && authorsRevision) changes.outlived.push(workspace);
    else if (gate.approved && !previous?.approved) {
      changes.granted.push(workspace);
      if (gate.distinctFromAuthor || previous?.distinctFromAuthor) changes.fourEyes.push(workspace);
    }
    if (
      previous &&
      ((previous.required && !gate.required) ||
        (previous.distinctFromAuthor && !gate.distinctFromAuthor) ||
        asksLess(stageOf(stored, workspace), stageOf(result, workspace)))
    )
      changes.loosened.push(workspace);
  }
  for (const [workspace, previous] of before) {
    if (!previous.approved) continue;
    const gate = after.get(workspace);
    if (!gate?.approved || changes.outlived.includes(workspace)) changes.withdrawn.push(workspace);
  }
  return changes;
}

/** The stage of `object` keyed `workspace`, if any. */
function stageOf(object: PlatformObject | undefined, workspace: string): unknown {
  const stages = object?.spec?.stages;
  return Array.isArray(stages)
    ? stages.find((stage) => isJsonObject(stage) && stage.workspace === workspace)
    : undefined;
}

/** Whether `after`'s gate asks fewer approvers, or fewer groups, than `before`'s. */
function asksLess(before: unknown, after: unknown): boolean {
  const was = stageRequirement(before);
  const is = stageRequirement(after);
  return is.count < was.count || was.groups.some((group) => !is.groups.includes(group));
}

/** `object` with each of `workspaces`' stages `approved` as given (the object itself when none is named). */
export function withStagesApproved(
  object: PlatformObject,
  workspaces: readonly string[],
  approved: boolean,
): PlatformObject {
  if (workspaces.length === 0) return object;
  const stages = (object.spec!.stages as unknown[]).map((stage) =>
    isJsonObject(stage) && workspaces.includes(stage.workspace as string) ? { ...stage, approved } : stage,
  );
  return { ...object, spec: { ...object.spec, stages } };
}

/** `status.revisionAuthor`, written by the API server: who last changed `spec.revision` through it. */
export interface RevisionAuthor {
  principal: string;
  revision: string;
  changedAt: string;
}

/** `status.stages[].approvals[]` (and `status.stages[].approval`), written by the API server alone. */
export type { StageApprovalRecord };

/**
 * The author of the stored revision, as `status.revisionAuthor` records it; undefined when it is not known:
 * not recorded (the Rollout was written outside the API) or recorded for another revision.
 */
export function recordedRevisionAuthor(stored: PlatformObject): string | undefined {
  const author = stored.status?.revisionAuthor;
  if (!isJsonObject(author) || typeof author.principal !== 'string') return undefined;
  return author.revision === revisionOf(stored) ? author.principal : undefined;
}

/** Whether a judged write leaves anything for the server to record in the status. */
export function recordsApprovals(changes: ApprovalChanges): boolean {
  return changes.authorsRevision || changes.granted.length > 0 || changes.withdrawn.length > 0;
}

/**
 * What the server records after a write it judged: by whom (and the groups it approved with), when (RFC 3339),
 * the revision written, and the Project's stage gates, which decide with the Rollout's own when a gate opens.
 */
export interface Recording {
  writer: string;
  groups: readonly string[];
  at: string;
  revision: string;
  override?: StageApprovalRecord['override'];
  policy: ReadonlyMap<string, PolicyGate>;
}

/**
 * The status of `current` (the Rollout as stored after the write) with the write's approval records: its
 * writer as the revision's author when it authored the revision, its approval record for each stage it approved,
 * none for each stage it withdrew, and records of other revisions dropped. Each stage's gate
 * (`status.stages[].approval`) is open when its records meet the stage's requirement (the Rollout's own joined
 * with the Project's policy): so one status write records the approval, its approver and the gate together.
 * Only what `current` still says is recorded (a later write may have changed the revision again); undefined when
 * nothing changes.
 */
export function recordedStatus(
  current: PlatformObject,
  changes: ApprovalChanges,
  recording: Recording,
): Record<string, unknown> | undefined {
  const { revision } = recording;
  // A later write that changed the revision again owns the records of its own revision.
  if (revisionOf(current) !== revision) return undefined;
  const before = isJsonObject(current.status) ? current.status : {};
  const status = structuredClone(before);
  if (changes.authorsRevision)
    status.revisionAuthor = { principal: recording.writer, revision, changedAt: recording.at } satisfies RevisionAuthor;
  const stages = stageList(status.stages);
  const entryOf = (workspace: string) => {
    let entry = stages.find((candidate) => candidate.workspace === workspace);
    if (!entry) stages.push((entry = { workspace }));
    return entry;
  };
  for (const workspace of changes.withdrawn) {
    const entry = stages.find((candidate) => candidate.workspace === workspace);
    if (entry) entry.approvals = [];
  }
  for (const workspace of changes.granted) {
    const entry = entryOf(workspace);
    const records = recordsOf(entry, revision);
    if (!records.some((record) => record.approvedBy === recording.writer))
      records.push({
        approvedBy: recording.writer,
        approvedAt: recording.at,
        revision,
        ...(recording.groups.length > 0 ? { groups: [...recording.groups] } : {}),
        ...(recording.override ? { override: recording.override } : {}),
      });
    entry.approvals = records;
  }
  const gated = { ...current, status: { ...status, stages } };
  for (const entry of stages) settleGate(gated, entry, revision, recording.policy);
  const settled = stages.filter((entry) => Object.keys(entry).length > 1);
  if (settled.length > 0 || Array.isArray(before.stages)) status.stages = settled;
  return isDeepStrictEqual(status, before) ? undefined : status;
}

/**
 * The status of `current` without `approver`'s approval of `workspace` for the current revision (the withdraw
 * route), its gate settled again; undefined when there is no such approval.
 */
export function statusWithoutApproval(
  current: PlatformObject,
  workspace: string,
  approver: string,
  policy: ReadonlyMap<string, PolicyGate>,
): Record<string, unknown> | undefined {
  const revision = revisionOf(current);
  const status = structuredClone(isJsonObject(current.status) ? current.status : {});
  const stages = stageList(status.stages);
  const entry = stages.find((candidate) => candidate.workspace === workspace);
  const records = entry ? recordsOf(entry, revision) : [];
  if (!entry || !records.some((record) => record.approvedBy === approver)) return undefined;
  entry.approvals = records.filter((record) => record.approvedBy !== approver);
  settleGate({ ...current, status: { ...status, stages } }, entry, revision, policy);
  status.stages = stages.filter((candidate) => Object.keys(candidate).length > 1);
  return status;
}

/** An entry's approval records of `revision` (those of other revisions no longer count, and are dropped). */
function recordsOf(entry: Record<string, unknown>, revision: string | undefined): StageApprovalRecord[] {
  return stageApprovalRecords({ status: { stages: [entry] } }, entry.workspace as string).filter(
    (record) => record.revision === revision,
  );
}

/**
 * Settles a status entry's gate: its records kept for `revision` only, and `approval` (the gate) set when they meet
 * the stage's requirement (kept as it was when it was already open for this revision), removed otherwise.
 */
function settleGate(
  rollout: PlatformObject,
  entry: Record<string, unknown>,
  revision: string | undefined,
  policy: ReadonlyMap<string, PolicyGate>,
): void {
  const workspace = entry.workspace as string;
  const records = recordsOf(entry, revision);
  if (records.length > 0) entry.approvals = records;
  else delete entry.approvals;
  const stage = stageOf(rollout, workspace);
  const policyGate = policy.get(workspace);
  if (!stageNeedsApproval(stage) && !policyGate) {
    delete entry.approval;
    return;
  }
  const requirement = policyGate ? stricterRequirement(stageRequirement(stage), policyGate) : stageRequirement(stage);
  const met = approvalsMet(approvalsStillNeeded(requirement, records, revision, recordedRevisionAuthor(rollout)));
  if (!met) delete entry.approval;
  else if (!stageApproved(rollout, workspace)) {
    const { groups: _groups, ...completing } = records[records.length - 1]!;
    entry.approval = completing;
  }
}

/** `object` with each of its `spec.stages` replaced by `change(stage)`; as it is when it has no stage list. */
function withStages(object: PlatformObject, change: (stage: unknown) => unknown): PlatformObject {
  const stages = object.spec?.stages;
  if (!Array.isArray(stages)) return object;
  return { ...object, spec: { ...object.spec, stages: stages.map(change) } };
}

/** The Rollout as clients see it: each stage's `approved` says whether its gate is open (stageApproved). */
export function presentedRollout(object: PlatformObject): PlatformObject {
  return withStages(object, (stage) =>
    isJsonObject(stage) && typeof stage.workspace === 'string'
      ? { ...stage, approved: stageApproved(object, stage.workspace) }
      : stage,
  );
}

/** The Rollout as the server stores it: no stage carries `approved`, which `status` alone says. */
export function withoutApprovedFlags(object: PlatformObject): PlatformObject {
  return withStages(object, (stage) => {
    if (!isJsonObject(stage)) return stage;
    const { approved: _approved, ...rest } = stage;
    return rest;
  });
}

/**
 * `result` with every approval record (`status.revisionAuthor`, `status.stages[].approval` and `.approvals`) as `stored` has
 * them: clients never write them, whatever they send through the status subresource.
 */
export function withStoredApprovalRecords(result: PlatformObject, stored: PlatformObject): PlatformObject {
  if (!isJsonObject(result.status)) return result;
  const kept = isJsonObject(stored.status) ? stored.status : {};
  const { revisionAuthor: _sentAuthor, ...status } = result.status;
  if (kept.revisionAuthor !== undefined) status.revisionAuthor = kept.revisionAuthor;
  const keptStages = stageList(kept.stages);
  const keptOf = (workspace: unknown) => keptStages.find((stage) => stage.workspace === workspace);
  const records = (stage: Record<string, unknown> | undefined) => ({
    ...(stage?.approval !== undefined ? { approval: stage.approval } : {}),
    ...(stage?.approvals !== undefined ? { approvals: stage.approvals } : {}),
  });
  if (Array.isArray(status.stages)) {
    status.stages = status.stages.map((stage: unknown) => {
      if (!isJsonObject(stage)) return stage;
      const { approval: _sent, approvals: _sentRecords, ...rest } = stage;
      return { ...rest, ...records(keptOf(stage.workspace)) };
    });
  }
  const listed = stageList(status.stages).map((stage) => stage.workspace);
  const dropped = keptStages
    .filter(
      (stage) => (stage.approval !== undefined || stage.approvals !== undefined) && !listed.includes(stage.workspace),
    )
    .map((stage) => ({ workspace: stage.workspace, ...records(stage) }));
  if (dropped.length > 0) status.stages = [...(Array.isArray(status.stages) ? status.stages : []), ...dropped];
  return { ...result, status };
}

/** The entries of a status stage list that are objects; none when it is no list. */
function stageList(stages: unknown): Record<string, unknown>[] {
  return Array.isArray(stages) ? stages.filter(isJsonObject) : [];
}
