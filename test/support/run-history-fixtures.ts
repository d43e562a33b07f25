// Issue 35: runs with logs made through the controller's real path (claim, numbered chunks, finish),
// and what the database holds of a log, for the compaction and retention tests.
import type pg from 'pg';
import type { RunLogLine } from '../../shared/domain/runs/run.ts';
import type { LeaseHolder } from '../../shared/domain/runs/leases/run-leases.ts';
import type { TestRuns } from './test-runs.ts';

export const HISTORY_CONTROLLER: LeaseHolder = {
  principal: 'system:serviceaccount:platform:history-controller',
  principalType: 'serviceaccount',
};

let workspaces = 0;

/** A run of a Workspace of its own, claimed; `append` stores chunks as the controller does, `finish` ends it. */
export async function claimedRun(store: TestRuns, project = 'history') {
  const workspace = `history-${++workspaces}`;
  await store.records.createRun({ project, workspace, type: 'apply', principal: 'admin', principalType: 'admin' });
  const { run, lease } = (await store.leases.claim(HISTORY_CONTROLLER, 600_000, { project, workspace }))!;
  let nextSeq = lease.nextLogSeq;
  return {
    run,
    lease,
    /** Appends `lines` in chunks of `chunkLines` through RunLeases.appendChunk. */
    async append(lines: readonly string[], chunkLines = 500): Promise<void> {
      for (let offset = 0; offset < lines.length; offset += chunkLines) {
        const chunk = lines.slice(offset, offset + chunkLines);
        await store.logChunks.appendChunk(run.id, lease.id, HISTORY_CONTROLLER, nextSeq, chunk);
        nextSeq += chunk.length;
      }
    },
    finish: (phase: 'Succeeded' | 'Failed' = 'Succeeded') =>
      store.leases.finish(run.id, lease.id, HISTORY_CONTROLLER, phase, 'done'),
  };
}

/** A finished run whose log holds `lines`, appended through the controller's path. */
export async function finishedRun(store: TestRuns, lines: readonly string[], project?: string): Promise<string> {
  const claimed = await claimedRun(store, project);
  await claimed.append(lines);
  await claimed.finish();
  return claimed.run.id;
}

/** Every line of a run's log through TestRuns.readLogLines, in pages of `pageSize` from `afterSeq`. */
export async function readWholeLog(
  store: TestRuns,
  runId: string,
  pageSize = 500,
  afterSeq = 0,
): Promise<RunLogLine[]> {
  const lines: RunLogLine[] = [];
  for (let after = afterSeq; ; ) {
    const page = await store.logs.readLogLines(runId, after, pageSize);
    lines.push(...page);
    if (page.length < pageSize) return lines;
    after = page[page.length - 1]!.seq;
  }
}

/** Where a run's lines are: how many rows, and the ranges of its blocks in order. */
export async function storedLog(pool: pg.Pool, runId: string): Promise<{ rows: number; blocks: [number, number][] }> {
  const rows = await pool.query<{ count: string }>('SELECT count(*) FROM run_log_lines WHERE run_id = $1', [runId]);
  const blocks = await pool.query<{ first_seq: string; last_seq: string }>(
    'SELECT first_seq, last_seq FROM run_log_blocks WHERE run_id = $1 ORDER BY first_seq',
    [runId],
  );
  return {
    rows: Number(rows.rows[0]!.count),
    blocks: blocks.rows.map((block) => [Number(block.first_seq), Number(block.last_seq)]),
  };
}

/**
 * Every line number of the run in rows and in blocks, each once: 1..lastSeq, blocks first and
 * contiguous, the rows after them. Throws describing what is lost or duplicated.
 */
export async function expectEveryLineOnce(pool: pg.Pool, runId: string, lastSeq: number): Promise<void> {
  const { blocks } = await storedLog(pool, runId);
  const rowSeqs = (
    await pool.query<{ seq: string }>('SELECT seq FROM run_log_lines WHERE run_id = $1 ORDER BY seq', [runId])
  ).rows.map((row) => Number(row.seq));
  const seqs = [
    ...blocks.flatMap(([first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i)),
    ...rowSeqs,
  ];
  const expected = Array.from({ length: lastSeq }, (_, i) => i + 1);
  if (seqs.length !== expected.length || seqs.some((seq, index) => seq !== expected[index])) {
    throw new Error(
      `run ${runId}: lines stored ${seqs.length} (blocks ${JSON.stringify(blocks)}, ${rowSeqs.length} rows from ${rowSeqs[0]}), expected 1..${lastSeq} once each`,
    );
  }
}

/** Varied lines: ANSI colours, unicode, tabs, empty lines, a line with line breaks inside, backslashes. */
export function variedLines(count: number, tag = 'line'): string[] {
  const shapes = [
    (i: number) => `\u001b[1mmodule.network.aws_subnet.private[${i}]: Creating...\u001b[0m`,
    (i: number) => `  \u001b[32m+\u001b[0m cidr_block = "10.${i % 256}.0.0/16"\t# ${tag} ${i}`,
    () => '',
    (i: number) => `日本語のログ ${i} — ünïcødé ✓ 🚀`,
    (i: number) => `multi\nline ${i}\r\nwith breaks`,
    (i: number) => `C:\\path\\to\\file ${i} "quoted" 'single' \\n not a break`,
    (i: number) => `${tag} ${i} ${'x'.repeat(i % 300)}`,
  ];
  return Array.from({ length: count }, (_, i) => shapes[i % shapes.length]!(i));
}
