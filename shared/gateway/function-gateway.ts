import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeApiResponse } from '../adapters/node-http-adapter.ts';
import { resolveGatewayTarget, type GatewayRule } from '../routes/gateway-routing.ts';
import type { FunctionName } from '../routes/route-table.ts';
import { forwardRequest } from './forward-request.ts';
import type { UpstreamPool } from './upstream-pool.ts';
import { apiError } from '../http/error-catalogue.ts';

// Only requests without a body, which a failed attempt has not consumed, may go to a second replica.
const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The gateway of the fleet: routes by path with the chart's HTTPRoute rules, forwards over HTTP
 * to a ready replica of the function, and answers as a real gateway does when it cannot: JSON
 * 503 when no replica is ready, 502 when the chosen one fails before answering (a GET is tried
 * on the next ready replica first).
 */
export function createFunctionGateway(
  rules: GatewayRule[],
  pools: ReadonlyMap<FunctionName, UpstreamPool>,
  bridge: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const target = resolveGatewayTarget(rules, (incoming.url ?? '/').split('?', 1)[0]!);
    if (target === 'bridge') {
      bridge(incoming, outgoing);
      return;
    }
    const pool = pools.get(target)!;
    const candidates = pool.candidates();
    if (candidates.length === 0) {
      incoming.resume();
      writeApiResponse(
        outgoing,
        apiError(
          'FunctionUnavailable',
          `function ${target} has no ready replica: ${pool.unavailableReason()}`,
        ).toResponse(),
      );
      return;
    }
    const attempt = (index: number): void => {
      const upstream = candidates[index]!;
      forwardRequest(incoming, outgoing, upstream.url, {
        onUnreachable(error) {
          pool.markUnreachable(upstream, error);
          if (index + 1 < candidates.length && RETRYABLE_METHODS.has(incoming.method ?? '')) return attempt(index + 1);
          writeApiResponse(
            outgoing,
            apiError('FunctionUnreachable', `function ${target} failed before answering`).toResponse(),
          );
        },
      });
    };
    attempt(0);
  };
}
