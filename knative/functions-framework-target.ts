import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Server as HttpServer } from 'node:http';
import * as functions from '@google-cloud/functions-framework';
import { createFunctionsFrameworkHandler } from './adapters/functions-framework-adapter.ts';
import { ConfigError } from '../shared/base/config/config-error.ts';
import { FUNCTION_NAMES } from '../shared/contract/routes/route-table.ts';
import { createLogger } from '../shared/base/logging/logger.ts';
import { settingsOrExit, startOrExit } from './node-http/start-up.ts';
import { frameworkFlags } from './functions-framework-options.ts';
import { FUNCTION_MODULES } from '../functions/function-registry.ts';
import { isFunctionName } from './function-target.ts';
import { startFunction } from './start-function.ts';
import type { DevelopmentServices } from '../shared/server/app/development-services.ts';
import { settleResponseShape } from './node-http/response-shape.ts';
import { limitUnreadableRequests } from './node-http/limited-http-server.ts';
import type { ServerConfig } from '../shared/base/config/server-config.ts';

/**
 * Registers the function named by --target (or FUNCTION_TARGET) with the functions-framework, and
 * only that one. The package's `main` (knative/functions-framework.ts) hands over nothing more; the
 * development entry (infra/development/entries/functions-framework.ts) hands over local
 * development's cluster and database (`development`).
 */
export async function registerFrameworkTarget(development?: DevelopmentServices): Promise<void> {
  // The port the framework really serves on gives the token's `iss` when API_BASE_URL is unset.
  const settings = settingsOrExit({ ...process.env, ...frameworkFlags(process.argv) });
  const logger = createLogger({ level: settings.server.logLevel });
  const target = settings.runtime.functionTarget ?? 'function';
  await startOrExit(logger, async () => {
    if (!isFunctionName(target))
      throw new ConfigError('--target', `"${target}" is not one of ${FUNCTION_NAMES.join(', ')}`);
    const module = FUNCTION_MODULES[target];
    const { context, handler } = await startFunction(module, settings, {
      logger,
      ...(development ? { development } : {}),
    });
    // The framework makes its own server; its responses are node:http's too (knative/node-http/response-shape.ts).
    settleResponseShape();
    limitFrameworkServer(context.config);
    functions.http(target, createFunctionsFrameworkHandler(handler, context.config));
  });
}

/**
 * The framework makes and listens on its own server once this module has registered the target: that
 * server, the next to listen in this process, gets every entry's header cap (MAX_REQUEST_HEADER_BYTES)
 * and JSON answers to requests node cannot read (414, 431, with an `Audit-Id`), as the container's has.
 */
function limitFrameworkServer(config: Pick<ServerConfig, 'maxHeaderBytes'>): void {
  const onListen = (message: unknown) => {
    const { server } = message as { server: unknown };
    if (!(server instanceof HttpServer)) return;
    unsubscribe(LISTEN_CHANNEL, onListen);
    limitUnreadableRequests(server, config);
  };
  subscribe(LISTEN_CHANNEL, onListen);
}

/** Node's channel of `server.listen()` calls (diagnostics_channel, Node 22.3 and later). */
const LISTEN_CHANNEL = 'tracing:net.server.listen:asyncStart';
