import type { PlatformObject } from '../../contract/kinds/platform-object.ts';
import { isJsonObject } from '../../contract/kinds/platform-object.ts';
import { stageApprovalRecords, stageApproved } from '../../contract/rules/rollout-stage.ts';

/**
 * What a notification says of a Rollout stage, derived from the Rollout alone: `failed` or `promoted` (Applied)
 * as its controller reports in `status.stages[].phase`; else `approved` when the server recorded the gate open
 * for the current revision (`stageApproved`); else `awaiting` while the controller holds it at AwaitingApproval;
 * else `pending` (nothing to tell).
 */
export type StageState = 'pending' | 'awaiting' | 'approved' | 'promoted' | 'failed';

/** One stage of a Rollout as the reconciler sees it. */
export interface ObservedStage {
  /** The stage's Workspace: how `spec.stages[]` and `status.stages[]` name a stage. */
  stage: string;
  index: number;
  revision: string;
  state: StageState;
  /** The controller's phase of the stage (`Pending` when it has written none). */
  phase: string;
}

/** The state of a stage as last recorded. */
export interface RecordedStage {
  revision: string;
  state: StageState;
}

/** A stage event: the suffix of its outbox type `rollout.stage_<event>`. */
export type StageEvent = 'awaiting_approval' | 'approved' | 'promoted' | 'failed' | 'approval_withdrawn';

const STATE_EVENTS: Record<Exclude<StageState, 'pending'>, StageEvent> = {
  awaiting: 'awaiting_approval',
  approved: 'approved',
  promoted: 'promoted',
  failed: 'failed',
};

/** The controller's phase of each stage, by its Workspace. */
function stagePhases(rollout: PlatformObject): Map<string, string> {
  const stages = rollout.status?.stages;
  const phases = new Map<string, string>();
  for (const entry of Array.isArray(stages) ? stages : [])
    if (isJsonObject(entry) && typeof entry.workspace === 'string' && typeof entry.phase === 'string')
      phases.set(entry.workspace, entry.phase);
  return phases;
}

/** Every stage of `rollout.spec.stages` with its state; a Rollout without a revision has none to tell. */
export function stageStatesOf(rollout: PlatformObject): ObservedStage[] {
  const revision = rollout.spec?.revision;
  const stages = rollout.spec?.stages;
  if (typeof revision !== 'string' || !Array.isArray(stages)) return [];
  const phases = stagePhases(rollout);
  return stages.flatMap((entry, index) => {
    if (!isJsonObject(entry) || typeof entry.workspace !== 'string') return [];
    const phase = phases.get(entry.workspace) ?? 'Pending';
    return [{ stage: entry.workspace, index, revision, phase, state: stateOf(rollout, entry.workspace, phase) }];
  });
}

function stateOf(rollout: PlatformObject, workspace: string, phase: string): StageState {
  if (phase === 'Failed') return 'failed';
  if (phase === 'Applied') return 'promoted';
  if (stageApproved(rollout, workspace)) return 'approved';
  if (phase === 'AwaitingApproval') return 'awaiting';
  return 'pending';
}

/**
 * The event a stage's change is, if any. A stage first seen tells only that it awaits approval (someone must
 * act; its history is not sent), unless `firstSeen` is `current`: its caller has just changed it (the approve
 * and withdraw routes), so its state is news whatever it is. An approval gone for the same revision is a withdrawal (its stage waits
 * again: the withdrawal says so, no second `awaiting_approval`); a new revision closes every gate without one.
 * The same state for a new revision is told again (a new revision awaits approval anew).
 */
export function stageEventOf(
  recorded: RecordedStage | undefined,
  observed: RecordedStage,
  firstSeen: 'awaiting' | 'current' = 'awaiting',
): StageEvent | undefined {
  if (recorded === undefined)
    return observed.state === 'pending' || (firstSeen === 'awaiting' && observed.state !== 'awaiting')
      ? undefined
      : STATE_EVENTS[observed.state];
  if (recorded.state === observed.state && recorded.revision === observed.revision) return undefined;
  if (recorded.state === 'approved' && recorded.revision === observed.revision && !isGateOpen(observed.state))
    return 'approval_withdrawn';
  return observed.state === 'pending' ? undefined : STATE_EVENTS[observed.state];
}

/** A state that the approval of the stage led to (approved, or promoted or failed after it). */
const isGateOpen = (state: StageState) => state !== 'pending' && state !== 'awaiting';

/** Who approved `stage` for the current revision, in the order they did. */
export function approversOf(rollout: PlatformObject, stage: string): string[] {
  return stageApprovalRecords(rollout, stage)
    .filter((record) => record.revision === rollout.spec?.revision)
    .map((record) => record.approvedBy);
}
