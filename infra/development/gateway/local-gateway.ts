import { pathToFileURL } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAppContext, type AppContext, type AppContextOptions } from '../../../shared/server/app/app-context.ts';
import { createNodeRequestListener } from '../../../knative/adapters/node-http-adapter.ts';
import { createBridgeProxy } from './bridge-proxy.ts';
import { gatewayRules, resolveGatewayTarget } from '../../../shared/contract/routes/gateway-routing.ts';
import { FUNCTION_NAMES, type FunctionName } from '../../../shared/contract/routes/route-table.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { onShutdownSignal, startOrExit } from '../../../knative/node-http/start-up.ts';
import type { Settings } from '../../../shared/base/config/settings.ts';
import {
  bindEarly,
  serveWithContext,
  type BoundServer,
  type RunningServer,
} from '../../../knative/node-http/running-server.ts';
import { createFunctionHandler, FUNCTION_MODULES } from '../../../functions/function-registry.ts';
import { setUpCluster } from '../cluster/cluster-setup.ts';
import { gatewayTls } from './gateway-tls.ts';
import { developmentServices } from '../development-services.ts';
import { loadDevelopmentSettings, type DevelopmentSettings } from '../local/local-settings.ts';
import { startTracing } from '../../../shared/base/tracing/start-tracing.ts';
import { traceGatewayHop } from '../../../shared/base/tracing/gateway-span.ts';
import { startLocalDevelopment } from './local-start-up.ts';
import { boundAddress } from '../local/local-bind-address.ts';
import { startLocalController } from '../controller/local-controller.ts';

/**
 * `npm start`: every function in one process behind a gateway that routes by path exactly as
 * the production gateway does (the same rules the chart's HTTPRoute is rendered from). `local`:
 * local development's settings (LOCAL_HTTPS, the data folder), their defaults when not given.
 */
export async function startLocalGateway(
  settings: Settings,
  options: AppContextOptions & { host?: string; local?: DevelopmentSettings } = {},
): Promise<RunningServer> {
  const tls = await gatewayTls(settings, options.local ?? loadDevelopmentSettings({}));
  const bound = await bindEarly(settings.server, tls, options.host);
  try {
    await startTracing(
      settings.tracing,
      'platform-api-local-gateway',
      options.logger ?? createLogger({ level: settings.server.logLevel }),
    );
    return await serveGateway(bound, settings, options, tls);
  } catch (error) {
    await bound.close();
    throw error;
  }
}

async function serveGateway(
  bound: BoundServer,
  settings: Settings,
  options: AppContextOptions,
  tls: Awaited<ReturnType<typeof gatewayTls>>,
): Promise<RunningServer> {
  const context = await createAppContext(settings, options);
  // The cluster of KUBECONFIG (not one a test hands over) or the built-in emulator.
  await setUpLocalCluster(context, settings.cluster.kubeconfig !== undefined && options.kubeConfig === undefined);
  // With the checkout's local state, a database held by another process is reported now, not per request.
  if (options.development?.localState) await context.runs.openIfEmbedded();
  // One process serves every function: each /readyz answers for all of them (the CRDs, the database).
  const served = Object.values(FUNCTION_MODULES);
  const listeners = new Map<FunctionName, (req: IncomingMessage, res: ServerResponse) => void>();
  for (const name of FUNCTION_NAMES)
    listeners.set(name, createNodeRequestListener(createFunctionHandler(name, context, served), context.config));
  const bridge = createBridgeProxy(context.config.bridgeUpstreamUrl, context.config);
  const rules = gatewayRules(context.routes);
  const running = serveWithContext(
    bound,
    (req, res) => {
      const target = resolveGatewayTarget(rules, req.url ?? '/');
      traceGatewayHop(req, res, target, () => {
        if (target === 'bridge') bridge(req, res);
        else listeners.get(target)!(req, res);
      });
    },
    context,
    10_000,
  );
  context.logger.info('local gateway listening', {
    url: `${tls ? 'https' : 'http'}://localhost:${running.port}`,
    address: boundAddress(running.server),
    functions: FUNCTION_NAMES,
    ...(tls ? { tlsCertificateSha256: tls.fingerprint, tlsCertificateFile: tls.certificateFile } : {}),
  });
  return running;
}

/**
 * The cluster set-up before the functions serve (the chart installs the same CRDs from its `crds`
 * template): the CRDs installed in the cluster the process uses (KUBECONFIG, or the built-in emulator,
 * which also gets the example Project). A cluster that refuses or cannot be reached does not stop the
 * start: the failure is logged, and `/readyz` answers 503 until the CRDs are served (`npm run
 * local:setup` installs them later).
 */
async function setUpLocalCluster(context: AppContext, fromKubeconfig: boolean): Promise<void> {
  const cluster = await context.cluster();
  if (!cluster.builtInEmulator && !fromKubeconfig) return;
  try {
    await setUpCluster(cluster.kubeConfig, context.config.apiGroup, context.logger, {
      seedExample: cluster.builtInEmulator,
    });
  } catch (error) {
    if (cluster.builtInEmulator) throw error;
    context.logger.error('the cluster could not be set up: the resources routes are not ready until it is', {
      cluster: cluster.description,
      detail: error instanceof Error ? error.message : String(error),
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { settings, local, logger, host, serveConsole } = await startLocalDevelopment();
  const running = await startOrExit(logger, () =>
    startLocalGateway(settings, {
      logger,
      host,
      local,
      development: developmentServices(local.dataDir),
    }),
  );
  const consoleServer = await serveConsole(running.url);
  // Issue 44 item 3: runs started locally are claimed and end (LOCAL_CONTROLLER=false: none is).
  const controller = await startOrExit(logger, () => startLocalController(settings, local, running, logger));
  onShutdownSignal(logger, async () => {
    await controller?.stop();
    await consoleServer.close();
    await running.close();
  });
}
