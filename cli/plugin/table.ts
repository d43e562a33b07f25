// Tables as kubectl prints them: upper-case headers, each column as wide as its widest cell plus
// three spaces (kubectl's tabwriter padding), the last column not padded. A cell kubectl would show as
// `<none>` says so itself.

const PADDING = 3;

/** Lays out `rows` under `headers`; `minimumWidths` keeps later rows of a watch in line with the first. */
export function formatTable(
  headers: readonly string[],
  rows: readonly string[][],
  minimumWidths: readonly number[] = [],
): string {
  const cells = [headers, ...rows];
  const widths = headers.map((_, column) =>
    Math.max(minimumWidths[column] ?? 0, ...cells.map((row) => row[column]?.length ?? 0)),
  );
  return cells
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]! + PADDING))).join(''),
    )
    .map((line) => `${line}\n`)
    .join('');
}
