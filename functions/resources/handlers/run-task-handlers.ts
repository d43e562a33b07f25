import type { AppContext } from '../../../shared/server/app/app-context.ts';
import type { RunTaskPrincipal } from '../../../shared/auth/principal.ts';
import { type ApiResponse, jsonResponse } from '../../../shared/base/http/api-request.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import {
  OVERRIDE_REASON_ANNOTATION,
  RUN_ANNOTATION,
  noteForAudit,
} from '../../../shared/domain/audit/audit-annotations.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import { judgedPlanRun } from '../../../shared/domain/runs/plan-json/run-plan-json.ts';
import { runPrincipal } from '../../../shared/domain/runs/run-principal.ts';
import { authorizedRun } from '../../../shared/domain/runs/run-workspace-resolver.ts';
import { readTaskCallback } from '../../../shared/domain/runs/tasks/run-task-protocol.ts';
import type { RouteHandlers, RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';

type TaskRoute<Id extends string> = Extract<DeclaredRoute, { operationId: Id }>;

/** Lines of a run's log a task reads at once: the log of one run, as the run-log pages read it. */
const LOG_PAGE_LINES = 5_000;

/** The plan's JSON of plan run `planRun` as it was uploaded (bytes as sent), or 404 `PlanJsonNotFound`. */
async function planJsonAnswer(context: Pick<AppContext, 'runs'>, planRun: string | null): Promise<ApiResponse> {
  const document = planRun === null ? undefined : await (await context.runs.service('planJson')).read(planRun);
  if (document === undefined)
    throw apiError('PlanJsonNotFound', "no plan's JSON was uploaded for this plan run, or it was removed");
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: document,
  };
}

/**
 * The run task routes (issue 48): users read a run's task results and override a mandatory failure (each
 * authorized by the chain on the run's Workspace); a task reports its result and reads the run's log with
 * the access token of its request, bound by the chain to that one task result (`boundTaskResult`), and reads the
 * plan's JSON it judges; readers of a run's log read a plan run's JSON.
 */
export function runTaskHandlers(context: Pick<AppContext, 'runs'>) {
  const taskResults = () => context.runs.service('taskResults');
  const taskOf = (request: { principal: unknown }) => request.principal as RunTaskPrincipal;
  return {
    listRunTaskResults: async (request: RouteRequest<TaskRoute<'listRunTaskResults'>>) => {
      const run = authorizedRun(request);
      const results = await taskResults();
      // Results past their deadline are shown as they are: errored, the run moved on.
      await results.settle([run.id]);
      return jsonResponse(200, { items: await results.resultsOf(run.id, request.deadline) });
    },
    overrideRunTasks: async (request: RouteRequest<TaskRoute<'overrideRunTasks'>>) => {
      const run = authorizedRun(request);
      const { reason } = request.input.body();
      noteForAudit(request, RUN_ANNOTATION, run.id);
      noteForAudit(request, OVERRIDE_REASON_ANNOTATION, reason);
      const { principal } = runPrincipal(request.principal);
      return jsonResponse(
        200,
        await (await taskResults()).override(run.project, run.id, principal, reason, request.deadline),
      );
    },
    getRunPlanJson: (request: RouteRequest<TaskRoute<'getRunPlanJson'>>) =>
      planJsonAnswer(context, authorizedRun(request).id),
    reportTaskResult: async (request: RouteRequest<TaskRoute<'reportTaskResult'>>) => {
      const task = taskOf(request);
      const callback = readTaskCallback(request.input.body() as Record<string, unknown>);
      noteForAudit(request, RUN_ANNOTATION, task.run);
      return jsonResponse(200, await (await taskResults()).report(task.taskResult, callback, request.deadline));
    },
    readTaskRunLog: async (request: RouteRequest<TaskRoute<'readTaskRunLog'>>) => {
      const task = taskOf(request);
      const lines = await (await context.runs.service('logs')).readLogLines(task.run, 0, LOG_PAGE_LINES);
      return {
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        body: lines.map((line) => `${line.line}\n`).join(''),
      };
    },
    readTaskPlanJson: async (request: RouteRequest<TaskRoute<'readTaskPlanJson'>>) => {
      const task = taskOf(request);
      const run = await (await context.runs.service('records')).getRun(task.project, task.run, request.deadline);
      return planJsonAnswer(context, judgedPlanRun(run));
    },
  } satisfies Partial<RouteHandlers<'resources'>>;
}
