// Issue 44 item 3: a run that waits with no controller says so, instead of "Pending" and silence.
// The rule is computed by clients from the run record (the plugin here; the console's browser copy,
// functions/console/app/src/unclaimed-run.ts, which may not import shared/: a test holds the two
// to the same answers).
import type { Run } from './run.ts';

/** How long a run may wait unclaimed before a client says no controller has claimed it. */
export const UNCLAIMED_AFTER_MS = 30_000;

type Waiting = Pick<Run, 'phase' | 'attempts' | 'createdAt'>;

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
