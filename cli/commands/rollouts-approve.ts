// `kubectl platform rollouts approve ROLLOUT [--stage N|WORKSPACE]`: approves a stage through the approve
// route (the approvals contract: POST /api/v1alpha1/projects/{project}/rollouts/{rollout}/approve,
// authorized as `approve` on the Rollout like every other path that approves). Without --stage, the
// stage that awaits approval. The server's refusals (403 without `approve`; 409 when the stage needs
// no approval, is approved already, or the caller wrote the revision and four eyes are on; 409 when the
// Project's windows, freeze or a soak time refuse, unless --override-reason is given) are printed in kubectl's words.
import type { PlatformConnection } from '../plugin/platform-connection.ts';
import { PluginError } from '../plugin/plugin-error.ts';
import { printObject } from '../plugin/printed-objects.ts';
import { readRollout, stageFromFlag } from '../plugin/rollout-stage-flag.ts';
import { whoStillApproves } from '../../shared/contract/rules/rollout-stage.ts';
import { type Rollout, needsApproval } from '../plugin/rollout-tree.ts';
import { OVERRIDE_REASON_FLAG, overrideOf, withOverrideHint } from './override-reason.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';

export const rolloutsApprove: PluginCommand = {
  words: ['rollouts', 'approve'],
  arguments: ['ROLLOUT'],
  summary: 'Approve a stage of a Rollout (needs the approve verb on the Rollout)',
  flags: [
    {
      name: 'stage',
      value: 'N',
      description:
        'the stage: its position as `rollouts get` numbers it (1, 2, ...) or its Workspace; default: the stage awaiting approval',
    },
    OVERRIDE_REASON_FLAG,
  ],
  outputs: ['json', 'yaml'],
  examples: [
    'kubectl platform rollouts approve network-v2',
    'kubectl platform rollouts approve network-v2 --stage network-production',
    'kubectl platform rollouts approve network-v2 --override-reason "hotfix for incident 4711"',
  ],
  async run(context) {
    const connection = context.connection();
    const name = context.line.positionals[0]!;
    const override = overrideOf(context);
    const stage = await stageToApprove(connection, name, stringFlag(context, 'stage'));
    const path = `/api/v1alpha1/projects/${encodeURIComponent(connection.namespace)}/rollouts/${encodeURIComponent(name)}/approve`;
    const { body } = await connection.call('POST', path, { stage, ...override }).catch((error: unknown) => {
      throw withOverrideHint(error);
    });
    const approved = body as Rollout & { apiVersion?: string };
    if (context.output === 'json' || context.output === 'yaml') context.stdout(printObject(approved, context.output));
    else {
      // kubectl names an object by its resource and group: rollout.platform.dev/network-v2.
      const group = approved.apiVersion?.split('/')[0];
      const approvedStage = approved.spec.stages.find((candidate) => candidate.workspace === stage);
      // A stage that needs more approvers (issue 45 item 2): the approval is recorded, the gate still shut.
      const outcome =
        approvedStage && approvedStage.approved !== true
          ? `: approval recorded (${whoStillApproves(approved, approvedStage)})`
          : ' approved';
      context.stdout(`rollout${group ? `.${group}` : ''}/${name} stage ${stage}${outcome}\n`);
    }
    return 0;
  },
};

/** The Workspace of the stage to approve: named, numbered (1-based), or the one awaiting approval. */
async function stageToApprove(
  connection: PlatformConnection,
  name: string,
  given: string | undefined,
): Promise<string> {
  if (given !== undefined) return stageFromFlag(connection, name, given);
  const rollout = await readRollout(connection, name);
  const awaiting = rollout.status?.stages?.find((stage) => stage.phase === 'AwaitingApproval');
  if (awaiting) return awaiting.workspace;
  const pending = rollout.spec.stages.filter(
    (stage) =>
      needsApproval(stage) &&
      !stage.approved &&
      !rollout.status?.stages?.some(
        (observed) => observed.workspace === stage.workspace && observed.approval?.approvedBy,
      ),
  );
  if (pending.length === 1) return pending[0]!.workspace;
  throw new PluginError(
    pending.length === 0
      ? `error: no stage of rollout ${name} waits for an approval`
      : `error: stages ${pending.map((stage) => stage.workspace).join(', ')} of rollout ${name} wait for an approval: pass --stage`,
    'usage',
  );
}
