import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { PROBE_PATHS } from '../http/probe-paths.ts';
import { endWithStatus, injectTraceContext, isTracingOn, startServerSpan, withContext } from './tracing.ts';

/**
 * The gateway's hop of a request (the fleet's gateway, the local gateway): a SERVER span named
 * `<METHOD> <function>` under the caller's `traceparent`, which is REPLACED by this span's in the
 * request the function receives, so the function's span is its child (a valid `tracestate` is
 * passed on, as W3C Trace Context asks). `forward` runs with the span
 * active; the span ends when the answer has gone out (or the client left), with its status.
 * Without tracing, or for a probe (`/healthz`, `/readyz`), only `forward` runs.
 */
export function traceGatewayHop(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  target: string,
  forward: () => void,
): void {
  if (!isTracingOn() || PROBE_PATHS.has((incoming.url ?? '/').split('?', 1)[0]!)) {
    forward();
    return;
  }
  const method = incoming.method ?? 'GET';
  const { span, context } = startServerSpan(`${method} ${target}`, incoming.headers, {
    'http.request.method': method,
    'url.scheme': (incoming.socket as TLSSocket).encrypted ? 'https' : 'http',
    'platform_api.function': target,
  });
  // The trace state travels on as the span's context holds it (W3C: propagated), not as the client wrote it.
  delete incoming.headers.tracestate;
  injectTraceContext(incoming.headers, context);
  outgoing.once('close', () => {
    if (outgoing.headersSent) {
      endWithStatus(span, outgoing.statusCode);
    } else {
      // Gone before any answer: not a failure of the gateway or the function.
      span.setAttribute('error.type', 'ClientClosedRequest');
      span.end();
    }
  });
  withContext(context, forward);
}
