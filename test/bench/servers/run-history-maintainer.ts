// Issue 35's bench: the history's maintenance as a process of its own, as a replica of the resources
// function runs it beside the internal function's processes: on each IPC message it runs one pass
// with the production classes and settings (steps of 5,000 lines with a rest as long after each,
// batches of 100 runs), compaction without the delay (a backlog, unpaced, when asked), and answers
// with what it did.
import { createDatabasePool } from '../../../shared/base/database/database-pool.ts';
import { RunHistoryRetention } from '../../../shared/domain/runs/history/run-history-retention.ts';
import { DEFAULT_COMPACTION_OPTIONS, RunLogCompactor } from '../../../shared/domain/runs/logs/run-log-compaction.ts';
import { poolDatabase } from '../../../shared/base/database/database.ts';

/** What the bench asks for: a compaction pass over everything finished, or a retention pass. */
export type MaintainerRequest =
  | { pass: 'compaction'; paced: boolean; maxRuns?: number }
  | { pass: 'retention'; historyMs: number; logMs: number };

export interface MaintainerAnswer {
  pass: MaintainerRequest['pass'];
  report: Record<string, number>;
  ms: number;
}

const pool = createDatabasePool(process.env.DATABASE_URL!, () => undefined, { max: 2, query_timeout: 600_000 });
const paced = new RunLogCompactor(poolDatabase(pool), { ...DEFAULT_COMPACTION_OPTIONS, delayMs: 0 });
const unpaced = new RunLogCompactor(poolDatabase(pool), { ...DEFAULT_COMPACTION_OPTIONS, delayMs: 0, restRatio: 0 });

process.on('message', async (request: MaintainerRequest) => {
  const started = performance.now();
  let report: Record<string, number>;
  if (request.pass === 'compaction') {
    const compactor = request.paced ? paced : unpaced;
    // Every run that is due, or (beside a load that keeps finishing runs) the next few.
    report = {
      ...(await (request.maxRuns ? compactor.compactFinishedRuns(request.maxRuns) : compactor.compactDueRuns())),
    };
  } else {
    report = { ...(await new RunHistoryRetention(poolDatabase(pool), request).removeExpired()) };
  }
  process.send!({ pass: request.pass, report, ms: performance.now() - started } satisfies MaintainerAnswer);
});
process.once('disconnect', () => void pool.end().then(() => process.exit(0)));
process.send!('ready');
