import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

export interface ForwardCallbacks {
  /**
   * The upstream could not be reached or failed before answering; nothing was written to
   * `outgoing` yet, so the caller may answer (502) or try another upstream.
   */
  onUnreachable(error: Error): void;
}

/**
 * Forwards one request to `upstream` (http: or https:, keeping the path), as a reverse proxy:
 * hop-by-hop headers dropped, `X-Forwarded-For` appended with the client's address,
 * `X-Forwarded-Host`/`-Proto` set. The answer is streamed back as it arrives (server-sent
 * events pass unbuffered); an upstream that dies mid-answer cuts the client's connection, so
 * the client sees the stream end rather than a silently truncated answer.
 */
export function forwardRequest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  upstream: URL,
  callbacks: ForwardCallbacks,
): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  headers['x-forwarded-host'] = incoming.headers.host ?? '';
  headers['x-forwarded-proto'] = (incoming.socket as TLSSocket).encrypted ? 'https' : 'http';
  headers['x-forwarded-for'] = [incoming.headers['x-forwarded-for'], incoming.socket.remoteAddress]
    .filter(Boolean)
    .join(', ');
  headers.host = upstream.host;
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  let answered = false;
  const forwarded = send(
    {
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers,
    },
    (answer) => {
      answered = true;
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      // Headers go out at once: an event stream's first bytes may be minutes away.
      outgoing.flushHeaders();
      answer.pipe(outgoing);
      answer.on('close', () => {
        if (!answer.complete) outgoing.destroy();
      });
    },
  );
  forwarded.on('socket', (socket) => socket.setNoDelay(true));
  forwarded.on('error', (error) => {
    if (!answered && !outgoing.headersSent) callbacks.onUnreachable(error);
    else outgoing.destroy();
  });
  // A client that goes away releases the upstream request (and the stream it holds open).
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) forwarded.destroy();
  });
  // A retried request (GET, no body) has been read to its end already.
  if (incoming.readableEnded) forwarded.end();
  else incoming.pipe(forwarded);
}
