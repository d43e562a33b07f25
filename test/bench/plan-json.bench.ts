// Issue 48, item 2: the cost per row of the plan's JSON (migration 020's `run_plan_json`), from PostgreSQL's own
// sizes (table, index and TOAST) after plan runs recorded by the one insert of runs, each with the document a
// controller uploads (`terraform show -json`), stored as sent. Two shapes: a small plan (5 resource changes) and
// a typical one (50), every resource with its own ids and values, so compression gains only what a real plan's
// repeated keys give it. docs/run-history.md carries the numbers beside the other tables' costs.
import type pg from 'pg';
import { insertRun } from '../../shared/domain/runs/records/insert-run.ts';
import { startTestDatabase } from '../support/test-database.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const PLANS = 1_000;

/** A `terraform show -json` plan of `changes` resource changes (format 1.2), unique to `plan`. */
function planDocument(plan: number, changes: number): string {
  const resources = Array.from({ length: changes }, (_, index) => {
    const id = `${plan.toString(36)}-${index.toString(36)}-${((plan * 7919 + index * 104_729) % 1_000_003).toString(16)}`;
    const after = {
      arn: `arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-${id}`,
      cidr_block: `10.${plan % 256}.${index % 256}.0/24`,
      availability_zone: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'][index % 3],
      map_public_ip_on_launch: index % 2 === 0,
      tags: { Name: `subnet-${id}`, team: 'team-a', environment: 'prod', run: String(plan) },
      vpc_id: `vpc-${id}`,
    };
    const address = `module.network.aws_subnet.private[${index}]`;
    const before = index % 3 === 0 ? null : { ...after, cidr_block: `10.${(plan + 1) % 256}.${index % 256}.0/24` };
    return {
      resource: { address, mode: 'managed', type: 'aws_subnet', name: 'private', index, values: after },
      change: {
        address,
        module_address: 'module.network',
        mode: 'managed',
        type: 'aws_subnet',
        name: 'private',
        index,
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: before === null ? ['create'] : ['update'],
          before,
          after,
          after_unknown: before === null ? { arn: true, id: true } : {},
          before_sensitive: before === null ? false : {},
          after_sensitive: {},
        },
      },
    };
  });
  return JSON.stringify({
    format_version: '1.2',
    terraform_version: '1.8.2',
    planned_values: {
      root_module: { child_modules: [{ address: 'module.network', resources: resources.map((r) => r.resource) }] },
    },
    resource_changes: resources.map((r) => r.change),
    configuration: {
      provider_config: { aws: { name: 'aws', full_name: 'registry.terraform.io/hashicorp/aws' } },
      root_module: { module_calls: { network: { source: './modules/network' } } },
    },
    timestamp: new Date(Date.UTC(2026, 11, 7) + plan * 60_000).toISOString(),
    applyable: true,
    complete: true,
    errored: false,
  });
}

/** PostgreSQL's size of `run_plan_json` with its index and TOAST, divided by its rows; and the documents' mean size. */
async function bytesPerPlan(pool: pg.Pool, changes: number): Promise<{ stored: number; sent: number }> {
  const statement = (text: string, values: unknown[]) => pool.query(text, values);
  let sent = 0;
  for (let plan = 0; plan < PLANS; plan++) {
    const run = await insertRun(statement, {
      project: 'bench',
      workspace: `workspace-${plan % 50}`,
      type: 'plan',
      principal: `oidc:user-${plan % 500}@example.com`,
      principalType: 'oidc',
      message: `plan ${plan}`,
    });
    const document = planDocument(plan, changes);
    sent += Buffer.byteLength(document);
    // The statement the upload runs, without the lease check it makes on `runs`.
    await pool.query('INSERT INTO run_plan_json (run_id, document) VALUES ($1, $2)', [run.id, document]);
  }
  await pool.query('VACUUM ANALYZE run_plan_json');
  const { rows } = await pool.query<{ bytes: string; count: string }>(
    `SELECT pg_total_relation_size('run_plan_json') AS bytes, (SELECT count(*) FROM run_plan_json) AS count`,
  );
  return { stored: Number(rows[0]!.bytes) / Number(rows[0]!.count), sent: sent / PLANS };
}

export const planJsonBenchmark: Benchmark = async () => {
  const database = await startTestDatabase();
  try {
    const rows: BenchRow[] = [];
    for (const changes of [5, 50]) {
      const { stored, sent } = await bytesPerPlan(database.pool, changes);
      await database.pool.query('TRUNCATE runs CASCADE');
      rows.push(
        { name: `run_plan_json: bytes per document sent (${changes} resource changes)`, value: sent, unit: 'B' },
        {
          name: `run_plan_json: bytes per row, table, index and TOAST (${PLANS} plans of ${changes} resource changes)`,
          value: stored,
          unit: 'B',
        },
      );
    }
    return rows;
  } finally {
    await database.destroy();
  }
};
