import { fileURLToPath, pathToFileURL } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAppContext, type AppContextOptions } from '../shared/app/app-context.ts';
import { createNodeRequestListener } from '../shared/adapters/node-http.ts';
import { createBridgeProxy } from '../shared/bridge/bridge-proxy.ts';
import { gatewayRules, resolveGatewayTarget } from '../shared/routes/gateway-routing.ts';
import { FUNCTION_NAMES, type FunctionName } from '../shared/routes/route-table.ts';
import { createLimitedHttpServer } from '../shared/server/limited-http-server.ts';
import { createLogger, logLevelFromEnv } from '../shared/logging/logger.ts';
import { onShutdownSignal, startOrExit } from '../shared/server/start-up.ts';
import type { Environment } from '../shared/config/server-config.ts';
import { serveWithContext, type RunningServer } from '../shared/server/running-server.ts';
import { createFunctionHandler } from './function-registry.ts';
import { seedLocalExample } from './resources/local-example.ts';
import { localDevelopmentTls, tlsFromSettings, type ServerTls } from '../shared/tls/server-tls.ts';
import { ConfigError } from '../shared/config/config-error.ts';

/** Where `npm start` keeps what it makes for itself (`.data/tls/` with LOCAL_HTTPS=true). */
const LOCAL_DATA_DIR = fileURLToPath(new URL('../.data', import.meta.url));

/** TLS_CERT_FILE/TLS_KEY_FILE when given; else, with LOCAL_HTTPS=true, a certificate made under `.data/`. */
async function gatewayTls(env: Environment): Promise<ServerTls | undefined> {
  const given = await tlsFromSettings(env);
  const local = env.LOCAL_HTTPS?.trim() ?? '';
  if (!['', 'true', 'false'].includes(local)) throw new ConfigError('LOCAL_HTTPS', `"${local}" is not true or false`);
  if (given || local !== 'true') return given;
  return localDevelopmentTls(LOCAL_DATA_DIR);
}

/**
 * `npm start`: every function in one process behind a gateway that routes by path exactly as
 * the production gateway does (the same rules the chart's HTTPRoute is rendered from).
 */
export async function startLocalGateway(env: Environment, options: AppContextOptions & { host?: string } = {}): Promise<RunningServer> {
  const tls = await gatewayTls(env);
  const context = await createAppContext(env, options);
  if (context.kubernetes.builtInEmulator) await seedLocalExample(context);
  const listeners = new Map<FunctionName, (req: IncomingMessage, res: ServerResponse) => void>();
  for (const name of FUNCTION_NAMES) listeners.set(name, createNodeRequestListener(createFunctionHandler(name, context), context.config));
  const bridge = createBridgeProxy(context.config.bridgeUpstreamUrl);
  const rules = gatewayRules(context.routes);
  const server = createLimitedHttpServer(context.config, (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const target = resolveGatewayTarget(rules, path);
    if (target === 'bridge') bridge(req, res);
    else listeners.get(target)!(req, res);
  }, tls);
  const running = await serveWithContext(server, context, options.host, 10_000);
  context.logger.info('local gateway listening', {
    url: `${tls ? 'https' : 'http'}://localhost:${running.port}`,
    functions: FUNCTION_NAMES,
    ...(tls ? { tlsCertificateSha256: tls.fingerprint } : {}),
  });
  return running;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const logger = createLogger({ level: logLevelFromEnv(process.env.LOG_LEVEL) });
  const running = await startOrExit(logger, () => startLocalGateway(process.env, { logger }));
  onShutdownSignal(logger, () => running.close());
}
