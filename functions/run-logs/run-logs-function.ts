import type { AppContext } from '../../shared/app/app-context.ts';
import { badRequest } from '../../shared/http/api-error.ts';
import type { HandlerRequest } from '../../shared/runtime/function-definition.ts';
import type { FunctionDefinition } from '../../shared/runtime/function-definition.ts';
import { RunNotFoundError } from '../../shared/runs/run-errors.ts';
import { runStoreHttpError } from '../../shared/runs/run-http-errors.ts';
import { PHASE_CHECK_MS, runLogEvents, type RunLogTiming } from './run-log-events.ts';

/** The run-logs function: a run's log lines as server-sent events, with a heartbeat every RUN_LOG_HEARTBEAT_INTERVAL. */
export function createRunLogsFunction(context: AppContext): FunctionDefinition {
  const timing: RunLogTiming = { heartbeatMs: context.config.runLogHeartbeatMs, phaseCheckMs: PHASE_CHECK_MS };
  const authorize = (request: HandlerRequest, workspace?: string) =>
    context.authorizer.authorize(request.principal!, {
      verb: 'get',
      group: context.config.apiGroup,
      resource: 'workspaces',
      subresource: 'log',
      namespace: request.params.project!,
      ...(workspace ? { name: workspace } : {}),
    });

  return {
    name: 'run-logs',
    handlers: {
      streamRunLogs: async (request) => {
        try {
          const afterSeq = lastEventId(request);
          const store = await context.runs.store();
          const run = await store.getRun(request.params.project!, request.params.run!).catch(async (error: unknown) => {
            // Only a caller who could read any log here learns that this run does not exist.
            if (error instanceof RunNotFoundError) await authorize(request);
            throw error;
          });
          await authorize(request, run.workspace);
          return {
            status: 200,
            headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
            body: runLogEvents({ store, run, afterSeq, signal: request.signal, logger: context.logger, timing }),
          };
        } catch (error) {
          throw runStoreHttpError(error);
        }
      },
    },
    readiness: () => context.runs.checkReady(),
  };
}

/** The seq of the last line the client saw (`Last-Event-ID`, sent by EventSource on reconnect); 0 when none. */
function lastEventId(request: HandlerRequest): number {
  const header = request.headers['last-event-id']?.trim();
  if (header === undefined || header === '') return 0;
  if (!/^\d{1,15}$/.test(header)) throw badRequest('Last-Event-ID must be the number of a log line', 'InvalidLastEventId');
  return Number(header);
}
