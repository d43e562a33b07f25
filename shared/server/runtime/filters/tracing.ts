import type { ApiResponse } from '../../../base/http/api-request.ts';
import { PROBE_PATHS } from '../../../base/http/probe-paths.ts';
import {
  endWithStatus,
  isTracingOn,
  markFailed,
  recordedTraceId,
  startServerSpan,
  withContext,
} from '../../../base/tracing/tracing.ts';
import type { Filter } from './filter-chain.ts';

/**
 * One SERVER span per request, under the caller's `traceparent` (the gateway's span): named
 * `<METHOD> <route template>` once the route is known (only `<METHOD>` when none matched: never
 * a raw path), with the HTTP conventions' attributes, the function and the principal's type
 * (`admin`, `oidc`, `serviceaccount` or `anonymous`: never a name or token), and status error on
 * 5xx. The filters and the handler run with it active, so the cluster, database and identity
 * calls they make are its children. The trace id is handed to the access log (`traceId`).
 * Probes (`/healthz`, `/readyz`) make no span. Not installed at all with tracing off.
 */
export function withTracing(functionName: string): Filter | undefined {
  if (!isTracingOn()) return undefined;
  return (request, next) => {
    if (PROBE_PATHS.has(request.path)) return next(request);
    const forwardedScheme = request.headers['x-forwarded-proto'];
    const { span, context } = startServerSpan(request.method, request.headers, {
      'http.request.method': request.method,
      // As the gateway saw it (it sets X-Forwarded-Proto); a value of any other shape is not recorded.
      'url.scheme': forwardedScheme === 'https' ? 'https' : 'http',
      'platform_api.function': functionName,
    });
    request.traceId = recordedTraceId(span);
    const finish = (response: ApiResponse) => {
      if (request.route) {
        span.updateName(`${request.method} ${request.route.path}`);
        span.setAttribute('http.route', request.route.path);
      }
      span.setAttribute('platform_api.principal.type', request.principal?.type ?? 'anonymous');
      endWithStatus(span, response.status);
      return response;
    };
    const failed = (error: unknown): never => {
      markFailed(span, error);
      span.end();
      throw error;
    };
    let answer: ApiResponse | Promise<ApiResponse>;
    try {
      answer = withContext(context, () => next(request));
    } catch (error) {
      return failed(error);
    }
    return answer instanceof Promise ? answer.then(finish, failed) : finish(answer);
  };
}
