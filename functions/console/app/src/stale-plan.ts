// Issue 44, item 15: "Apply plan" is offered only while the server would accept it. The server
// states its verdict on each succeeded plan (`planApproval`, by the rule its approval applies); the
// console keeps no copy of the rule, and only watches the clock reach the deadline the server named,
// so that a page left open stops offering the plan once it goes stale.
import { useEffect, useState } from 'preact/hooks';
import type { Run } from './platform-api.ts';

/** setTimeout's longest delay (about 24.8 days); a later deadline is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/** "24h", "90m", "30s" or "500ms": the plan approval's age limit as the server applied it. */
function shortDuration(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/**
 * Why the succeeded plan `run` may no longer be applied at `now`, in the server's terms; undefined
 * while it may be (or when the server states nothing: another kind of run, an older server).
 */
export function stalePlanReason(run: Pick<Run, 'planApproval' | 'finishedAt'>, now: number): string | undefined {
  const approval = run.planApproval;
  if (!approval) return undefined;
  const { supersededBy } = approval;
  if (supersededBy)
    return `This plan is stale: a newer ${supersededBy.type} run (${supersededBy.id}) of its Workspace exists; start a new plan.`;
  const until = Date.parse(approval.applyableUntil);
  // Issue 48: a plan its post-plan run tasks hold back (`blockedBy`) is not applyable yet, but not stale either.
  if ((approval.applyable || approval.blockedBy) && now <= until) return undefined;
  const maxAge = run.finishedAt ? ` more than ${shortDuration(until - Date.parse(run.finishedAt))}` : '';
  return `This plan is stale: it was planned${maxAge} ago (PLAN_APPROVAL_MAX_AGE); start a new plan.`;
}

/** `stalePlanReason` now, and again once the server's deadline passes on an open page. */
export function useStalePlanReason(run: Pick<Run, 'planApproval' | 'finishedAt'>): string | undefined {
  const [now, setNow] = useState(Date.now);
  const reason = stalePlanReason(run, now);
  const until = run.planApproval ? Date.parse(run.planApproval.applyableUntil) : Number.NaN;
  useEffect(() => {
    if (reason !== undefined || Number.isNaN(until)) return;
    // Wakes just past the deadline (the verdict is `now <= until`), or on the way to a far one.
    const timer = window.setTimeout(
      () => setNow(Date.now()),
      Math.min(Math.max(until - Date.now() + 1, 0), MAX_TIMER_MS),
    );
    return () => window.clearTimeout(timer);
  }, [reason, until, now]);
  return reason;
}
