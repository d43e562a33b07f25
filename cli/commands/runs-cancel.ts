// `kubectl platform runs cancel RUN`: a Pending run is Cancelled at once; a Running one is asked to stop
// (its controller sees the request at its next lease renewal and ends it Cancelled).
import { type RunRecord, runPath } from '../plugin/runs-client.ts';
import { formatRuns } from '../plugin/run-rows.ts';
import type { PluginCommand } from './plugin-command.ts';

export const runsCancel: PluginCommand = {
  words: ['runs', 'cancel'],
  arguments: ['RUN'],
  summary: 'Cancel a run (at once when Pending; a Running run is asked to stop)',
  flags: [],
  outputs: ['json', 'yaml', 'name'],
  examples: ['kubectl platform runs cancel 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31'],
  async run(context) {
    const connection = context.connection();
    const { body } = await connection.call(
      'POST',
      `${runPath(connection.namespace, context.line.positionals[0]!)}/cancel`,
    );
    const run = body as RunRecord;
    if (context.output !== 'table') context.stdout(formatRuns([run], context.output, { single: true }));
    else if (run.phase === 'Cancelled') context.stdout(`run/${run.id} cancelled\n`);
    else context.stdout(`run/${run.id} cancel requested (${run.phase}: its controller stops it)\n`);
    return 0;
  },
};
