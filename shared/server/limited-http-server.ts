import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { ServerConfig } from '../config/server-config.ts';
import type { ServerTls } from '../tls/server-tls.ts';

/**
 * A node:http server (node:https with `tls`) with the request limits every entry shares: the header
 * size cap (431 beyond it, answered by node itself) and timeouts that stop slow clients holding sockets.
 */
export function createLimitedHttpServer(config: Pick<ServerConfig, 'maxHeaderBytes'>, listener: (req: IncomingMessage, res: ServerResponse) => void, tls?: ServerTls): Server {
  const limits = { maxHeaderSize: config.maxHeaderBytes, requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 65_000 };
  const server = tls ? createHttpsServer({ ...limits, cert: tls.cert, key: tls.key }, listener) : createServer(limits, listener);
  // Streams (run logs) outlive requestTimeout's notion of a request; the socket timeout stays off.
  server.setTimeout(0);
  return server;
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
