// `npm run fleet [-- --replicas N]`: every function as its own processes behind the local gateway.
import { parseArgs } from 'node:util';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import { onShutdownSignal, settingsOrExit, startOrExit } from '../../../knative/node-http/start-up.ts';
import { startFleet } from './fleet.ts';
import { gatewayTls } from '../gateway/gateway-tls.ts';
import { bindLocalConsole, serveLocalConsole, withLocalConsoleOrigins } from '../gateway/local-console.ts';
import { warnIfReachableFromNetwork } from '../local/local-bind-address.ts';
import { loadDevelopmentSettings } from '../local/local-settings.ts';

const MAX_REPLICAS = 10;
// The console (issue 24) on the next port: its origins are ones the API allows (the fleet tells its replicas).
const local = settingsOrExit(process.env, loadDevelopmentSettings);
const settings = withLocalConsoleOrigins(settingsOrExit(process.env), local);
const logger = createLogger({ level: settings.server.logLevel });
// Loopback unless LOCAL_BIND_ADDRESS says otherwise (issue 44, item 2): the fleet's admin password is known.
const host = local.bindAddress;
warnIfReachableFromNetwork(host, logger);
// Served as the API is: over HTTPS with its certificate when it has one (issue 44, item 4).
const consoleTls = await startOrExit(logger, () => gatewayTls(settings, local));
const consolePort = await startOrExit(logger, () => bindLocalConsole(settings, host, consoleTls));
const fleet = await startOrExit(logger, () => {
  const { values } = parseArgs({ options: { replicas: { type: 'string', default: '1' } } });
  const replicas = Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new ConfigError('--replicas', `"${values.replicas}" is not a whole number from 1 to ${MAX_REPLICAS}`);
  // The replicas are handed the environment as given (forwarded, each parses its own).
  return startFleet(settings, process.env, {
    replicas,
    dataDir: local.dataDir,
    https: local.https,
    logger,
    host,
    onReplicaOutput: (replica, text) =>
      process.stdout.write(text.replace(/^(?=.)/gm, `[${replica.name}#${replica.index}] `)),
  });
});
const consoleServer = await startOrExit(logger, () =>
  serveLocalConsole(consolePort, settings, fleet.url.replace('127.0.0.1', 'localhost'), logger),
);
onShutdownSignal(logger, async () => {
  await consoleServer.close();
  await fleet.close();
});
