// `kubectl platform runs withdraw PLAN_RUN [--approver NAME]` (issue 45, items 2 and 5): withdraws one
// approval of a succeeded plan for apply through the withdraw route
// (POST /api/v1alpha1/projects/{project}/runs/{plan}/withdraw, authorized as `approve` on workspaces/runs):
// the caller's own, or NAME's as its record names it. The server answers with the plan; the command says who
// still has to approve. An apply already started is 409 ApplyAlreadyStarted, no such approval 404 ApprovalNotFound.
import { planStillNeeds } from '../../shared/contract/rules/plan-approval-progress.ts';
import { formatRuns } from '../plugin/run-rows.ts';
import { type RunRecord, runPath } from '../plugin/runs-client.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';

export const runsWithdraw: PluginCommand = {
  words: ['runs', 'withdraw'],
  arguments: ['PLAN_RUN'],
  summary: "Withdraw an approval of a succeeded plan (needs the approve verb on its Workspace's runs)",
  flags: [
    {
      name: 'approver',
      value: 'NAME',
      description: "whose approval, as the record names it (oidc:alice@example.com); default: the caller's own",
    },
  ],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: [
    'kubectl platform runs withdraw 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31',
    'kubectl platform runs withdraw 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31 --approver oidc:alice@example.com',
  ],
  async run(context) {
    const connection = context.connection();
    const approver = stringFlag(context, 'approver');
    const { body } = await connection.call(
      'POST',
      `${runPath(connection.namespace, context.line.positionals[0]!)}/withdraw`,
      approver !== undefined ? { approver } : {},
    );
    const plan = body as RunRecord;
    if (context.output !== 'table') context.stdout(formatRuns([plan], context.output, { single: true }));
    else {
      const still = plan.planApproval ? planStillNeeds(plan.planApproval) : '';
      context.stdout(
        `run/${plan.id}: ${approver !== undefined ? `approval of ${approver}` : 'your approval'} withdrawn${still ? `; still needed: ${still}` : ''}\n`,
      );
    }
    return 0;
  },
};
