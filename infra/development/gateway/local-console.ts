// Local mode's console (issue 24): `npm start` and `npm run fleet` serve it on a second port
// (CONSOLE_PORT, by default PORT+1), built first when dist/console is missing or stale, and add its
// origins to the API's allowed CORS origins so the browser may call the API from it.
import type { Settings } from '../../../shared/base/config/settings.ts';
import { ANY_ORIGIN } from '../../../shared/base/config/cors-allowed-origins.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import type { DevelopmentSettings } from '../local/local-settings.ts';
import type { ServerTls } from '../../../knative/node-http/server-tls.ts';
import {
  bindConsoleServer,
  type BoundConsole,
  type RunningConsole,
} from '../../../knative/console-server/console-server.ts';
import { buildConsole, CONSOLE_DIST, consoleBuildIsStale } from '../../tools/build-console.ts';

/** The browser origins of a console on `port` (localhost and 127.0.0.1 are different origins to a browser). */
export function localConsoleOrigins(port: number, scheme: 'http' | 'https'): string[] {
  return [`${scheme}://localhost:${port}`, `${scheme}://127.0.0.1:${port}`];
}

/**
 * The console is served as its API is (issue 44, item 4): over HTTPS with the API's certificate when the
 * local gateway has one (LOCAL_HTTPS=true, or TLS_CERT_FILE), so a page from it may call the API at all.
 */
function localConsoleScheme(
  settings: Pick<Settings, 'tls'>,
  local: Pick<DevelopmentSettings, 'https'>,
): 'http' | 'https' {
  return local.https || settings.tls.files !== undefined ? 'https' : 'http';
}

/**
 * The settings with the local console's origins added to the allowed CORS origins (unless every origin
 * is allowed already). With PORT=0 the console's port is not known before it listens: its origins are
 * then not added (tests that serve a console name its origin themselves).
 */
export function withLocalConsoleOrigins(settings: Settings, local: Pick<DevelopmentSettings, 'https'>): Settings {
  const { corsAllowedOrigins } = settings.server;
  const port = settings.console.localPort;
  if (port === 0 || corsAllowedOrigins.includes(ANY_ORIGIN)) return settings;
  return {
    ...settings,
    server: {
      ...settings.server,
      corsAllowedOrigins: [
        ...new Set([...corsAllowedOrigins, ...localConsoleOrigins(port, localConsoleScheme(settings, local))]),
      ],
    },
  };
}

/**
 * Binds the console's port (CONSOLE_PORT, by default PORT+1) before the API's slow start: a port in use
 * stops `npm start` and `npm run fleet` at once, naming CONSOLE_PORT. `serveLocalConsole` serves it then.
 * `tls`: the local gateway's certificate (gateway-tls.ts), with which it serves HTTPS too.
 */
export function bindLocalConsole(settings: Settings, host?: string, tls?: ServerTls): Promise<BoundConsole> {
  return bindConsoleServer(settings.console.localPort, 'CONSOLE_PORT', host, tls, settings.server.maxHeaderBytes);
}

/** Builds the console if needed, then serves it on its bound port, pointed at the API on `apiBaseUrl`. */
export async function serveLocalConsole(
  bound: BoundConsole,
  settings: Settings,
  apiBaseUrl: string,
  logger: Logger,
): Promise<RunningConsole> {
  // A build named by CONSOLE_ASSETS_DIR is served as it is; the checkout's dist/console is kept fresh.
  if (settings.console.assetsDir === undefined && consoleBuildIsStale()) {
    logger.info('building the console (dist/console is missing or older than its sources)');
    await buildConsole();
  }
  const issuer = settings.identity.oidc?.issuerUrl;
  bound.serve({
    apiBaseUrl: new URL(apiBaseUrl).origin,
    connectOrigins: [...settings.console.connectOrigins, ...(issuer ? [new URL(issuer).origin] : [])],
    assetsDir: settings.console.assetsDir ?? CONSOLE_DIST,
  });
  logger.info('console listening', { url: `${new URL(bound.url).protocol}//localhost:${bound.port}`, api: apiBaseUrl });
  return bound;
}
