import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeApiResponse } from '../../../knative/adapters/node-http-adapter.ts';
import { resolveGatewayTarget, type GatewayRule } from '../../../shared/contract/routes/gateway-routing.ts';
import type { FunctionName } from '../../../shared/contract/routes/route-table.ts';
import { forwardRequest, type ProxySettings } from './forward-request.ts';
import type { UpstreamPool } from './upstream-pool.ts';
import { UpstreamTimeoutError } from './upstream-timeouts.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import { earlyAnswer } from '../../../shared/base/http/early-answers.ts';
import { traceGatewayHop } from '../../../shared/base/tracing/gateway-span.ts';

// Only requests without a body, which a failed attempt has not consumed, may go to a second replica.
const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The gateway of the fleet: routes by path with the chart's HTTPRoute rules, forwards over HTTP
 * to a ready replica of the function, and answers as a real gateway does when it cannot (JSON,
 * with an `Audit-Id` as every answer): 503 when no replica is ready, 502 when the chosen one fails before answering, 504 when it
 * misses a deadline (a GET, HEAD or OPTIONS tries the next ready replica first). Only the replica failing
 * takes it out of rotation; a client abandoning its request does not. The replicas are told the
 * client the gateway saw, in an `X-Forwarded-For` of that one address.
 */
export function createFunctionGateway(
  rules: GatewayRule[],
  pools: ReadonlyMap<FunctionName, UpstreamPool>,
  bridge: (req: IncomingMessage, res: ServerResponse) => void,
  settings: ProxySettings,
) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    // A request received by an http.Server always has its url; the types allow none for answers.
    const target = resolveGatewayTarget(rules, incoming.url as string);
    traceGatewayHop(incoming, outgoing, target, () => route(incoming, outgoing, target));
  };

  function route(incoming: IncomingMessage, outgoing: ServerResponse, target: GatewayRule['target']): void {
    const method = incoming.method as string;
    if (target === 'bridge') {
      bridge(incoming, outgoing);
      return;
    }
    const pool = pools.get(target)!;
    const candidates = pool.candidates();
    if (candidates.length === 0) {
      // An unread request body is drained by node:http once the answer is finished.
      writeApiResponse(
        outgoing,
        earlyAnswer(
          apiError('FunctionUnavailable', `function ${target} has no ready replica: ${pool.unavailableReason()}`),
        ),
      );
      return;
    }
    const attempt = (index: number): void => {
      const upstream = candidates[index]!;
      forwardRequest(incoming, outgoing, {
        upstream: upstream.url,
        agent: pool.agent,
        settings,
        onUpstreamFailed(error) {
          pool.markUnreachable(upstream, error);
          if (index + 1 < candidates.length && RETRYABLE_METHODS.has(method)) return attempt(index + 1);
          const failure =
            error instanceof UpstreamTimeoutError
              ? apiError('FunctionTimeout', `function ${target} ${error.message}`)
              : apiError('FunctionUnreachable', `function ${target} failed before answering`);
          writeApiResponse(outgoing, earlyAnswer(failure));
        },
      });
    };
    attempt(0);
  }
}
