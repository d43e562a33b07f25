import type { Server } from 'node:http';
import { createAppContext, type AppContext, type AppContextOptions } from '../shared/app/app-context.ts';
import { createNodeRequestListener } from '../shared/adapters/node-http.ts';
import { createLimitedHttpServer, drain, listen } from '../shared/server/limited-http-server.ts';
import type { Environment } from '../shared/config/server-config.ts';
import { createFunctionHandler, isFunctionName } from '../functions/function-registry.ts';
import { ConfigError } from '../shared/config/config-error.ts';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  context: AppContext;
  /** Drains in-flight requests, then releases everything. */
  close(graceMs?: number): Promise<void>;
}

/**
 * The Knative container: one function (FUNCTION_TARGET) on a lean node:http server listening on
 * PORT. The functions-framework is not on this path: it is several times slower and buffers
 * bodies of any size before a handler runs.
 */
export async function startFunctionServer(env: Environment, options: AppContextOptions & { host?: string } = {}): Promise<RunningServer> {
  const target = env.FUNCTION_TARGET ?? '';
  if (!isFunctionName(target)) {
    throw new ConfigError('FUNCTION_TARGET', `"${target}" is not one of login, public-config, resources, internal, run-logs`);
  }
  const context = await createAppContext(env, options);
  const handler = createFunctionHandler(target, context);
  const server = createLimitedHttpServer(context.config, createNodeRequestListener(handler, context.config));
  const running = await serveWithContext(server, context, options.host, 25_000);
  context.logger.info('function listening', { function: target, service: env.K_SERVICE, revision: env.K_REVISION, port: running.port });
  return running;
}

/** Listens on the configured port; closing drains in-flight requests, then releases the context. */
export async function serveWithContext(server: Server, context: AppContext, host: string | undefined, defaultGraceMs: number): Promise<RunningServer> {
  const port = await listen(server, context.config.port, host);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    context,
    async close(graceMs = defaultGraceMs) {
      await drain(server, graceMs);
      await context.close();
    },
  };
}
