import { createAppContext, type AppContextOptions } from '../shared/app/app-context.ts';
import { createNodeRequestListener } from '../shared/adapters/node-http.ts';
import { createLimitedHttpServer } from '../shared/server/limited-http-server.ts';
import { serveWithContext, type RunningServer } from '../shared/server/running-server.ts';
import type { Environment } from '../shared/config/server-config.ts';
import { isFunctionName, prepareSingleFunction } from '../functions/function-registry.ts';
import { ConfigError } from '../shared/config/config-error.ts';
import { FUNCTION_NAMES } from '../shared/routes/route-table.ts';

/**
 * The Knative container: one function (FUNCTION_TARGET) on a lean node:http server listening on
 * PORT. The functions-framework is not on this path: it is several times slower and buffers
 * bodies of any size before a handler runs.
 */
export async function startFunctionServer(env: Environment, options: AppContextOptions & { host?: string } = {}): Promise<RunningServer> {
  const target = env.FUNCTION_TARGET ?? '';
  if (!isFunctionName(target)) {
    throw new ConfigError('FUNCTION_TARGET', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
  }
  const context = await createAppContext(env, options);
  const handler = await prepareSingleFunction(target, context, options.localDataDir !== undefined);
  const server = createLimitedHttpServer(context.config, createNodeRequestListener(handler, context.config));
  const running = await serveWithContext(server, context, options.host, 25_000);
  context.logger.info('function listening', { function: target, service: env.K_SERVICE, revision: env.K_REVISION, port: running.port });
  return running;
}
