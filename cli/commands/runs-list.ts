// `kubectl platform runs list [-w] [--workspace W] [--limit N]`: the Project's runs, oldest of the newest N
// first (the newest next to the prompt), and with -w every run that starts or changes phase after.
import { type PluginCommand, booleanFlag, stringFlag } from './plugin-command.ts';
import { usageError } from '../plugin/command-line.ts';
import { formatRuns, runColumnWidths } from '../plugin/run-rows.ts';
import { listRuns, type RunRecord } from '../plugin/runs-client.ts';

/** How often a watch asks for the newest runs (the run routes have no watch of their own). */
const RUNS_WATCH_INTERVAL_MS = 2_000;
const DEFAULT_LIMIT = 50;

export const runsList: PluginCommand = {
  words: ['runs', 'list'],
  arguments: [],
  summary: 'List the runs of the Project (the namespace), newest last',
  flags: [
    {
      name: 'watch',
      short: 'w',
      description: 'after listing, print each run that starts or changes phase (polls every 2 s)',
    },
    { name: 'workspace', value: 'W', description: 'only the runs of Workspace W' },
    {
      name: 'limit',
      value: 'N',
      description: `how many of the newest runs to list (default ${DEFAULT_LIMIT}, at most 5000)`,
    },
  ],
  outputs: ['wide', 'json', 'yaml', 'name'],
  examples: ['kubectl platform runs list -n demo', 'kubectl platform runs list --workspace network-staging -w'],
  async run(context) {
    const limit = Number(stringFlag(context, 'limit') ?? DEFAULT_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > 5000)
      throw usageError(`--limit must be a whole number from 1 to 5000, not "${stringFlag(context, 'limit')}"`);
    const connection = context.connection();
    const query = { workspace: stringFlag(context, 'workspace'), limit };
    const runs = (await listRuns(connection, connection.namespace, query)).reverse();
    if (!booleanFlag(context, 'watch')) {
      if (runs.length === 0 && (context.output === 'table' || context.output === 'wide'))
        context.stderr(`No runs found in ${connection.namespace} namespace.\n`);
      else context.stdout(formatRuns(runs, context.output));
      return 0;
    }
    // A watch prints the list, then each run that changes: in a table, each row laid out to the first
    // table's columns; as JSON or YAML, each run on its own (kubectl get -w -o json prints objects too).
    const widths = runColumnWidths(runs, context.output);
    const objects = context.output === 'json' || context.output === 'yaml';
    const print = (changed: RunRecord[], headers: boolean) => {
      if (!objects) context.stdout(formatRuns(changed, context.output, { headers, minimumWidths: widths }));
      else
        for (const run of changed)
          context.stdout(
            `${context.output === 'yaml' ? '---\n' : ''}${formatRuns([run], context.output, { single: true })}`,
          );
    };
    print(runs, true);
    const seen = new Map(runs.map((run) => [run.id, run.phase]));
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, RUNS_WATCH_INTERVAL_MS));
      const newest = (
        await listRuns(connection, connection.namespace, { ...query, limit: Math.min(limit, 500) })
      ).reverse();
      const changed = newest.filter((run) => seen.get(run.id) !== run.phase);
      for (const run of changed) seen.set(run.id, run.phase);
      if (changed.length > 0) print(changed, false);
    }
  },
};
