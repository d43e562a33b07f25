import { createAppContext, type AppContext, type AppContextOptions } from '../shared/app/app-context.ts';
import { createNodeRequestListener } from '../shared/adapters/node-http-adapter.ts';
import type { Settings } from '../shared/config/settings.ts';
import { createLogger } from '../shared/logging/logger.ts';
import type { FunctionName } from '../shared/routes/route-table.ts';
import { createContextHandler } from '../shared/runtime/core-handler.ts';
import type { FunctionDefinition } from '../shared/runtime/function-definition.ts';
import { createLimitedHttpServer } from '../shared/server/limited-http-server.ts';
import { serveWithContext, type RunningServer } from '../shared/server/running-server.ts';
import { tlsFromSettings } from '../shared/tls/server-tls.ts';
import { onShutdownSignal, settingsOrExit, startOrExit } from '../shared/server/start-up.ts';
import { startDevelopmentCluster } from '../infra/development/development-cluster.ts';
import { openLocalRunHistory } from '../shared/app/local-run-history.ts';

/**
 * When each function connects to the cluster. Only the resources function calls it from its
 * handlers; the others need it just to verify a ServiceAccount or OIDC token or to authorise
 * one, so they load the Kubernetes client when such a request first comes (the admin needs neither).
 */
const CLUSTER_USE: Record<FunctionName, AppContextOptions['cluster']> = {
  login: 'on-first-use',
  'public-config': 'on-first-use',
  resources: 'at-start',
  internal: 'on-first-use',
  'run-logs': 'on-first-use',
};

/** Knative's default termination grace is 30 s; finish in-flight requests well inside it. */
const DRAIN_GRACE_MS = 25_000;

/**
 * One function on a lean node:http server listening on PORT. The functions-framework is not on
 * this path: it is several times slower and buffers bodies of any size before a handler runs.
 */
export async function serveFunction(
  name: FunctionName,
  create: (context: AppContext) => FunctionDefinition,
  settings: Settings,
  options: AppContextOptions & { host?: string } = {},
): Promise<RunningServer> {
  const tls = await tlsFromSettings(settings.tls);
  const context = await createAppContext(settings, { cluster: CLUSTER_USE[name], ...options });
  if (options.localDataDir !== undefined) await openLocalRunHistory(name, context);
  const handler = createContextHandler(create(context), context);
  const server = createLimitedHttpServer(context.config, createNodeRequestListener(handler, context.config), tls);
  const running = await serveWithContext(server, context, options.host, DRAIN_GRACE_MS);
  context.logger.info('function listening', {
    function: name,
    service: settings.runtime.knativeService,
    revision: settings.runtime.knativeRevision,
    port: running.port,
    tls: tls !== undefined,
  });
  return running;
}

/**
 * The container process of one function (each knative/functions/<name>.ts, bundled to
 * dist/functions/<name>.mjs): serves until SIGTERM, then drains and exits. Outside production
 * without a cluster or database configured, one function alone uses the checkout's local state.
 */
export async function runFunctionContainer(
  name: FunctionName,
  create: (context: AppContext) => FunctionDefinition,
): Promise<void> {
  const settings = settingsOrExit(process.env);
  const logger = createLogger({ level: settings.server.logLevel });
  const running = await startOrExit(logger, () =>
    serveFunction(name, create, settings, {
      logger,
      localDataDir: settings.local.dataDir,
      developmentCluster: startDevelopmentCluster,
    }),
  );
  onShutdownSignal(logger, () => running.close(DRAIN_GRACE_MS));
}
