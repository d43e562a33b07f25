import type { Server } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import type { AppContext } from '../app/app-context.ts';
import { drain, listen } from './limited-http-server.ts';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  context: AppContext;
  /** Drains in-flight requests, then releases everything. */
  close(graceMs?: number): Promise<void>;
}

/** Listens on the configured port; closing drains in-flight requests, then releases the context. */
export async function serveWithContext(
  server: Server,
  context: AppContext,
  host: string | undefined,
  defaultGraceMs: number,
): Promise<RunningServer> {
  const port = await listen(server, context.config.port, host);
  return {
    url: `${server instanceof HttpsServer ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    server,
    context,
    async close(graceMs = defaultGraceMs) {
      await drain(server, graceMs);
      await context.close();
    },
  };
}
