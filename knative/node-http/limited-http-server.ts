import { randomUUID } from 'node:crypto';
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { ConfigError } from '../../shared/base/config/config-error.ts';
import type { ServerConfig } from '../../shared/base/config/server-config.ts';
import { apiError } from '../../shared/base/http/error-catalogue.ts';
import { MAX_REQUEST_URI_BYTES } from '../../shared/base/http/early-answers.ts';
import type { ServerTls } from './server-tls.ts';
import { settleResponseShape } from './response-shape.ts';

/**
 * A node:http server (node:https with `tls`) with the request limits every entry shares: the header
 * size cap (431 beyond it) and timeouts that stop slow clients holding sockets. Requests node
 * refuses before any handler runs get the same JSON error body as every other refusal.
 */
export function createLimitedHttpServer(
  config: Pick<ServerConfig, 'maxHeaderBytes'>,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  tls?: ServerTls,
): Server {
  settleResponseShape();
  const limits = {
    maxHeaderSize: config.maxHeaderBytes,
    requestTimeout: 60_000,
    headersTimeout: 20_000,
    keepAliveTimeout: 65_000,
  };
  const server = tls
    ? createHttpsServer({ ...limits, cert: tls.cert, key: tls.key }, listener)
    : createServer(limits, listener);
  // Streams (run logs) outlive requestTimeout's notion of a request; the socket timeout stays off.
  server.setTimeout(0);
  limitUnreadableRequests(server, config);
  return server;
}

/**
 * The header cap and the JSON answers to requests node cannot parse, for a server another made: the
 * functions-framework's own (knative/functions-framework-target.ts), which would otherwise answer a
 * header overflow with node's bare 431 (no body, no `Audit-Id`) at node's default 16 KiB.
 */
export function limitUnreadableRequests(server: Server, config: Pick<ServerConfig, 'maxHeaderBytes'>): void {
  // Read by node for each new connection's parser, as the constructor's option is.
  (server as Server & { maxHeaderSize: number }).maxHeaderSize = config.maxHeaderBytes;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, config.maxHeaderBytes),
  );
}

/**
 * The answer to a request node could not parse: 414 for a request line over the header cap, 431 for
 * oversized headers, 408 for a slow one, else 400; always JSON, with an `Audit-Id` as every answer.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, maxHeaderBytes: number): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const { rawPacket, bytesParsed } = error as { rawPacket?: Buffer; bytesParsed?: number };
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? overflowedInRequestLine(rawPacket, bytesParsed)
        ? apiError('UriTooLong', `the request target exceeds ${MAX_REQUEST_URI_BYTES} bytes`)
        : apiError('RequestHeaderFieldsTooLarge', `request headers exceed ${maxHeaderBytes} bytes`)
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? apiError('RequestTimeout', 'the request was not received in time')
        : apiError('BadRequest', 'the request could not be parsed as HTTP');
  // An answer to HEAD has no body; the request line is all node parsed of it, if anything.
  const isHead = rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const json = JSON.stringify({ error: refusal.message, reason: refusal.reason });
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nAudit-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${isHead ? '' : json}`,
  );
}

/**
 * Whether node's header cap (which counts the request target too) was reached in the request line:
 * the bytes of the read it failed in, up to where it failed, hold no line break, and are the line's
 * start (`GET /...`) or a run of target characters without a space. Node says no more; a header line
 * longer than a read without a space in it (a token split across reads) is taken for the target too:
 * refused as too large either way, only named after the wrong part.
 */
function overflowedInRequestLine(rawPacket: Buffer | undefined, bytesParsed: number | undefined): boolean {
  if (rawPacket === undefined) return false;
  const read = rawPacket.subarray(0, bytesParsed ?? rawPacket.length).toString('latin1');
  return !read.includes('\n') && /^(?:[A-Z]+ )?\S*$/.test(read);
}

/**
 * `listen`, with a port in use or not allowed to this user turned into a ConfigError naming the
 * setting that chose the port (`PORT`, `CONSOLE_PORT`), so start-up stops with a message, not a stack.
 */
export async function listenOnSetting(
  server: Server,
  port: number,
  host: string | undefined,
  setting: string,
): Promise<number> {
  try {
    return await listen(server, port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(setting, `port ${port} is already in use by another process`);
    if (code === 'EACCES') throw new ConfigError(setting, `port ${port} may not be bound by this user`);
    throw error;
  }
}

/** Starts listening and resolves with the bound port. */
export function listen(server: Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * Stops accepting connections and waits for in-flight requests to finish (Knative sends
 * SIGTERM, then keeps routing nothing new); after `graceMs` the remaining sockets are cut.
 */
export async function drain(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive sockets become idle as their last response ends; close each as soon as it does.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  deadline.unref();
  await closed;
  clearInterval(sweep);
  clearTimeout(deadline);
}
