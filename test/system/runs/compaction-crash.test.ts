// Issue 35, item 1: "nothing lost if the process dies mid-compaction". A compactor runs as its own OS
// process and is killed with SIGKILL while a step's transaction has written (its blocks inserted,
// nothing committed): every line is still there exactly once, in the rows or in committed blocks, and
// every reader reads the log as before. A later pass finishes the work from where it was left.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_BLOCK_LINES } from '../../../shared/domain/runs/logs/run-log-blocks.ts';
import { RunLogCompactor } from '../../../shared/domain/runs/logs/run-log-compaction.ts';
import { COMPACTING_PROCESS } from '../../support/compacting-process.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';
import {
  expectEveryLineOnce,
  finishedRun,
  readWholeLog,
  storedLog,
  variedLines,
} from '../../support/run-history-fixtures.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';

const { database, store } = useRunStore();
const LINES = 100_000;
/** Lines per step of the killed process: a step long enough to be caught with its transaction open. */
const STEP_LINES = 20_000;

/** The compacting process's connection with a transaction that has written (it holds an xid): the step under way. */
async function writingStep(): Promise<boolean> {
  const { rows } = await database().pool.query(
    'SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND backend_xid IS NOT NULL',
    [COMPACTING_PROCESS],
  );
  return rows.length > 0;
}

/** Starts the compacting process on `runId`; SIGKILLs it once a step after `committedBlocks` blocks is writing. */
async function killMidStep(runId: string, committedBlocks: number): Promise<{ signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['test/support/compacting-process.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: database().connectionString,
      RUN_ID: runId,
      STEP_LINES: String(STEP_LINES),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (_code, signal) => resolve({ signal })),
  );
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the compacting process ended before it was killed: ${output}`);
    const { blocks } = await storedLog(database().pool, runId);
    if (blocks.length >= committedBlocks && (await writingStep())) break;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  child.kill('SIGKILL');
  const ended = await exited;
  // The server ends the dead client's session, rolling its transaction back and releasing the run's lock.
  await expect
    .poll(
      async () =>
        (
          await database().pool.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
            COMPACTING_PROCESS,
          ])
        ).rows[0].n,
      { timeout: 30_000 },
    )
    .toBe(0);
  return ended;
}

describe('Issue 35, item 1: a compactor killed mid-compaction loses and duplicates nothing', () => {
  it('SIGKILL during one step, then during a later one: every line once, readers unchanged; a later pass completes it', async () => {
    const lines = variedLines(LINES, 'crash');
    const runId = await finishedRun(store(), lines);
    const before = await readWholeLog(store(), runId, 5_000);
    const blocksPerStep = STEP_LINES / MAX_BLOCK_LINES;

    let committed = 0;
    for (const round of ['first kill', 'second kill']) {
      expect(await killMidStep(runId, committed), round).toEqual({ signal: 'SIGKILL' });
      // The killed step left nothing; the steps before it stay committed; the rest are rows.
      const stored = await storedLog(database().pool, runId);
      expect(stored.blocks.length % blocksPerStep, round).toBe(0);
      expect(stored.blocks.length, round).toBeGreaterThanOrEqual(committed);
      expect(stored.rows, round).toBe(LINES - stored.blocks.length * MAX_BLOCK_LINES);
      await expectEveryLineOnce(database().pool, runId, LINES);
      expect(await readWholeLog(store(), runId, 5_000), round).toEqual(before);
      expect(await readWholeLog(store(), runId, 777, 12_345), round).toEqual(before.slice(12_345));
      committed = stored.blocks.length + blocksPerStep;
    }

    // The next pass (here, in this process) takes the run from where it was left.
    const { rows } = await storedLog(database().pool, runId);
    const done = await new RunLogCompactor(poolDatabase(database().pool), {
      delayMs: 0,
      linesPerStep: STEP_LINES,
      restRatio: 0,
    }).compactRun(runId);
    expect(done).toMatchObject({ lines: rows, complete: true });
    expect(await storedLog(database().pool, runId)).toMatchObject({ rows: 0 });
    await expectEveryLineOnce(database().pool, runId, LINES);
    expect(await readWholeLog(store(), runId, 5_000)).toEqual(before);
  }, 300_000);
});
