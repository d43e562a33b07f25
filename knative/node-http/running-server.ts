import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AppContext } from '../../shared/server/app/app-context.ts';
import type { ServerConfig } from '../../shared/base/config/server-config.ts';
import { apiError, retryAfter } from '../../shared/base/http/error-catalogue.ts';
import type { ServerTls } from './server-tls.ts';
import { createLimitedHttpServer, drain, listenOnSetting } from './limited-http-server.ts';
import { flushTraces } from '../../shared/base/tracing/start-tracing.ts';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** A server listening on its port before the process is ready to serve. */
export interface BoundServer {
  server: Server;
  port: number;
  /** Hands the requests to the process's listener from now on. */
  serve(listener: RequestListener): void;
  /** Lets the port go (the set-up failed). */
  close(): Promise<void>;
}

/**
 * Binds PORT before the slow set-up (the cluster, the database and its migrations), so that a port in
 * use stops the process at once naming PORT instead of seconds later; until `serve`, a request is
 * answered 503 `Starting` with `Retry-After: 1` (readiness probes included).
 */
export async function bindEarly(
  config: Pick<ServerConfig, 'port' | 'maxHeaderBytes'>,
  tls: ServerTls | undefined,
  host: string | undefined,
): Promise<BoundServer> {
  let ready: RequestListener | undefined;
  const starting = apiError('Starting', 'the server is starting; retry shortly', retryAfter(1)).toResponse();
  const server = createLimitedHttpServer(
    config,
    (req, res) => {
      if (ready) return ready(req, res);
      res.writeHead(starting.status, starting.headers).end(starting.body);
    },
    tls,
  );
  const port = await listenOnSetting(server, config.port, host, 'PORT');
  return {
    server,
    port,
    serve: (listener) => {
      ready = listener;
    },
    close: () => drain(server, 0),
  };
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  context: AppContext;
  /** Drains in-flight requests, then releases everything. */
  close(graceMs?: number): Promise<void>;
}

/** Serves on the bound port from now on; closing drains in-flight requests, then releases the context. */
export function serveWithContext(
  bound: BoundServer,
  listener: RequestListener,
  context: AppContext,
  defaultGraceMs: number,
): RunningServer {
  bound.serve(listener);
  const { server, port } = bound;
  return {
    url: `${server instanceof HttpsServer ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    server,
    context,
    async close(graceMs = defaultGraceMs) {
      await drain(server, graceMs);
      await context.close();
      // The last requests' spans are still batched: sent now, before the process exits.
      await flushTraces();
    },
  };
}
