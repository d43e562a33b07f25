// `kubectl platform runs start WORKSPACE --plan|--apply [--message M] [--follow]`: starts a run; with
// --follow writes its log and exits with its outcome, so a CI job can wait on it.
import { usageError } from '../plugin/command-line.ts';
import { PluginError } from '../plugin/plugin-error.ts';
import { formatRuns } from '../plugin/run-rows.ts';
import { type RunRecord, workspaceRunsPath } from '../plugin/runs-client.ts';
import { writeRunLog } from './follow-run.ts';
import { OVERRIDE_REASON_FLAG, overrideOf, withOverrideHint } from './override-reason.ts';
import { type CommandContext, type PluginCommand, booleanFlag, stringFlag } from './plugin-command.ts';

export const runsStart: PluginCommand = {
  words: ['runs', 'start'],
  arguments: ['WORKSPACE'],
  summary: 'Start a plan or an apply of a Workspace',
  flags: [
    { name: 'plan', description: 'start a plan' },
    { name: 'apply', description: 'start an apply (only where the Workspace allows one without a reviewed plan)' },
    { name: 'message', short: 'm', value: 'M', description: 'why the run is started; recorded with it' },
    { name: 'follow', short: 'f', description: "write the run's log until it ends and exit with its outcome" },
    { ...OVERRIDE_REASON_FLAG, description: `with --apply: ${OVERRIDE_REASON_FLAG.description}` },
  ],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: [
    'kubectl platform runs start network-staging --plan --follow',
    'kubectl platform runs start network-staging --apply -m "hotfix" -o name',
  ],
  async run(context) {
    const plan = booleanFlag(context, 'plan');
    if (plan === booleanFlag(context, 'apply')) throw usageError('give exactly one of --plan and --apply');
    const message = stringFlag(context, 'message');
    const override = overrideOf(context);
    // A plan is never gated by the windows or the freeze: there is nothing to override.
    if (plan && override.override) throw usageError('--override-reason goes with --apply only');
    const connection = context.connection();
    const workspace = context.line.positionals[0]!;
    const { body } = await connection
      .call('POST', workspaceRunsPath(connection.namespace, workspace), {
        type: plan ? 'plan' : 'apply',
        ...(message !== undefined ? { message } : {}),
        ...override,
      })
      .catch((error: unknown) => {
        throw withOverrideHint(withCommandHint(error, workspace));
      });
    return startedRun(context, body as RunRecord);
  },
};

/**
 * The server's ApplyNeedsPlan names the steps in the API's words; a plugin user is told the commands
 * (issue 44, item 15).
 */
function withCommandHint(error: unknown, workspace: string): unknown {
  if (!(error instanceof PluginError) || error.serverReason !== 'ApplyNeedsPlan') return error;
  return new PluginError(
    `${error.message}\nTo apply a reviewed plan: kubectl platform runs start ${workspace} --plan, then apply the plan it makes with kubectl platform runs approve RUN`,
    'server',
    error.serverReason,
  );
}

/**
 * Prints a run just started (`run/<id> created`, or as -o asks) and follows it when asked; while
 * following, the `created` line goes to standard error, so standard output is the log alone.
 */
export async function startedRun(context: CommandContext, run: RunRecord): Promise<number> {
  const follow = booleanFlag(context, 'follow');
  if (context.output !== 'table') context.stdout(formatRuns([run], context.output, { single: true }));
  else
    (follow ? context.stderr : context.stdout)(`run/${run.id} created (${run.type} of workspace ${run.workspace})\n`);
  return follow ? writeRunLog(context, run.id, true) : 0;
}
