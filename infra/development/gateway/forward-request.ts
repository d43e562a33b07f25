import {
  type Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { clientAddress } from '../../../shared/auth/login-throttle.ts';
import type { ServerConfig } from '../../../shared/base/config/server-config.ts';
import { enforceUpstreamTimeouts } from './upstream-timeouts.ts';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

/**
 * The end-to-end headers of one message, in either direction: without the hop-by-hop ones and
 * those its Connection header names (RFC 9110, 7.6.1). Each hop frames and keeps alive its own
 * connection: a replica's `Connection: keep-alive` or `Transfer-Encoding` passed to an HTTP/1.0
 * client would leave it waiting on a connection that never closes.
 */
function endToEndHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  // Most messages name nothing in Connection beyond keep-alive: no set is made for them.
  const named =
    headers.connection === undefined
      ? NAMES_NONE
      : new Set(headers.connection.split(',').map((name) => name.trim().toLowerCase()));
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    // node:http's parsed headers hold no undefined values; the type allows them for outgoing ones.
    if (!HOP_BY_HOP.has(name) && !named.has(name)) kept[name] = headers[name] as string | string[];
  }
  return kept;
}

const NAMES_NONE: ReadonlySet<string> = new Set();

/** What a proxy of this server needs of its settings: whom to believe about the client, how long to wait. */
export type ProxySettings = Pick<ServerConfig, 'trustedProxyHops' | 'gatewayTimeouts'>;

export interface ForwardOptions {
  upstream: URL;
  /** The kept-alive connections to an http: upstream's function (its UpstreamPool's); default node's global agent. */
  agent?: Agent;
  settings: ProxySettings;
  /**
   * The upstream failed before answering (refused or reset the connection, or missed a deadline:
   * an UpstreamTimeoutError); nothing was written to `outgoing` yet, so the caller may answer or
   * try another upstream. Never called when the client went away first.
   */
  onUpstreamFailed(error: Error): void;
}

/**
 * Forwards one request to `upstream` (http: or https:, keeping the path), as a reverse proxy:
 * hop-by-hop headers dropped, `X-Forwarded-Host`/`-Proto` set, and `X-Forwarded-For` REPLACED by
 * the one client address this proxy determined (its peer, or behind TRUSTED_PROXY_HOPS proxies the
 * address the outermost trusted one saw): never appended to a list the client wrote, so an
 * upstream trusting one hop sees exactly the client this proxy saw. The answer is streamed back
 * as it arrives (server-sent events pass unbuffered); an upstream that dies mid-answer cuts the
 * client's connection, so the client sees the stream end rather than a silently truncated answer.
 */
export function forwardRequest(incoming: IncomingMessage, outgoing: ServerResponse, options: ForwardOptions): void {
  const { upstream, settings } = options;
  const headers = endToEndHeaders(incoming.headers);
  // An HTTP/1.0 client may send no Host: then there is no host to report, not an empty one.
  if (incoming.headers.host) headers['x-forwarded-host'] = incoming.headers.host;
  headers['x-forwarded-proto'] = (incoming.socket as TLSSocket).encrypted ? 'https' : 'http';
  headers['x-forwarded-for'] = clientAddress(
    incoming.socket.remoteAddress ?? '',
    // node:http joins repeated X-Forwarded-For headers into one string; its type allows an array.
    incoming.headers['x-forwarded-for'] as string | undefined,
    settings.trustedProxyHops,
  );
  headers.host = upstream.host;
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  let abandoned = false;
  const forwarded = send(
    {
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers,
      ...(options.agent && upstream.protocol === 'http:' ? { agent: options.agent } : {}),
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode as number, endToEndHeaders(answer.headers));
      // A stream's headers go out at once: its first bytes may be minutes away. An answer of known
      // length follows its headers now, and goes out with them in one write (issue 25).
      if (answer.headers['content-length'] === undefined) outgoing.flushHeaders();
      answer.pipe(outgoing);
      answer.on('close', () => {
        if (!answer.complete) outgoing.destroy();
      });
    },
  );
  enforceUpstreamTimeouts(forwarded, settings.gatewayTimeouts);
  forwarded.on('error', (error) => {
    // Destroyed because the client left: the upstream did nothing wrong (issue 20). Once the answer
    // started (its headers go out at once), a failure ends the answer instead, which cuts the client off.
    if (abandoned || outgoing.headersSent) return;
    options.onUpstreamFailed(error);
  });
  // A client that goes away releases the upstream request (and the stream it holds open). After a
  // finished answer this changes nothing: the request's socket is back in the agent's pool already.
  outgoing.on('close', () => {
    abandoned = true;
    forwarded.destroy();
  });
  // A request without a body (most: GET, HEAD, DELETE) is ended at once, without a pipe's listeners
  // on both sides (issue 25); node:http reads its end and keeps the connection for the next one.
  // A retried request (GET, no body) has been read to its end already: the same.
  if (hasNoBody(incoming)) forwarded.end();
  else incoming.pipe(forwarded);
}

/** A request whose headers say it has no body (RFC 9112, 6.3: neither Content-Length above 0 nor Transfer-Encoding). */
function hasNoBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}
