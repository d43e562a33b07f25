import { parseGoDuration } from '../../base/config/go-duration.ts';
import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';
import { revisionOf, stageGates } from './stage-approvals.ts';

// Soak time (issue 45 item 4, docs/resources.md "Windows, freezes and overrides"): a stage whose entry in the
// Project's `spec.approvalPolicy.stages[]` has `soakTime` may be approved only once the stage before it (in the
// Rollout's `spec.stages` order) has been approved, or, ungated, in the current revision, for that long. The clock
// starts at what the API server recorded for the current revision: the previous stage's
// `status.stages[].approval.approvedAt` when that stage is gated, otherwise `status.revisionAuthor.changedAt`.

/** An entry of `spec.approvalPolicy.stages[]` as far as soak time goes. */
export interface PolicyStage {
  rollout: string;
  stage: string;
  /** Go duration, SOAK_TIME_BOUNDS. */
  soakTime?: string;
}

/** Bounds of `soakTime`: up to 30 days. */
export const SOAK_TIME_BOUNDS = { minMs: 0, maxMs: 30 * 24 * 3_600_000 } as const;

export type SoakVerdict = { allowed: true } | { refused: 'SoakTimeNotElapsed'; reason: string; opensAt?: string };

/** The soak time the policy sets for `stage` of `rollout`, in ms; undefined when none. */
function soakTimeOf(stages: readonly PolicyStage[] | undefined, rollout: string, stage: string) {
  const entry = (stages ?? []).find((candidate) => candidate.rollout === rollout && candidate.stage === stage);
  return entry?.soakTime === undefined ? undefined : { text: entry.soakTime, ms: parseGoDuration(entry.soakTime) };
}

/** Whether `stage` of the stored `rollout` may be approved at `now` as far as soak time goes. */
export function soakVerdict(
  stages: readonly PolicyStage[] | undefined,
  rollout: PlatformObject,
  stage: string,
  now: Date,
): SoakVerdict {
  const name = rollout.metadata.name ?? '';
  const soak = soakTimeOf(stages, name, stage);
  if (!soak) return { allowed: true };
  const refused = (why: string, opensAt?: Date): SoakVerdict => ({
    refused: 'SoakTimeNotElapsed',
    reason: `stage "${stage}" of rollout "${name}" needs the stage before it to soak for ${soak.text}: ${why}`,
    ...(opensAt ? { opensAt: opensAt.toISOString() } : {}),
  });
  if (soak.ms === null || soak.ms < SOAK_TIME_BOUNDS.minMs || soak.ms > SOAK_TIME_BOUNDS.maxMs)
    return refused('the soak time is not a Go duration up to 720h, so it cannot be checked');
  const order = [...stageGates(rollout).keys()];
  const previous = order[order.indexOf(stage) - 1];
  if (previous === undefined) return { allowed: true };
  const revision = revisionOf(rollout);
  const status = isJsonObject(rollout.status) ? rollout.status : {};
  const previousStatus = (Array.isArray(status.stages) ? status.stages : []).find(
    (entry): entry is Record<string, unknown> => isJsonObject(entry) && entry.workspace === previous,
  );
  if (previousStatus?.phase === 'Failed') return refused(`stage "${previous}" failed`);
  const since = stageGates(rollout).get(previous)!.required
    ? recordedAt(previousStatus?.approval, 'approvedAt', revision)
    : recordedAt(status.revisionAuthor, 'changedAt', revision);
  if (since === undefined)
    return refused(
      `no approval of stage "${previous}" (or, ungated, no write of the revision) is recorded for revision "${revision}"`,
    );
  const opensAt = new Date(since + soak.ms);
  if (now.getTime() >= opensAt.getTime()) return { allowed: true };
  return refused(`it started at ${new Date(since).toISOString()}; it opens at ${opensAt.toISOString()}`, opensAt);
}

/** The instant `field` of a server-written record, when the record is of `revision`. */
function recordedAt(record: unknown, field: string, revision: string | undefined): number | undefined {
  if (!isJsonObject(record) || record.revision !== revision || typeof record[field] !== 'string') return undefined;
  const at = Date.parse(record[field] as string);
  return Number.isNaN(at) ? undefined : at;
}
