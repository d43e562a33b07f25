// What a refused request must leave as it was: every row the run tables hold, and the cluster.
import type { Platform } from './platform-fixture.ts';

/**
 * A fingerprint of all that is stored: a digest of every row of `runs`, `run_log_lines` and `run_plan_json` (a
 * lease renewed, a message, a line or a plan's JSON written all show) and the cluster's latest resourceVersion.
 */
export async function storedState(platform: Platform): Promise<string> {
  const cluster = await platform.clusterAdmin.send<{ metadata: { resourceVersion: string } }>({
    method: 'GET',
    path: '/api/v1/namespaces',
  });
  const { rows } = await platform.database.pool.query<{
    runs: string | null;
    lines: string | null;
    plans: string | null;
  }>(
    `SELECT (SELECT md5(string_agg(runs::text, ',' ORDER BY id)) FROM runs) AS runs,
            (SELECT md5(string_agg(run_log_lines::text, ',' ORDER BY run_id, seq)) FROM run_log_lines) AS lines,
            (SELECT md5(string_agg(run_plan_json::text, ',' ORDER BY run_id)) FROM run_plan_json) AS plans`,
  );
  return `${cluster.body.metadata.resourceVersion}/${rows[0]!.runs}/${rows[0]!.lines}/${rows[0]!.plans}`;
}
