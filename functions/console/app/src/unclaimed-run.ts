// The browser's copy of shared/domain/runs/unclaimed-run.ts (the console app may not import shared/):
// test/unit/console/unclaimed-run.test.ts holds the two to the same answers.
import type { Run } from './platform-api.ts';

const UNCLAIMED_AFTER_MS = 30_000;

/** "no controller has claimed this run for 42 s" once a Pending run waited 30 s with no claim, else undefined. */
export function unclaimedNotice(run: Pick<Run, 'phase' | 'attempts' | 'createdAt'>, now: number): string | undefined {
  const waited = now - Date.parse(run.createdAt);
  if (run.phase !== 'Pending' || run.attempts > 0 || waited < UNCLAIMED_AFTER_MS) return undefined;
  return `no controller has claimed this run for ${Math.floor(waited / 1000)} s`;
}
