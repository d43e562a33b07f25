// `kubectl platform runs approve PLAN_RUN [--message M] [--follow]`: applies what a succeeded plan showed
// (the approvals contract: POST .../runs/{run}/apply, authorized as `approve` on workspaces/runs).
// The server refuses a plan that is not the Workspace's newest (409 PlanStale), one too old, or a run
// that is not a succeeded plan, and an apply the Project's windows or freeze refuse unless --override-reason is
// given; the plugin prints the refusal in kubectl's words. Where the Project's policy asks more approvals of the
// Workspace's applies (issue 45, item 2), the server records this one and answers 202 with the plan: the command
// says who still has to approve, and exits 0 (there is no apply to follow yet).
import { describeStillNeeded } from '../../shared/contract/rules/rollout-stage.ts';
import { formatRuns } from '../plugin/run-rows.ts';
import { type RunRecord, runPath } from '../plugin/runs-client.ts';
import { OVERRIDE_REASON_FLAG, overrideOf, withOverrideHint } from './override-reason.ts';
import { type CommandContext, type PluginCommand, stringFlag } from './plugin-command.ts';
import { startedRun } from './runs-start.ts';

export const runsApprove: PluginCommand = {
  words: ['runs', 'approve'],
  arguments: ['PLAN_RUN'],
  summary:
    "Approve a succeeded plan: start the apply of exactly what it planned (once the approvals meet the Project's policy)",
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
    const { status, body } = await connection
      .call('POST', `${runPath(connection.namespace, context.line.positionals[0]!)}/apply`, {
        ...(message !== undefined ? { message } : {}),
        ...override,
      })
      .catch((error: unknown) => {
        throw withOverrideHint(error);
      });
    if (status === 202) return approvalRecorded(context, body as RunRecord);
    return startedRun(context, body as RunRecord);
  },
};

/** A 202: the approval is recorded and the plan waits for more (the answer is the plan's run). */
function approvalRecorded(context: CommandContext, plan: RunRecord): number {
  if (context.output !== 'table') context.stdout(formatRuns([plan], context.output, { single: true }));
  else {
    const needed = plan.planApproval?.stillNeeded;
    context.stdout(
      `run/${plan.id}: approval recorded${needed ? `; still needed: ${describeStillNeeded(needed)}` : ''}\n`,
    );
  }
  return 0;
}
