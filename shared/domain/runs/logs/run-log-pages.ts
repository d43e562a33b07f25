import type pg from 'pg';
import { BoundedMap } from '../../../base/caching/bounded-map.ts';
import type { RunLogLine } from '../run.ts';
import { RunLogRemovedError, RunNotFoundError } from '../run-errors.ts';
import { linesOfBlock, type LogBlockEncoding } from './run-log-blocks.ts';

/** Runs one statement; failures classified as the store classifies them. */
type Query = <Row extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/**
 * The page as rows, the statement of the read before compaction existed: the read of a live run
 * (every stream's catch-up and follow) costs what it did. It is the whole answer when its first row
 * is the line right after `afterSeq`: blocks only ever hold lines before every row, so the page has
 * nothing in a block. (The rows of a log that retention is removing are still served until they are
 * deleted, a slice at a time, once the removal is recorded: the next page says it was removed.)
 */
const ROWS_PAGE = 'SELECT seq, line FROM run_log_lines WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3';

/**
 * The page wherever its lines are, for everything else (a compacted log, an empty page, a run that
 * is gone or whose log was removed): migration 007's `run_log_page`, one statement, so one snapshot
 * (a compaction committing meanwhile is seen wholly or not at all, never a line twice or not at
 * all). Its rows: the run's own (seq 0: `log_removed_at` in epoch ms), the blocks overlapping the
 * page (seq -first_seq: `last_seq encoding`, and the body), then the rows after the last block.
 */
const LOG_PAGE = 'SELECT seq, line, body FROM run_log_page($1, $2, $3)';

/** Compacted runs a process remembers (about 100 bytes each), so that their pages take one statement. */
const COMPACTED_RUNS_REMEMBERED = 1_000;

/**
 * Pages of run logs, the same whether their lines are rows or compacted. A page of a live run is one
 * statement, as before compaction existed; a page of a compacted run is one statement too once this
 * process has seen the run compacted (the first costs two).
 */
export class RunLogPages {
  readonly #query: Query;
  readonly #compacted = new BoundedMap<string, true>(COMPACTED_RUNS_REMEMBERED);

  constructor(query: Query) {
    this.#query = query;
  }

  /**
   * Up to `limit` lines of run `runId` with `seq > afterSeq`, in order. Throws RunNotFoundError when
   * the run is gone, RunLogRemovedError when retention removed its log.
   */
  async read(runId: string, afterSeq: number, limit: number): Promise<RunLogLine[]> {
    if (!this.#compacted.has(runId)) {
      const { rows } = await this.#query<{ seq: string; line: string }>(ROWS_PAGE, [runId, afterSeq, limit]);
      if (rows.length > 0 && Number(rows[0]!.seq) === afterSeq + 1)
        return rows.map((row) => ({ seq: Number(row.seq), line: row.line }));
    }
    const { rows } = await this.#query<{ seq: string; line: string | null; body: Buffer | null }>(LOG_PAGE, [
      runId,
      afterSeq,
      limit,
    ]);
    const run = rows.find((row) => row.seq === '0');
    if (!run) throw new RunNotFoundError(runId);
    if (run.line !== null) throw new RunLogRemovedError(runId, new Date(Number(run.line)).toISOString());
    const page: RunLogLine[] = [];
    const blocks = rows.filter((row) => row.seq.startsWith('-')).sort((a, b) => Number(b.seq) - Number(a.seq));
    if (blocks.length > 0) this.#compacted.set(runId, true);
    for (const block of blocks) {
      const firstSeq = -Number(block.seq);
      const [lastSeq, encoding] = block.line!.split(' ') as [string, LogBlockEncoding];
      const from = Math.max(firstSeq, afterSeq + 1);
      const stored = { firstSeq, lastSeq: Number(lastSeq), encoding, body: block.body! };
      for (const [index, line] of linesOfBlock(stored, from, limit - page.length).entries())
        page.push({ seq: from + index, line });
    }
    // The rows follow the blocks: a line is a row or in a block, never both (compaction moves it in one transaction).
    const after = rows
      .filter((row) => Number(row.seq) > 0)
      .map((row) => ({ seq: Number(row.seq), line: row.line! }))
      .sort((a, b) => a.seq - b.seq);
    for (const line of after) if (page.length < limit) page.push(line);
    return page;
  }
}
