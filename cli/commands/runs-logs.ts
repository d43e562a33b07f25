// `kubectl platform runs logs RUN [-f]`: the run's log; with -f to the run's end, exiting with its outcome.
import { writeRunLog } from './follow-run.ts';
import { type PluginCommand, booleanFlag } from './plugin-command.ts';

export const runsLogs: PluginCommand = {
  words: ['runs', 'logs'],
  arguments: ['RUN'],
  summary: "Print a run's log; with -f follow it to the run's end and exit with its outcome",
  flags: [
    {
      name: 'follow',
      short: 'f',
      description:
        'follow the log until the run ends; exit 0 Succeeded, 1 Failed, 2 Cancelled (resumes by itself after a dropped connection)',
    },
  ],
  outputs: [],
  examples: [
    'kubectl platform runs logs 0196f0c2-5d7e-7b61-9a4e-2f9d1e0c8a31 -f',
    'kubectl platform runs logs RUN --no-color > plan.txt',
  ],
  run: (context) => writeRunLog(context, context.line.positionals[0]!, booleanFlag(context, 'follow')),
};
