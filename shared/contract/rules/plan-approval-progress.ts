// Who still has to approve a succeeded plan for apply (issue 45, items 2 and 5), as the plugin and the console
// say it, from the run answer's `planApproval` (the server's verdict: no client counts approvals itself).
// Browser-safe: the console imports it.

import { describeStillNeeded } from './rollout-stage.ts';
import type { PlanApprovalState } from './run-record.ts';

/**
 * "1 more approver, including an approver from group oidc:sre" for a plan whose Workspace's applies ask more than
 * one approval or a group, or that has approvals already; empty when the policy asks one approval from anybody and
 * nobody gave one yet (the plain case says nothing, as a Rollout stage's does), when nothing more is needed, and in
 * answers of servers from before issue 45 item 2 (no `stillNeeded`).
 */
export function planStillNeeds(approval: PlanApprovalState): string {
  if (!approval.stillNeeded) return '';
  const requirement = approval.requirement;
  const plain = !requirement || (requirement.count <= 1 && requirement.groups.length === 0);
  if (plain && (approval.approvals ?? []).length === 0) return '';
  return describeStillNeeded(approval.stillNeeded);
}
