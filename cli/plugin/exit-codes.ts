// The plugin's exit codes, one table for every command (docs/cli.md, "Exit codes"). With -f/--follow the
// code is the run's outcome, so a CI script can wait on a run and tell a failed run (1) from a
// command that could not follow it (3) or was called wrongly (4). kubectl itself exits 1 for every
// error; the plugin keeps 1 for a failed run.
import type { RunPhase } from '../../shared/domain/runs/run.ts';

export const EXIT_CODES = {
  /** Done; with -f/--follow: the run Succeeded. */
  success: 0,
  /** With -f/--follow: the run Failed. */
  runFailed: 1,
  /** With -f/--follow: the run was Cancelled. */
  runCancelled: 2,
  /** The server refused or failed (`Error from server (...)`), could not be reached, or the credential could not be renewed. */
  server: 3,
  /** The command line or the kubeconfig is wrong: unknown command or flag, missing or extra argument, no such context. */
  usage: 4,
  /** Following: retention removed the run (RUN_HISTORY_RETENTION, issue 35) before its end was seen, so its outcome is unknown. */
  runRemoved: 5,
} as const;

export type ExitReason = keyof typeof EXIT_CODES;

/** The exit code of a followed run that ended in `phase`. */
export function exitCodeOfPhase(phase: RunPhase): number {
  if (phase === 'Succeeded') return EXIT_CODES.success;
  if (phase === 'Cancelled') return EXIT_CODES.runCancelled;
  return EXIT_CODES.runFailed;
}
