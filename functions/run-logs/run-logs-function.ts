import type { AppContext } from '../../shared/server/app/app-context.ts';
import { readBearerToken } from '../../shared/auth/bearer-token.ts';
import type { ApiRequest } from '../../shared/base/http/api-request.ts';
import { functionModule, type FunctionHandlers } from '../../shared/server/runtime/function-definition.ts';
import { routeHandlers, type RouteHandlers } from '../../shared/server/runtime/typed-handlers.ts';
import { authorizedRun, runWorkspaceResolver } from '../../shared/domain/runs/run-workspace-resolver.ts';
import { RunEndWatch, type RunLogSources } from './run-end-watch.ts';
import { runLogEvents } from './run-log-events.ts';
import { apiError } from '../../shared/base/http/error-catalogue.ts';
import { releaseWhenCallerLeaves } from '../../shared/domain/streams/stream-sessions.ts';

/** How often a run's streams look whether it has finished: one check per run, whatever the number of streams. */
export const PHASE_CHECK_MS = 2_000;

/** The run-logs function: its facts and its factory (shared/server/runtime/function-definition.ts, FunctionModule). */
/** The services of the app context the runLogs function uses, and may use. */
const RUN_LOGS_SERVICES = ['config', 'logger', 'metrics', 'runs', 'streamSessions'] as const;

export const runLogsFunction = functionModule({
  services: RUN_LOGS_SERVICES,
  name: 'run-logs',
  cluster: 'on-first-use',
  runHistory: true,
  maintainsRunHistory: false,
  readiness: [],
  create: (context) => createRunLogsFunction(context),
});

/**
 * The run-logs function: a run's log lines as server-sent events, with a heartbeat every
 * RUN_LOG_HEARTBEAT_INTERVAL, at most RUN_LOG_MAX_STREAMS_PER_PRINCIPAL open streams per principal,
 * each ending when the credential that opened it ends.
 */
export function createRunLogsFunction(context: Pick<AppContext, (typeof RUN_LOGS_SERVICES)[number]>): FunctionHandlers {
  const { config } = context;
  const sessions = context.streamSessions({
    kind: 'run_log',
    max: config.runLogMaxStreamsPerPrincipal,
    streams: 'run-log streams',
    setting: 'RUN_LOG_MAX_STREAMS_PER_PRINCIPAL',
    reason: 'TooManyStreams',
  });
  // One watch per database the process opened (its log listener's): keyed by the run logs.
  const endWatches = new WeakMap<RunLogSources['logs'], RunEndWatch>();
  const endWatchOf = (sources: RunLogSources) => {
    let watch = endWatches.get(sources.logs);
    if (!watch) endWatches.set(sources.logs, (watch = new RunEndWatch(sources, PHASE_CHECK_MS, context.logger)));
    return watch;
  };

  const handlers: RouteHandlers<'run-logs'> = {
    streamRunLogs: async (request) => {
      const afterSeq = lastEventId(request);
      // The chain has authorized the caller on the run's Workspace (route table: runWorkspace).
      const run = authorizedRun(request);
      const session = await sessions.open(request.principal, readBearerToken(request, true)!);
      // A client gone before the stream starts never runs its generator: free the slot here too.
      releaseWhenCallerLeaves(session, request.signal);
      try {
        const [records, logs] = await Promise.all([context.runs.service('records'), context.runs.service('logs')]);
        const sources = { records, logs };
        return {
          status: 200,
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-accel-buffering': 'no',
          },
          body: runLogEvents({
            sources,
            endWatch: endWatchOf(sources),
            run,
            afterSeq,
            session,
            signal: request.signal,
            logger: context.logger,
            heartbeatMs: config.runLogHeartbeatMs,
            sendBufferBytes: config.runLogSendBufferBytes,
            onResume: () => context.metrics.streamResumed(),
          }),
        };
      } catch (error) {
        session.release();
        throw error;
      }
    },
  };
  return {
    handlers: routeHandlers(handlers),
    authorizationResolvers: { runWorkspace: runWorkspaceResolver(() => context.runs.service('records')) },
  };
}

/** The seq of the last line the client saw (`Last-Event-ID`, sent by EventSource on reconnect); 0 when none. */
function lastEventId(request: ApiRequest): number {
  const header = request.headers['last-event-id']?.trim();
  if (header === undefined || header === '') return 0;
  if (!/^\d{1,15}$/.test(header))
    throw apiError('InvalidLastEventId', 'Last-Event-ID must be the number of a log line');
  return Number(header);
}
