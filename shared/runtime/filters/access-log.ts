import type { Logger } from '../../logging/logger.ts';
import { redactPathAndQuery } from '../../logging/redaction.ts';
import { whenAnswered, type Filter } from './filter-chain.ts';

/** One `request` line per answer (method, path with secrets redacted, status, duration, principal) at info level. */
export function withAccessLog(logger: Logger): Filter {
  return (request, next) => {
    if (!logger.isEnabled('info')) return next(request);
    const startedAt = performance.now();
    return whenAnswered(next(request), (response) => {
      logger.info('request', {
        method: request.method,
        path: redactPathAndQuery(request.path, request.query),
        status: response.status,
        durationMs: Math.round((performance.now() - startedAt) * 100) / 100,
        principal: request.principal?.name,
      });
      return response;
    });
  };
}
