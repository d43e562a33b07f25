import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { startEmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import { migrate } from '../../shared/base/database/migrate.ts';
import { testRuns, type TestRuns } from '../support/test-runs.ts';
import type { Benchmark } from './bench-row.ts';

const CONTROLLERS = 4;
const RUNS_PER_CONTROLLER = 1_000;
const LEASE_MS = 60_000;
// A claim is two statements (collect lapsed leases, then claim with SKIP LOCKED) against one insert.
const CLAIMS_PER_INSERT_TARGET = 0.25;

/** `clients` at once, each calling `work` until it says it is done; resolves to the seconds it took. */
async function secondsFor(clients: number, work: (client: number) => Promise<boolean>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (await work(client));
    }),
  );
  return (performance.now() - started) / 1000;
}

/** Each competitor with a pool of its own, as separate controller replicas would be. */
function competitors(connectionString: string): { stores: TestRuns[]; pools: pg.Pool[] } {
  const pools = Array.from({ length: CONTROLLERS }, () =>
    createDatabasePool(connectionString, () => undefined, { max: 2 }),
  );
  return { pools, stores: pools.map((pool) => testRuns(pool)) };
}

/**
 * Claims per second with 4 controllers competing for the same queue (each run claimed exactly
 * once, checked), beside plain run inserts by 4 clients at once in the same database and run.
 */
export const runClaimBenchmark: Benchmark = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-bench-claims-'));
  const server = await startEmbeddedDatabase({ dataDir });
  const { pools, stores } = competitors(server.connectionString);
  try {
    await migrate(pools[0]!);
    const runs = CONTROLLERS * RUNS_PER_CONTROLLER;
    const inserted = Array.from({ length: CONTROLLERS }, () => 0);
    const insertSeconds = await secondsFor(CONTROLLERS, async (client) => {
      if (inserted[client]! >= RUNS_PER_CONTROLLER) return false;
      inserted[client]!++;
      await stores[client]!.records.createRun({
        project: 'bench',
        workspace: `workspace-${client}`,
        type: 'plan',
        principal: 'admin',
        principalType: 'admin',
      });
      return true;
    });

    const claimed = new Set<string>();
    let duplicates = 0;
    const claimSeconds = await secondsFor(CONTROLLERS, async (client) => {
      const claim = await stores[client]!.leases.claim(
        { principal: `system:serviceaccount:platform:controller-${client}`, principalType: 'serviceaccount' },
        LEASE_MS,
      );
      // SKIP LOCKED may answer "none" to a claim that raced with another; only an empty queue ends the run.
      if (!claim) return claimed.size < runs;
      if (claimed.has(claim.run.id)) duplicates++;
      claimed.add(claim.run.id);
      return true;
    });
    if (duplicates > 0 || claimed.size !== runs) {
      throw new Error(
        `claims were not exactly once: ${claimed.size} distinct of ${runs} runs, ${duplicates} claimed twice`,
      );
    }
    const claimRate = runs / claimSeconds;
    const insertRate = runs / insertSeconds;
    const ratio = claimRate / insertRate;
    return [
      {
        name: `claims, ${CONTROLLERS} competing controllers, ${runs.toLocaleString('en')} queued runs, each claimed once`,
        value: Math.round(claimRate),
        unit: 'claims/s',
        baselineName: `run inserts, ${CONTROLLERS} clients at once`,
        baselineValue: Math.round(insertRate),
        ratio: Math.round(ratio * 100) / 100,
        target: `>= ${CLAIMS_PER_INSERT_TARGET}`,
        met: ratio >= CLAIMS_PER_INSERT_TARGET,
      },
    ];
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
