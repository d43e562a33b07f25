import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError, notFound } from '../http/api-error.ts';
import { writeApiResponse } from '../adapters/node-http.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

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
    const upstream = new URL(upstreamUrl);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers['x-forwarded-host'] = incoming.headers.host ?? '';
    headers['x-forwarded-for'] = [incoming.headers['x-forwarded-for'], incoming.socket.remoteAddress].filter(Boolean).join(', ');
    headers.host = upstream.host;
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    const forwarded = send(
      { protocol: upstream.protocol, hostname: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) {
        writeApiResponse(outgoing, new ApiError(502, 'BridgeUnavailable', 'identity bridge is unreachable').toResponse());
      } else outgoing.destroy();
    });
    incoming.pipe(forwarded);
  };
}
