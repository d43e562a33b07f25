// `runs get` on a run with run tasks (issue 48): each task's result under the run's row, as a kubectl table,
// and what the run waits for or why it stopped, in the server's terms (the plugin keeps no copy of the gate).
import type { TaskResult } from '../../shared/contract/rules/run-task-result.ts';
import type { RunRecord } from './runs-client.ts';
import { formatTable } from './table.ts';

const HEADERS = ['TASK', 'STAGE', 'ENFORCEMENT', 'STATUS', 'MESSAGE'];
const WIDE_HEADERS = [...HEADERS.slice(0, -1), 'OUTCOMES', 'URL', 'MESSAGE'];

/** The table of `results` (none: no lines), with a line naming any override and what the run waits for. */
export function runTaskLines(run: RunRecord, results: readonly TaskResult[], wide = false): string {
  if (results.length === 0) return '';
  const rows = results.map((result) => {
    const status = result.overriddenBy ? `${result.status} (overridden)` : result.status;
    const head = [result.task, result.stage, result.enforcement, status];
    const message = result.message || '<none>';
    return wide ? [...head, String(result.outcomes.length), result.url ?? '<none>', message] : [...head, message];
  });
  const notes = results
    .filter((result) => result.overriddenBy)
    .map((result) => `Overridden by ${result.overriddenBy}: ${result.overrideReason}\n`);
  const waiting =
    run.phase === 'AwaitingTasks'
      ? [
          `Waiting for its run tasks until ${results
            .map((result) => result.deadline)
            .sort()
            .at(-1)} (RUN_TASK_TIMEOUT)\n`,
        ]
      : [];
  return `\n${formatTable(wide ? WIDE_HEADERS : HEADERS, rows)}${[...notes, ...waiting].join('')}`;
}
