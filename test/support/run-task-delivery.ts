// Delivers the run task requests of a test's platform (issue 48) as the platform builds them: the request of each
// task result still waiting, POSTed to the task server, with the answer's status.
import pg from 'pg';
import { afterAll, expect, vi } from 'vitest';
import { poolDatabase } from '../../shared/base/database/database.ts';
import { RunPlanJson } from '../../shared/domain/runs/plan-json/run-plan-json.ts';
import { RunTaskRequests, type TaskRequestAnswer } from '../../shared/domain/runs/tasks/run-task-requests.ts';
import { RunTaskResults } from '../../shared/domain/runs/tasks/run-task-results.ts';
import { GROUP, type Platform } from './platform-fixture.ts';
import type { ReceivedTaskRequest } from './run-task-server.ts';

/** Sends the request of `task` for run `runId`; resolves to the task server's status, or why nothing was sent. */
export type DeliverTaskRequest = (runId: string, task: string) => Promise<{ status: number } | { drop: string }>;

/** The platform's run task requests, built over the test's database and cluster (each with a fresh access token). */
export function useRunTaskRequests(
  platform: () => Platform,
): (runId: string, task: string) => Promise<TaskRequestAnswer> {
  let pool: pg.Pool | undefined;
  afterAll(async () => {
    await pool?.end();
  });
  return (runId, task) => {
    pool ??= new pg.Pool({ connectionString: platform().database.connectionString, max: 2 });
    const results = new RunTaskResults(poolDatabase(pool));
    const planJson = new RunPlanJson(poolDatabase(pool));
    const requests = new RunTaskRequests(
      async () => platform().clusterAdmin,
      async () => results,
      { apiGroup: GROUP, apiBaseUrl: platform().gateway.url },
      async () => planJson,
    );
    return requests.requestFor(runId, task);
  };
}

/** A delivery of the platform's run task requests over the test's database and cluster. */
export function useRunTaskDelivery(platform: () => Platform): DeliverTaskRequest {
  const requestFor = useRunTaskRequests(platform);
  return async (runId, task) => {
    const answer = await requestFor(runId, task);
    if ('drop' in answer) return answer;
    const response = await fetch(answer.request.url, {
      method: 'POST',
      headers: answer.request.headers,
      body: answer.request.body,
      redirect: 'manual',
    });
    await response.arrayBuffer();
    return { status: response.status };
  };
}

/** What a test's platform needs to deliver run task requests to a task server on this machine through its engine. */
export const ENGINE_DELIVERY_ENV = { OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32', OUTBOUND_RETRY_BASE: '200ms' };

/**
 * Delivery through the platform's outbound engine, as in production: a sweep (the scheduled trigger's route, as
 * the controller's ServiceAccount, which may call /internal/*), then the request the task server received for
 * `runId`, once it has (the engine's timer may have sent it first).
 */
export function useEngineDelivery(
  platform: () => Platform,
  received: () => readonly ReceivedTaskRequest[],
): (runId: string) => Promise<ReceivedTaskRequest> {
  return async (runId) => {
    const sweep = await fetch(`${platform().gateway.url}/internal/outbound/sweep`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform().tokens.controller}` },
    });
    expect(sweep.status).toBe(200);
    return vi.waitFor(
      () => {
        const request = received().findLast((candidate) => candidate.payload.run_id === runId);
        if (!request) throw new Error(`no run task request for run ${runId} yet`);
        return request;
      },
      { timeout: 30_000, interval: 100 },
    );
  };
}
