// `runs get` on a succeeded plan (issue 44, item 15): one line saying whether it may still be approved
// for apply, in the server's terms (the run answer's `planApproval`: the plugin keeps no copy of the rule).
import { humanDuration } from './human-duration.ts';
import type { RunRecord } from './runs-client.ts';

/** The line for `run`, when the server states a verdict on it (a succeeded plan); undefined otherwise. */
export function planApprovalLine(run: RunRecord, now = Date.now()): string | undefined {
  const approval = run.planApproval;
  if (!approval) return undefined;
  const newPlan = `start a new plan (kubectl platform runs start ${run.workspace} --plan)`;
  if (approval.supersededBy)
    return `Stale plan: a newer ${approval.supersededBy.type} run (${approval.supersededBy.id}) of its Workspace exists; ${newPlan}`;
  // Issue 48: its post_plan run tasks hold it back (not answered yet, or a mandatory one failed): the server's words.
  if (approval.blockedBy) {
    const yet = approval.blockedBy.reason === 'RunTasksPending' ? ' yet' : '';
    return `Not applyable${yet} (${approval.blockedBy.reason}): ${approval.blockedBy.message}`;
  }
  const until = Date.parse(approval.applyableUntil);
  if (!approval.applyable) {
    const maxAge = run.finishedAt ? ` more than ${humanDuration(until - Date.parse(run.finishedAt))}` : '';
    return `Stale plan: planned${maxAge} ago (PLAN_APPROVAL_MAX_AGE); ${newPlan}`;
  }
  return `Applyable until ${approval.applyableUntil} (${humanDuration(until - now)} from now): kubectl platform runs approve ${run.id}`;
}
