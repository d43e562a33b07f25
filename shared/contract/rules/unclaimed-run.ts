// Issue 44 item 3: a run that waits with no controller says so, instead of "Pending" and silence.
// The rule is computed by clients from the run record: the plugin and the console import this one
// browser-safe rule (issue 43, item 7).

/** How long a run may wait unclaimed before a client says no controller has claimed it. */
export const UNCLAIMED_AFTER_MS = 30_000;

/** The fields of a run record (shared/domain/runs/run.ts) the rule reads. */
interface Waiting {
  phase: string;
  attempts: number;
  createdAt: string;
}

/** When the notice becomes due: undefined for a run that a controller claimed or that is over. */
export function unclaimedNoticeDueAt(run: Waiting): number | undefined {
  if (run.phase !== 'Pending' || run.attempts > 0) return undefined;
  return Date.parse(run.createdAt) + UNCLAIMED_AFTER_MS;
}

/** "no controller has claimed this run for 42 s" once the run waited UNCLAIMED_AFTER_MS unclaimed, else undefined. */
export function unclaimedNotice(run: Waiting, now: number): string | undefined {
  const due = unclaimedNoticeDueAt(run);
  if (due === undefined || now < due) return undefined;
  return `no controller has claimed this run for ${Math.floor((now - Date.parse(run.createdAt)) / 1000)} s`;
}
