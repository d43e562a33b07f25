import type pg from 'pg';
import type { RunLogLine } from './run.ts';
import { RunLogRemovedError, RunNotFoundError } from './run-errors.ts';
import { decodeLogBlock, type LogBlockEncoding } from './run-log-blocks.ts';

/** Runs one statement; failures classified as the store classifies them. */
type Query = <Row extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;

interface PageRow {
  part: 'run' | 'block' | 'line';
  seq: string | null;
  line: string | null;
  first_seq: string | null;
  last_seq: string | null;
  encoding: LogBlockEncoding | null;
  body: Buffer | null;
  log_removed_at: Date | null;
}

/**
 * A page of a run's log, wherever its lines are: the compressed blocks that cover lines 1..n of a
 * finished run, then the rows of run_log_lines after them (all of a live run's lines). One
 * statement, so one snapshot: a compaction committing meanwhile (rows moved into a block in one
 * transaction) is seen wholly or not at all, never a line twice or not at all. The run's own row
 * comes along: whether it exists, and whether retention removed its log.
 *
 * The blocks read are exactly those overlapping the page: from the one holding line afterSeq + 1
 * (found by one probe of the primary key) to the one holding line afterSeq + limit.
 */
const LOG_PAGE = `
  SELECT 'run' AS part, NULL::bigint AS seq, NULL::text AS line, NULL::bigint AS first_seq, NULL::bigint AS last_seq,
         NULL::text AS encoding, NULL::bytea AS body, log_removed_at
  FROM runs WHERE id = $1
  UNION ALL
  SELECT 'block', NULL, NULL, first_seq, last_seq, encoding, body, NULL
  FROM run_log_blocks
  WHERE run_id = $1 AND last_seq > $2::bigint AND first_seq <= $2::bigint + $3::int
    AND first_seq >= coalesce(
      (SELECT max(first_seq) FROM run_log_blocks WHERE run_id = $1 AND first_seq <= $2::bigint + 1), 1)
  UNION ALL
  (SELECT 'line', seq, line, NULL, NULL, NULL, NULL, NULL
   FROM run_log_lines WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq LIMIT $3::int)`;

/**
 * Up to `limit` lines of run `runId` with `seq > afterSeq`, in order, the same whether they are
 * rows or compacted. Throws RunNotFoundError when the run is gone, RunLogRemovedError when
 * retention removed its log.
 */
export async function readLogPage(query: Query, runId: string, afterSeq: number, limit: number): Promise<RunLogLine[]> {
  const { rows } = await query<PageRow>(LOG_PAGE, [runId, afterSeq, limit]);
  const run = rows.find((row) => row.part === 'run');
  if (!run) throw new RunNotFoundError(runId);
  if (run.log_removed_at) throw new RunLogRemovedError(runId, run.log_removed_at.toISOString());
  const page: RunLogLine[] = [];
  const blocks = rows
    .filter((row) => row.part === 'block')
    .map((row) => ({
      firstSeq: Number(row.first_seq),
      lastSeq: Number(row.last_seq),
      encoding: row.encoding!,
      body: row.body!,
    }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
  for (const lines of await Promise.all(blocks.map(decodeLogBlock))) {
    for (const line of lines) if (line.seq > afterSeq && page.length < limit) page.push(line);
  }
  const stored = rows
    .filter((row) => row.part === 'line')
    .map((row) => ({ seq: Number(row.seq), line: row.line! }))
    .sort((a, b) => a.seq - b.seq);
  // The rows follow the blocks: a line is a row or in a block, never both (compaction moves it in one transaction).
  for (const line of stored) if (page.length < limit) page.push(line);
  return page;
}
