import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, notFound } from '../http/api-error.ts';
import { writeApiResponse } from '../adapters/node-http-adapter.ts';
import { forwardRequest } from '../gateway/forward-request.ts';

/** The answer under /bridge/ when no identity bridge is deployed. */
export function bridgeNotConfigured(): ApiError {
  return notFound('no identity bridge is configured (BRIDGE_UPSTREAM_URL)', 'BridgeNotConfigured');
}

/**
 * Forwards a /bridge/* request unauthenticated to the identity bridge, streaming both ways and
 * keeping the path. Without an upstream, answers 404.
 */
export function createBridgeProxy(upstreamUrl: string | undefined) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    if (!upstreamUrl) {
      incoming.resume();
      writeApiResponse(outgoing, bridgeNotConfigured().toResponse());
      return;
    }
    forwardRequest(incoming, outgoing, new URL(upstreamUrl), {
      onUnreachable: () => writeApiResponse(outgoing, new ApiError(502, 'BridgeUnavailable', 'identity bridge is unreachable').toResponse()),
    });
  };
}
