import { isDeepStrictEqual } from 'node:util';
import { stageNeedsApproval } from '../../contract/rules/rollout-stage.ts';
import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';

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
      ((previous.required && !gate.required) || (previous.distinctFromAuthor && !gate.distinctFromAuthor))
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

/** `status.stages[].approval`, written by the API server: who approved the stage, when, for which revision. */
export interface StageApprovalRecord {
  approvedBy: string;
  approvedAt: string;
  revision: string;
  /** An incident commander's override of the Project's windows, freeze or soak time (issue 45 item 3). */
  override?: { reason: string; overrode: string };
}

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

/** What the server records after a write it judged: by whom, when (RFC 3339), and the revision written. */
export interface Recording {
  writer: string;
  at: string;
  revision: string;
  override?: StageApprovalRecord['override'];
}

/**
 * The status of `current` (the Rollout as stored after the write) with the write's approval records: its
 * writer as the revision's author when it authored the revision, a record for each stage it approved, none
 * for each it withdrew. Only what `current` still says is recorded (a later write may have changed it again):
 * nothing of another revision; undefined when nothing changes.
 */
export function recordedStatus(
  current: PlatformObject,
  changes: ApprovalChanges,
  recording: Recording,
): Record<string, unknown> | undefined {
  const { revision } = recording;
  // A later write that changed the revision again owns the records of its own revision.
  const sameRevision = revisionOf(current) === revision;
  const gates = stageGates(current);
  const before = isJsonObject(current.status) ? current.status : {};
  const status = structuredClone(before);
  const stages = stageList(status.stages);
  if (changes.authorsRevision && sameRevision)
    status.revisionAuthor = { principal: recording.writer, revision, changedAt: recording.at } satisfies RevisionAuthor;
  for (const workspace of changes.withdrawn) {
    if (gates.get(workspace)?.approved) continue;
    for (const stage of stages) if (stage.workspace === workspace) delete stage.approval;
  }
  for (const workspace of changes.granted) {
    if (!sameRevision || !gates.get(workspace)?.approved) continue;
    let stage = stages.find((candidate) => candidate.workspace === workspace);
    if (!stage) stages.push((stage = { workspace }));
    stage.approval = {
      approvedBy: recording.writer,
      approvedAt: recording.at,
      revision,
      ...(recording.override ? { override: recording.override } : {}),
    } satisfies StageApprovalRecord;
  }
  if (stages.length > 0) status.stages = stages;
  return isDeepStrictEqual(status, before) ? undefined : status;
}

/**
 * `result` with every approval record (`status.revisionAuthor`, `status.stages[].approval`) as `stored` has
 * them: clients never write them, whatever they send through the status subresource.
 */
export function withStoredApprovalRecords(result: PlatformObject, stored: PlatformObject): PlatformObject {
  if (!isJsonObject(result.status)) return result;
  const kept = isJsonObject(stored.status) ? stored.status : {};
  const { revisionAuthor: _sentAuthor, ...status } = result.status;
  if (kept.revisionAuthor !== undefined) status.revisionAuthor = kept.revisionAuthor;
  const keptStages = stageList(kept.stages);
  const recordOf = (workspace: unknown) => keptStages.find((stage) => stage.workspace === workspace)?.approval;
  if (Array.isArray(status.stages)) {
    status.stages = status.stages.map((stage: unknown) => {
      if (!isJsonObject(stage)) return stage;
      const { approval: _sent, ...rest } = stage;
      const record = recordOf(stage.workspace);
      return record === undefined ? rest : { ...rest, approval: record };
    });
  }
  const listed = stageList(status.stages).map((stage) => stage.workspace);
  const dropped = keptStages
    .filter((stage) => stage.approval !== undefined && !listed.includes(stage.workspace))
    .map((stage) => ({ workspace: stage.workspace, approval: stage.approval }));
  if (dropped.length > 0) status.stages = [...(Array.isArray(status.stages) ? status.stages : []), ...dropped];
  return { ...result, status };
}

/** The entries of a status stage list that are objects; none when it is no list. */
function stageList(stages: unknown): Record<string, unknown>[] {
  return Array.isArray(stages) ? stages.filter(isJsonObject) : [];
}
