// Issue 47: the cost per row of the states the Rollout stage and window events are compared with (migration 018's
// `rollout_stage_states` and `approval_gate_states`), from PostgreSQL's own sizes (table, indexes and TOAST) after
// one pass of the reconciler over 5,000 Rollouts of two stages and 1,000 Projects of four windows and a freeze,
// recorded as the server records them (ClusterEventReconciler.record). The cluster's two lists are answered from
// memory: what is measured is the database. docs/notifications.md carries the numbers.
import type pg from 'pg';
import { poolDatabase } from '../../shared/base/database/database.ts';
import type { KubernetesRestClient } from '../../shared/base/kubernetes/kubernetes-rest-client.ts';
import type { PlatformObject } from '../../shared/contract/kinds/platform-object.ts';
import { ClusterEventReconciler } from '../../shared/domain/cluster-events/cluster-event-reconciler.ts';
import { ClusterObjects } from '../../shared/domain/resources/cluster-objects.ts';
import { startTestDatabase } from '../support/test-database.ts';
import type { Benchmark } from './bench-row.ts';

const PROJECTS = 1_000;
const ROLLOUTS = 5_000;

const windows = Array.from({ length: 4 }, (_, index) => ({
  name: `window-${index}`,
  kind: index % 2 === 0 ? 'allow' : 'deny',
  schedule: `0 ${8 + index} * * 1-5`,
  duration: '2h',
  timeZone: 'Europe/Berlin',
  appliesTo: { rollouts: ['*'] },
}));

const projects: PlatformObject[] = Array.from({ length: PROJECTS }, (_, index) => ({
  metadata: { name: `project-${index}`, uid: crypto.randomUUID() },
  spec: { approvalPolicy: { windows, freeze: { active: false } } },
}));

const rollouts: PlatformObject[] = Array.from({ length: ROLLOUTS }, (_, index) => ({
  metadata: { name: `rollout-${index}`, namespace: `project-${index % PROJECTS}`, uid: crypto.randomUUID() },
  spec: {
    revision: `release-2026.${index}`,
    stages: [{ workspace: 'staging-network' }, { workspace: 'production-network', approval: { required: true } }],
  },
  status: {
    stages: [
      { workspace: 'staging-network', phase: 'Applied' },
      { workspace: 'production-network', phase: 'AwaitingApproval' },
    ],
  },
}));

/** The two lists the reconciler asks of the cluster, answered from memory. */
const listsOnly = {
  call: async ({ path }: { path: string }) => ({
    status: 200,
    body: { items: path.endsWith('/projects') ? projects : rollouts },
  }),
} as unknown as KubernetesRestClient;

async function bytesPerRow(pool: pg.Pool, table: string): Promise<number> {
  await pool.query(`VACUUM ANALYZE ${table}`);
  const { rows } = await pool.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size($1::regclass) AS bytes, (SELECT count(*) FROM ${table}) AS count`,
    [table],
  );
  return Number(rows[0]!.bytes) / Number(rows[0]!.count);
}

export const clusterEventsBenchmark: Benchmark = async () => {
  const database = await startTestDatabase();
  try {
    const cluster = new ClusterObjects(listsOnly, 'platform.dev');
    const reconciler = new ClusterEventReconciler(
      async () => cluster,
      () => new Date('2026-03-02T03:00:00Z'),
    );
    const started = performance.now();
    await reconciler.record(poolDatabase(database.pool));
    const firstPassMs = performance.now() - started;
    const again = performance.now();
    await reconciler.record(poolDatabase(database.pool));
    const quietPassMs = performance.now() - again;
    return [
      {
        name: `rollout_stage_states: bytes per row, table, indexes and TOAST (${ROLLOUTS * 2} stages)`,
        value: await bytesPerRow(database.pool, 'rollout_stage_states'),
        unit: 'B',
      },
      {
        name: `approval_gate_states: bytes per row, table, indexes and TOAST (${PROJECTS * 5} windows and freezes)`,
        value: await bytesPerRow(database.pool, 'approval_gate_states'),
        unit: 'B',
      },
      { name: `reconciler: first pass, ${ROLLOUTS} Rollouts and ${PROJECTS} Projects`, value: firstPassMs, unit: 'ms' },
      { name: 'reconciler: a pass that finds no change (the same objects again)', value: quietPassMs, unit: 'ms' },
    ];
  } finally {
    await database.destroy();
  }
};
