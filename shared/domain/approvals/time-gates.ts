import { isJsonObject, type PlatformObject } from '../../contract/kinds/platform-object.ts';
import { soakVerdict, type PolicyStage } from './soak-time.ts';
import {
  evaluateWindows,
  type ApprovalWindow,
  type Freeze,
  type GatedTarget,
  type WindowPolicy,
} from '../../contract/rules/approval-windows.ts';

// The time gates of a Project's approval policy (issue 45 items 3 and 4): its windows, its freeze and its stages'
// soak times, read from `spec.approvalPolicy` and judged together for one promotion or apply.

/** What the time gates read of `spec.approvalPolicy`. */
export interface TimeGatePolicy extends WindowPolicy {
  stages?: PolicyStage[];
}

/** The Project's time gates, read leniently (the CRD's schema refuses what is malformed); none without a Project. */
export function timeGatesOf(project: PlatformObject | undefined): TimeGatePolicy {
  const policy = project?.spec?.approvalPolicy;
  if (!isJsonObject(policy)) return {};
  return {
    ...(Array.isArray(policy.windows)
      ? { windows: policy.windows.filter(isJsonObject) as unknown as ApprovalWindow[] }
      : {}),
    ...(isJsonObject(policy.freeze) ? { freeze: policy.freeze as unknown as Freeze } : {}),
    ...(Array.isArray(policy.stages) ? { stages: policy.stages.filter(isJsonObject) as unknown as PolicyStage[] } : {}),
  };
}

/** A time gate's refusal: the catalogue reason and a message naming the window (or freeze, or soak) and when it opens. */
export interface TimeGateRefusal {
  reason: 'OutsideApprovalWindow' | 'ProjectFrozen' | 'SoakTimeNotElapsed';
  message: string;
  opensAt?: string;
}

/**
 * The first refusal of the time gates for `target` at `now`, or undefined when they allow it. A promotion also
 * names the stored Rollout and the stages it approves, whose soak times are checked.
 */
export function timeGateRefusal(
  policy: TimeGatePolicy,
  target: GatedTarget,
  now: Date,
  promotion?: { rollout: PlatformObject; stages: readonly string[] },
): TimeGateRefusal | undefined {
  const windows = evaluateWindows(policy, target, now);
  if (!('allowed' in windows))
    return {
      reason: windows.refused,
      message: windows.reason,
      ...(windows.opensAt ? { opensAt: windows.opensAt } : {}),
    };
  for (const stage of promotion?.stages ?? []) {
    const soak = soakVerdict(policy.stages, promotion!.rollout, stage, now);
    if (!('allowed' in soak))
      return { reason: soak.refused, message: soak.reason, ...(soak.opensAt ? { opensAt: soak.opensAt } : {}) };
  }
  return undefined;
}
