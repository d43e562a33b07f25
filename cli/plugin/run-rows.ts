// A run as a table row (`runs list`, `runs get`, `runs start`), in kubectl's column style.
import { humanAge, humanDuration } from './human-duration.ts';
import { type OutputFormat, printObject } from './printed-objects.ts';
import type { RunRecord } from './runs-client.ts';
import { formatTable } from './table.ts';

/** What kubectl prints for an empty cell. */
const NONE = '<none>';

export const RUN_HEADERS = ['RUN', 'WORKSPACE', 'TYPE', 'PHASE', 'AGE'];
export const WIDE_RUN_HEADERS = [...RUN_HEADERS, 'DURATION', 'PRINCIPAL', 'MESSAGE'];
/** A run id is a UUID: the first column of every row is as wide, so a watch's rows stay in line. */
export const RUN_MINIMUM_WIDTHS = [36, 9, 5, 9];

/** The row of `run`; `wide` adds how long it ran, who started it and its message. */
export function runRow(run: RunRecord, wide: boolean, now = Date.now()): string[] {
  const row = [run.id, run.workspace, run.type, run.phase, humanAge(run.createdAt, now)];
  if (!wide) return row;
  const ran = run.startedAt
    ? (run.finishedAt ? Date.parse(run.finishedAt) : now) - Date.parse(run.startedAt)
    : undefined;
  return [...row, ran === undefined ? NONE : humanDuration(ran), run.principal, run.message || NONE];
}

/** Runs in the -o format: a table (with its header unless `headers` is false), JSON or YAML, or `run/<id>` names. */
export function formatRuns(
  runs: readonly RunRecord[],
  format: OutputFormat,
  options: { single?: boolean; headers?: boolean; minimumWidths?: number[] } = {},
): string {
  if (format === 'json' || format === 'yaml') return printObject(options.single ? runs[0] : { items: runs }, format);
  if (format === 'name') return runs.map((run) => `run/${run.id}\n`).join('');
  const wide = format === 'wide';
  const table = formatTable(
    wide ? WIDE_RUN_HEADERS : RUN_HEADERS,
    runs.map((run) => runRow(run, wide)),
    options.minimumWidths ?? RUN_MINIMUM_WIDTHS,
  );
  return options.headers === false ? table.slice(table.indexOf('\n') + 1) : table;
}

/** The widths a table of `runs` gives its columns: later rows of a watch are laid out to them. */
export function runColumnWidths(runs: readonly RunRecord[], format: OutputFormat): number[] {
  const wide = format === 'wide';
  const headers = wide ? WIDE_RUN_HEADERS : RUN_HEADERS;
  return headers.map((header, column) =>
    Math.max(RUN_MINIMUM_WIDTHS[column] ?? 0, header.length, ...runs.map((run) => runRow(run, wide)[column]!.length)),
  );
}
