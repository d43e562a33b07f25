// Writes a run's log to standard output and, when following, answers with the run's outcome as the exit
// code (0 Succeeded, 1 Failed, 2 Cancelled): shared by `runs logs`, `runs start --follow` and
// `runs approve --follow`.
import { exitCodeOfPhase } from '../plugin/exit-codes.ts';
import { PluginError } from '../plugin/plugin-error.ts';
import { RunLogFollower } from '../plugin/run-log-follower.ts';
import { getRun } from '../plugin/runs-client.ts';
import { forTerminal, withoutColours } from '../plugin/terminal-colours.ts';
import { watchUnclaimedRun } from '../plugin/unclaimed-run-watch.ts';
import { FINAL_PHASES } from '../../shared/domain/runs/run.ts';
import type { CommandContext } from './plugin-command.ts';

/** Without -f the log is written until no line came for this long: what the server has by then. */
const QUIET_MS = 1_000;

/** Writes the log of `run`; with `follow`, to the run's end, resolving with the exit code of its outcome. */
export async function writeRunLog(context: CommandContext, run: string, follow: boolean): Promise<number> {
  const connection = context.connection();
  const project = connection.namespace;
  const follower = new RunLogFollower(connection, {
    write: (line) => context.stdout(`${context.colour ? forTerminal(line) : withoutColours(line)}\n`),
    ...(follow ? {} : { quietMs: QUIET_MS }),
  });
  // While following, a run no controller claims is named once on stderr (issue 44 item 3).
  const unclaimed = follow ? watchUnclaimedRun(connection, project, run, context.stderr) : undefined;
  const ended = await follower.follow(project, run).finally(() => unclaimed?.stop());
  if (ended.kind === 'quiet') return 0;
  if (ended.kind === 'end') {
    if (follow) context.stderr(`run/${run} ${ended.phase}${ended.statusMessage ? `: ${ended.statusMessage}` : ''}\n`);
    return follow ? exitCodeOfPhase(ended.phase) : 0;
  }
  // `removed` (issue 35) or a last event this plugin does not know (a newer server's): the run record
  // says how the run ended, unless retention removed the run itself.
  if (ended.reason === 'RunRemoved')
    throw new PluginError(`error: run/${run} was removed before its end was seen: ${ended.message}`, 'runRemoved');
  const record = await getRun(connection, project, run);
  if (!FINAL_PHASES.includes(record.phase))
    throw new PluginError(
      `error: the log stream of run/${run} ended with "${ended.event}": ${ended.message}`,
      'server',
    );
  context.stderr(`run/${run} ${record.phase}: the log stream ended with "${ended.event}": ${ended.message}\n`);
  return follow ? exitCodeOfPhase(record.phase) : 0;
}
