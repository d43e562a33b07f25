// `kubectl platform runs approve PLAN_RUN [--message M] [--follow]`: applies what a succeeded plan showed
// (the approvals contract: POST .../runs/{run}/apply, authorized as `approve` on workspaces/runs).
// The server refuses a plan that is not the Workspace's newest (409 PlanStale), one too old, or a run
// that is not a succeeded plan, and an apply the Project's windows or freeze refuse unless --override-reason is
// given; the plugin prints the refusal in kubectl's words.
import { type RunRecord, runPath } from '../plugin/runs-client.ts';
import { OVERRIDE_REASON_FLAG, overrideOf, withOverrideHint } from './override-reason.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';
import { startedRun } from './runs-start.ts';

export const runsApprove: PluginCommand = {
  words: ['runs', 'approve'],
  arguments: ['PLAN_RUN'],
  summary: 'Approve a succeeded plan: start the apply of exactly what it planned',
  flags: [
    { name: 'message', short: 'm', value: 'M', description: "the apply run's message" },
    { name: 'follow', short: 'f', description: "write the apply's log until it ends and exit with its outcome" },
    OVERRIDE_REASON_FLAG,
  ],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: ['kubectl platform runs approve 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31 --follow'],
  async run(context) {
    const message = stringFlag(context, 'message');
    const override = overrideOf(context);
    const connection = context.connection();
    const { body } = await connection
      .call('POST', `${runPath(connection.namespace, context.line.positionals[0]!)}/apply`, {
        ...(message !== undefined ? { message } : {}),
        ...override,
      })
      .catch((error: unknown) => {
        throw withOverrideHint(error);
      });
    return startedRun(context, body as RunRecord);
  },
};
