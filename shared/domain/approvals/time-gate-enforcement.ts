import { timeGateRefusal, type TimeGatePolicy } from './time-gates.ts';
import type { GatedTarget } from '../../contract/rules/approval-windows.ts';
import { OVERRIDDEN_ANNOTATION, OVERRIDE_REASON_ANNOTATION, noteForAudit } from '../audit/audit-annotations.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import type { ApprovalCaller } from './approval-caller.ts';

/** An incident commander's `{"override": {"reason"}}`: act although a window, the freeze or a soak time refuses. */
export interface OverrideRequest {
  reason: string;
}

/** What an override overrode, for the approval record: the caller's reason and the refusal's reason. */
export interface OverrideRecord {
  reason: string;
  overrode: string;
}

/**
 * Authorizes an override (`override` on the route's resource, 403 otherwise) before anything is judged, so an
 * attempt without the permission is refused whether or not a gate would have refused.
 */
export async function authorizeOverride(caller: ApprovalCaller, override: OverrideRequest | undefined): Promise<void> {
  if (override === undefined) return;
  await caller.authorization.authorizeAlso('override');
  noteForAudit(caller, OVERRIDE_REASON_ANNOTATION, override.reason);
}

/**
 * Refuses `target` (409 with the gate's reason, naming the window and when it opens) unless the time gates allow
 * it now, or the caller overrides them (authorized by `authorizeOverride`): then the override is noted in the
 * audit trail and returned for the approval record.
 */
export function passTimeGates(
  caller: ApprovalCaller,
  policy: TimeGatePolicy,
  target: GatedTarget,
  override: OverrideRequest | undefined,
  promotion?: Parameters<typeof timeGateRefusal>[3],
): OverrideRecord | undefined {
  const refusal = timeGateRefusal(policy, target, new Date(), promotion);
  if (!refusal) return undefined;
  if (override === undefined)
    throw apiError(
      refusal.reason,
      `${refusal.message}; an incident commander with the \`override\` permission may act anyway with {"override": {"reason": "..."}} on the approve route or the run routes`,
    );
  noteForAudit(caller, OVERRIDDEN_ANNOTATION, `${refusal.reason}: ${refusal.message}`);
  return { reason: override.reason, overrode: refusal.reason };
}
