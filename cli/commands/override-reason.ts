// `--override-reason R` (issue 45 items 3 and 5): the commands a Project's approval windows, freeze or soak time
// can refuse (approving a stage, approving a plan for apply, starting an apply) act anyway as an incident commander,
// sending `{"override": {"reason": R}}` as the server expects it (docs/resources.md "Windows, freezes and
// overrides"); the server asks for the `override` verb and records the reason in the audit trail and on the run or
// the stage's approval record.
import { type CommandContext, stringFlag } from './plugin-command.ts';
import { type FlagSpec, usageError } from '../plugin/command-line.ts';
import { PluginError } from '../plugin/plugin-error.ts';

export const OVERRIDE_REASON_FLAG: FlagSpec = {
  name: 'override-reason',
  value: 'R',
  description:
    "act although the Project's approval windows, freeze or soak time refuse (needs the override verb); R is recorded",
};

/** The body's `override` when --override-reason was given (a usage error when empty), else nothing. */
export function overrideOf(context: CommandContext): { override?: { reason: string } } {
  const reason = stringFlag(context, OVERRIDE_REASON_FLAG.name);
  if (reason === undefined) return {};
  if (reason.trim() === '') throw usageError('--override-reason needs a reason: it is recorded in the audit trail');
  return { override: { reason } };
}

/** The refusals of the Project's time gates, which an override passes. */
const TIME_GATE_REASONS = new Set(['OutsideApprovalWindow', 'ProjectFrozen', 'SoakTimeNotElapsed']);

/**
 * The server words an override in the API's terms (`{"override": ...}` on the routes); a plugin user is told the
 * flag. Any other error is passed on as it is.
 */
export function withOverrideHint(error: unknown): unknown {
  if (!(error instanceof PluginError) || !TIME_GATE_REASONS.has(error.serverReason ?? '')) return error;
  return new PluginError(
    `${error.message}\nAn incident commander (the override verb) may act anyway: repeat the command with --override-reason "<why>"`,
    'server',
    error.serverReason,
  );
}
