// `kubectl platform runs get RUN`: one run, as a table row (with, for a succeeded plan, whether it may
// still be applied, who approved it so far and who still has to; for an apply an incident commander let through, who overrode what and why; and
// the results of its run tasks) or whole (-o json|yaml).
import { getRun, getTaskResults } from '../plugin/runs-client.ts';
import { runTaskLines } from '../plugin/run-task-lines.ts';
import { planApprovalLine, planApproverLines } from '../plugin/plan-approval-line.ts';
import { formatRuns } from '../plugin/run-rows.ts';
import type { PluginCommand } from './plugin-command.ts';

export const runsGet: PluginCommand = {
  words: ['runs', 'get'],
  arguments: ['RUN'],
  summary: 'Show one run',
  flags: [],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: ['kubectl platform runs get 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31 -o yaml'],
  async run(context) {
    const connection = context.connection();
    const run = await getRun(connection, connection.namespace, context.line.positionals[0]!);
    context.stdout(formatRuns([run], context.output, { single: true }));
    // A table says in one more line whether a succeeded plan may still be applied (issue 44, item 15).
    const table = context.output === 'table' || context.output === 'wide';
    const approval = table ? planApprovalLine(run) : undefined;
    // Issue 45, items 2 and 5: the plan's approvals so far and who still has to approve, before the verdict.
    if (table) for (const line of planApproverLines(run)) context.stdout(`${line}\n`);
    if (approval) context.stdout(`${approval}\n`);
    // An override of the Project's windows or freeze is recorded on the run it let through (issue 45, item 5).
    if (table && run.override)
      context.stdout(`Overridden by ${run.override.by} (${run.override.overrode}): ${run.override.reason}\n`);
    // Issue 48: the run's tasks, each with its result, under the run.
    if (table)
      context.stdout(
        runTaskLines(run, await getTaskResults(connection, run.project, run.id), context.output === 'wide'),
      );
    return 0;
  },
};
