// How `npm start` (local-gateway.ts) and `npm run fleet` (fleet-main.ts) begin, the same for both: the
// product's settings and local development's parsed once (the local console's origins added to the
// API's), the logger, the warning when the bind address is reachable from the network, and the
// console's port bound before the API's slow start. The console is served once the API listens.
import type { Settings } from '../../../shared/base/config/settings.ts';
import { createLogger, type Logger } from '../../../shared/base/logging/logger.ts';
import { settingsOrExit, startOrExit } from '../../../knative/node-http/start-up.ts';
import type { RunningConsole } from '../../../knative/console-server/console-server.ts';
import { gatewayTls } from './gateway-tls.ts';
import { bindLocalConsole, serveLocalConsole, withLocalConsoleOrigins } from './local-console.ts';
import { warnIfReachableFromNetwork } from '../local/local-bind-address.ts';
import { loadDevelopmentSettings, type DevelopmentSettings } from '../local/local-settings.ts';

export interface LocalStart {
  settings: Settings;
  local: DevelopmentSettings;
  logger: Logger;
  /** Where the gateway and the console listen: loopback unless LOCAL_BIND_ADDRESS says otherwise. */
  host: string;
  /** Serves the console on its bound port, calling the API at `apiUrl` (as a browser names it: localhost). */
  serveConsole(apiUrl: string): Promise<RunningConsole>;
}

/** The start both local topologies share; a bad setting or a port in use ends the process, naming it. */
export async function startLocalDevelopment(): Promise<LocalStart> {
  const local = settingsOrExit(process.env, loadDevelopmentSettings);
  // The console (issue 24) on the next port: its origins are ones the API allows (the fleet tells its replicas).
  const settings = withLocalConsoleOrigins(settingsOrExit(process.env), local);
  const logger = createLogger({ level: settings.server.logLevel });
  // Loopback unless LOCAL_BIND_ADDRESS says otherwise (issue 44, item 2): the admin password is known.
  const host = local.bindAddress;
  warnIfReachableFromNetwork(host, logger);
  // Served as the API is: over HTTPS with its certificate when it has one (issue 44, item 4).
  const consoleTls = await startOrExit(logger, () => gatewayTls(settings, local));
  const consolePort = await startOrExit(logger, () => bindLocalConsole(settings, host, consoleTls));
  return {
    settings,
    local,
    logger,
    host,
    serveConsole: (apiUrl) =>
      startOrExit(logger, () =>
        serveLocalConsole(consolePort, settings, apiUrl.replace('127.0.0.1', 'localhost'), logger),
      ),
  };
}
