// Issue 26: what masking a run's sensitive values costs when its log is appended, on a real
// PostgreSQL: 5,000 lines in chunks as a controller sends them, masked (as the internal route does:
// AttemptMasking, then appendChunk) for a run with 20 sensitive values, against a run with none.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabasePool } from '../../shared/base/database/database-pool.ts';
import { startEmbeddedDatabase } from '../../infra/development/database/embedded-database.ts';
import { migrate } from '../../shared/base/database/migrate.ts';
import type { SensitiveValue } from '../../shared/domain/runs/logs/log-masking.ts';
import type { LeaseHolder } from '../../shared/domain/runs/leases/run-leases.ts';
import { AttemptMasking } from '../../shared/domain/runs/logs/run-log-masks.ts';
import { testRuns } from '../support/test-runs.ts';
import type { Benchmark } from './bench-row.ts';

const LINES = 5_000;
const CHUNK = 100;
const BENCH_CONTROLLER: LeaseHolder = { principal: 'bench-controller', principalType: 'oidc' };
const VALUES = 20;
const ROUNDS = 5;
const RATIO_TARGET = 1.5;

/**
 * Twenty values of the lengths credentials have (a password, a token, a key); half with characters
 * that URL and JSON encodings escape (`/`, `+`, `=`, a space), so each of their encoded forms is a
 * pattern of its own (issue 38 added forms: up to 7 more per such value).
 */
const sensitiveValues: SensitiveValue[] = Array.from({ length: VALUES }, (_, index) => ({
  name: `secret_${index}`,
  value: `s3cr3t-${index}-${'kX9q'.repeat(2 + (index % 8))}${index % 2 === 1 ? '/+= x' : ''}`,
}));

/** Terraform-like output, one line in fifty printing one of the values. */
const lines = Array.from({ length: LINES }, (_, index) =>
  index % 50 === 0
    ? `  + password = "${sensitiveValues[index % VALUES]!.value}" # module.db.aws_db_instance.main[${index}]`
    : `module.network.aws_subnet.private[${index}]: Still creating... [${index % 60}s elapsed] id=subnet-0a1b2c3d${index}`,
);

export const logMaskingBenchmark: Benchmark = async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'platform-api-bench-masking-'));
  const server = await startEmbeddedDatabase({ dataDir });
  const pool = createDatabasePool(server.connectionString, () => undefined, { max: 4 });
  const store = testRuns(pool);
  let workspaces = 0;

  /** Seconds to append the 5,000 lines to a fresh run, masked with `values`. */
  const appendSeconds = async (values: SensitiveValue[]): Promise<number> => {
    const workspace = `workspace-${++workspaces}`;
    await store.records.createRun({
      project: 'bench',
      workspace,
      type: 'apply',
      principal: 'admin',
      principalType: 'admin',
    });
    const claimed = (await store.leases.claim(BENCH_CONTROLLER, 600_000, { project: 'bench', workspace }))!;
    const started = performance.now();
    const masking = new AttemptMasking(claimed.lease.id, values);
    for (let first = 0; first < LINES; first += CHUNK) {
      const masked = masking.mask(first + 1, lines.slice(first, first + CHUNK));
      const appended = await store.logChunks.appendChunk(
        claimed.run.id,
        claimed.lease.id,
        BENCH_CONTROLLER,
        first + 1,
        masked.lines,
      );
      masking.stored(appended.lastSeq + 1, masked.carry);
    }
    return (performance.now() - started) / 1000;
  };

  try {
    await migrate(pool);
    await appendSeconds(sensitiveValues); // warm-up: the database's caches and the JIT
    const plain: number[] = [];
    const masked: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await appendSeconds([]));
      masked.push(await appendSeconds(sensitiveValues));
    }
    const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
    const ratio = median(masked) / median(plain);
    // The matcher's own share, without the database: building it and masking every chunk.
    const cpuStarted = performance.now();
    const alone = new AttemptMasking('bench', sensitiveValues);
    for (let first = 0; first < LINES; first += CHUNK) alone.mask(first + 1, lines.slice(first, first + CHUNK));
    const cpuMs = performance.now() - cpuStarted;
    return [
      {
        name: `append ${LINES.toLocaleString('en')} lines in chunks of ${CHUNK}, ${VALUES} sensitive values masked (median of ${ROUNDS})`,
        value: Math.round(median(masked) * 1000),
        unit: 'ms',
        baselineName: 'the same lines, a run with no sensitive values',
        baselineValue: Math.round(median(plain) * 1000),
        ratio: Math.round(ratio * 100) / 100,
        target: `<= ${RATIO_TARGET}`,
        met: ratio <= RATIO_TARGET,
      },
      {
        name: `masking alone (build the matcher, mask ${LINES.toLocaleString('en')} lines), no database`,
        value: Math.round(cpuMs * 10) / 10,
        unit: 'ms',
      },
    ];
  } finally {
    await pool.end();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
};
