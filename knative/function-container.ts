import type { AppContextOptions } from '../shared/server/app/app-context.ts';
import { createNodeRequestListener } from './adapters/node-http-adapter.ts';
import type { Settings } from '../shared/base/config/settings.ts';
import { createLogger } from '../shared/base/logging/logger.ts';
import type { FunctionModule } from '../shared/server/runtime/function-definition.ts';
import { bindEarly, serveWithContext, type RunningServer } from './node-http/running-server.ts';
import { tlsFromSettings } from './node-http/server-tls.ts';
import { onShutdownSignal, settingsOrExit, startOrExit } from './node-http/start-up.ts';
import type { DevelopmentServices } from '../shared/server/app/development-services.ts';
import { startFunction } from './start-function.ts';

/** Knative's default termination grace is 30 s; finish in-flight requests well inside it. */
const DRAIN_GRACE_MS = 25_000;

/**
 * One function on a lean node:http server listening on PORT. The functions-framework is not on
 * this path: it is several times slower and buffers bodies of any size before a handler runs.
 */
export async function serveFunction(
  module: FunctionModule,
  settings: Settings,
  options: AppContextOptions & { host?: string } = {},
): Promise<RunningServer> {
  const tls = await tlsFromSettings(settings.tls);
  const bound = await bindEarly(settings.server, tls, options.host);
  let running: RunningServer;
  try {
    const logger = options.logger ?? createLogger({ level: settings.server.logLevel });
    const { context, handler } = await startFunction(module, settings, { ...options, logger });
    running = serveWithContext(bound, createNodeRequestListener(handler, context.config), context, DRAIN_GRACE_MS);
  } catch (error) {
    await bound.close();
    throw error;
  }
  const { context } = running;
  context.logger.info('function listening', {
    function: module.name,
    service: settings.runtime.knativeService,
    revision: settings.runtime.knativeRevision,
    port: running.port,
    tls: tls !== undefined,
  });
  return running;
}

/**
 * The container process of one function (each knative/functions/<name>.ts, bundled to
 * dist/functions/<name>.mjs): serves until SIGTERM, then drains and exits. The development entry
 * (infra/development/entries/function-container.ts) wraps it, handing over local development's
 * cluster and database (`development`); this one, what the image runs, has none.
 */
export async function runFunctionContainer(module: FunctionModule, development?: DevelopmentServices): Promise<void> {
  const settings = settingsOrExit(process.env);
  const logger = createLogger({ level: settings.server.logLevel });
  const running = await startOrExit(logger, () =>
    serveFunction(module, settings, { logger, ...(development ? { development } : {}) }),
  );
  onShutdownSignal(logger, () => running.close(DRAIN_GRACE_MS));
}
