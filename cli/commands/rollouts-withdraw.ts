// `kubectl platform rollouts withdraw ROLLOUT --stage N|WORKSPACE [--approver NAME]` (issue 45 item 2):
// withdraws one approval of a stage's current revision through the withdraw route
// (POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/withdraw, authorized as `approve` on the
// Rollout): the caller's own, or NAME's as its record names it. The server closes the gate in the same
// write when the approvals left no longer meet the requirement; the command says who still has to approve.
import { printObject } from '../plugin/printed-objects.ts';
import { stageFromFlag } from '../plugin/rollout-stage-flag.ts';
import type { Rollout } from '../plugin/rollout-tree.ts';
import { usageError } from '../plugin/command-line.ts';
import { whoStillApproves } from '../../shared/contract/rules/rollout-stage.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';

export const rolloutsWithdraw: PluginCommand = {
  words: ['rollouts', 'withdraw'],
  arguments: ['ROLLOUT'],
  summary: "Withdraw an approval of a Rollout's stage (needs the approve verb on the Rollout)",
  flags: [
    {
      name: 'stage',
      value: 'N',
      description: 'the stage (required): its position as `rollouts get` numbers it (1, 2, ...) or its Workspace',
    },
    {
      name: 'approver',
      value: 'NAME',
      description: "whose approval, as the record names it (oidc:alice@example.com); default: the caller's own",
    },
  ],
  outputs: ['json', 'yaml'],
  examples: [
    'kubectl platform rollouts withdraw network-v2 --stage network-production',
    'kubectl platform rollouts withdraw network-v2 --stage 2 --approver oidc:alice@example.com',
  ],
  async run(context) {
    const connection = context.connection();
    const name = context.line.positionals[0]!;
    const given = stringFlag(context, 'stage');
    if (given === undefined) throw usageError('--stage is required: the stage whose approval to withdraw');
    const approver = stringFlag(context, 'approver');
    const stage = await stageFromFlag(connection, name, given);
    const path = `/api/v1alpha1/projects/${encodeURIComponent(connection.namespace)}/rollouts/${encodeURIComponent(name)}/withdraw`;
    const { body } = await connection.call('POST', path, { stage, ...(approver !== undefined ? { approver } : {}) });
    const rollout = body as Rollout & { apiVersion?: string };
    if (context.output === 'json' || context.output === 'yaml') context.stdout(printObject(rollout, context.output));
    else {
      const group = rollout.apiVersion?.split('/')[0];
      const withdrawnStage = rollout.spec.stages.find((candidate) => candidate.workspace === stage);
      const still = withdrawnStage ? whoStillApproves(rollout, withdrawnStage) : '';
      context.stdout(
        `rollout${group ? `.${group}` : ''}/${name} stage ${stage}: ${approver !== undefined ? `approval of ${approver}` : 'your approval'} withdrawn${still ? ` (${still})` : ''}\n`,
      );
    }
    return 0;
  },
};
