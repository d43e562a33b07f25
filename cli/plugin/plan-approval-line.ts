// `runs get` on a succeeded plan (issue 44, item 15): one line saying whether it may still be approved
// for apply, in the server's terms (the run answer's `planApproval`: the plugin keeps no copy of the rule);
// and, with several approvers (issue 45, items 2 and 5), who approved it so far and who still has to.
import { planStillNeeds } from '../../shared/contract/rules/plan-approval-progress.ts';
import { humanDuration } from './human-duration.ts';
import type { RunRecord } from './runs-client.ts';

/** The line for `run`, when the server states a verdict on it (a succeeded plan); undefined otherwise. */
export function planApprovalLine(run: RunRecord, now = Date.now()): string | undefined {
  const approval = run.planApproval;
  if (!approval) return undefined;
  const newPlan = `start a new plan (kubectl platform runs start ${run.workspace} --plan)`;
  if (approval.supersededBy)
    return `Stale plan: a newer ${approval.supersededBy.type} run (${approval.supersededBy.id}) of its Workspace exists; ${newPlan}`;
  const until = Date.parse(approval.applyableUntil);
  // Issue 48: its post_plan run tasks hold it back (not answered yet, or a mandatory one failed): the server's words;
  // not applyable without being stale, until its age limit makes it stale all the same.
  const blocked = approval.blockedBy;
  if (blocked && now <= until) {
    const yet = blocked.reason === 'RunTasksPending' ? ' yet' : '';
    return `Not applyable${yet} (${blocked.reason}): ${blocked.message}`;
  }
  if (!approval.applyable || blocked) {
    const maxAge = run.finishedAt ? ` more than ${humanDuration(until - Date.parse(run.finishedAt))}` : '';
    return `Stale plan: planned${maxAge} ago (PLAN_APPROVAL_MAX_AGE); ${newPlan}`;
  }
  return `Applyable until ${approval.applyableUntil} (${humanDuration(until - now)} from now): kubectl platform runs approve ${run.id}`;
}

/**
 * Issue 45, items 2 and 5: a line per approval of the plan so far (who, when, with which groups), then who still
 * has to approve while the plan may be approved; nothing for a plan nobody approved whose applies ask one approval.
 */
export function planApproverLines(run: RunRecord): string[] {
  const approval = run.planApproval;
  if (!approval) return [];
  const lines = (approval.approvals ?? []).map(
    (record) =>
      `Approved by ${record.approvedBy} at ${record.approvedAt} (groups: ${record.groups.length > 0 ? record.groups.join(', ') : '<none>'})`,
  );
  // A stale plan is approved by nobody any more: only its history is worth showing.
  const open = !approval.supersededBy && (approval.applyable || Boolean(approval.blockedBy));
  const still = open ? planStillNeeds(approval) : '';
  if (still) lines.push(`Still needed: ${still}`);
  return lines;
}
