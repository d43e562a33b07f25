import type pg from 'pg';
import type { Database } from '../../base/database/database.ts';
import type { Metrics } from '../../base/metrics/metrics.ts';
import type { PageTokens } from '../../base/database/page-tokens.ts';
import { RunLogChunks } from './leases/log-chunks.ts';
import { RunLeases } from './leases/run-leases.ts';
import { RunLogs } from './logs/run-logs.ts';
import { RunPlanJson } from './plan-json/run-plan-json.ts';
import type { RunLogListenerLimits } from './logs/run-log-listener.ts';
import { PlanApprovals } from './records/plan-approvals.ts';
import { RunRecords } from './records/run-records.ts';
import { RunTaskResults } from './tasks/run-task-results.ts';

/**
 * The run history's services, each on its own (issue 43, item 6): a function takes the ones it uses.
 * - `records`: a user's runs (create, get, list, cancel) and the controller's work queue.
 * - `leases`: the controller's claims, renewals and phase changes.
 * - `logChunks`: the one insert of log lines, under lease (the product reaches it masked: logs/run-log-masking.ts).
 * - `planApprovals`: succeeded plans approved for apply (issue 37).
 * - `logs`: log pages and live subscriptions.
 * - `taskResults`: the results of runs' tasks, their access tokens and the gate they keep (issue 48).
 * - `planJson`: the plan's JSON a controller uploads for a plan run, which its tasks and readers read (issue 48).
 */
export interface RunServices {
  records: RunRecords;
  leases: RunLeases;
  logChunks: RunLogChunks;
  planApprovals: PlanApprovals;
  logs: RunLogs;
  taskResults: RunTaskResults;
  planJson: RunPlanJson;
}

export interface RunServicesOptions {
  /** Signs the lists' `continue` tokens (a server's: keyed from the signing key every replica shares). */
  pageTokens?: PageTokens;
  listenerLimits?: RunLogListenerLimits;
  /** Where run tasks' results and gates are counted (issue 48); none by default. */
  metrics?: Metrics;
}

/** The services over one database; `connection`: the pool's options, for the log listener's own connection. */
export function createRunServices(
  database: Database,
  connection: pg.ClientConfig,
  options: RunServicesOptions = {},
): RunServices {
  return {
    records: new RunRecords(database, options.pageTokens),
    leases: new RunLeases(database),
    logChunks: new RunLogChunks(database),
    planApprovals: new PlanApprovals(database),
    logs: new RunLogs(database, connection, options.listenerLimits),
    taskResults: new RunTaskResults(database, options.metrics),
    planJson: new RunPlanJson(database),
  };
}
