import type { Logger } from '../../../base/logging/logger.ts';
import { redactPathAndQuery } from '../../../base/logging/redaction.ts';
import { PROBE_PATHS } from '../../../base/http/probe-paths.ts';
import { traceIdOfTraceParent } from '../../../base/tracing/trace-parent.ts';
import { whenAnswered, type Filter } from './filter-chain.ts';

/**
 * One `request` line per answer (method, path with secrets redacted, status, duration, principal)
 * at info level; a passing probe at debug level (a failing one stays at info: it says why traffic stopped).
 * `trace_id` names the request's trace: its recorded span's (tracing on), else the caller's valid
 * `traceparent`'s (tracing off here or the span not sampled: the gateway or the client may have
 * recorded it), else it is left out.
 */
export function withAccessLog(logger: Logger): Filter {
  return (request, next) => {
    if (!logger.isEnabled('info')) return next(request);
    const startedAt = performance.now();
    return whenAnswered(next(request), (response) => {
      const level = response.status < 400 && PROBE_PATHS.has(request.path) ? 'debug' : 'info';
      logger[level]('request', {
        method: request.method,
        path: redactPathAndQuery(request.path, request.query),
        status: response.status,
        durationMs: Math.round((performance.now() - startedAt) * 100) / 100,
        principal: request.principal?.name,
        trace_id: request.traceId ?? traceIdOfTraceParent(request.headers.traceparent),
      });
      return response;
    });
  };
}
