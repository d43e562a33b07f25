// Local mode's console (issue 24): `npm start` and `npm run fleet` serve it on a second port
// (CONSOLE_PORT, by default PORT+1), built first when dist/console is missing or stale, and add its
// origin to the API's CORS_ALLOWED_ORIGINS so the browser may call the API from it.
import type { Environment } from '../../../shared/config/environment.ts';
import { ConfigError } from '../../../shared/config/config-error.ts';
import type { Logger } from '../../../shared/logging/logger.ts';
import { startConsoleServer, type RunningConsole } from '../../../functions/console/server/console-server.ts';
import { buildConsole, CONSOLE_DIST, consoleBuildIsStale } from '../../tools/build-console.ts';

const DEFAULT_PORT = 8080;

/** CONSOLE_PORT, else the port after PORT's (0 when PORT is 0: any free port). */
export function localConsolePort(env: Environment): number {
  if (env.CONSOLE_PORT !== undefined && env.CONSOLE_PORT !== '') {
    const port = Number(env.CONSOLE_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new ConfigError('CONSOLE_PORT', 'is not a port number');
    return port;
  }
  const apiPort = env.PORT === undefined || env.PORT === '' ? DEFAULT_PORT : Number(env.PORT);
  return apiPort === 0 ? 0 : apiPort + 1;
}

/** The browser origins of a console on `port` (localhost and 127.0.0.1 are different origins to a browser). */
export function localConsoleOrigins(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
}

/** The environment with the console's origins added to CORS_ALLOWED_ORIGINS (unless it already allows every origin). */
export function withConsoleOrigins(env: Environment, port: number): Environment {
  const given = (env.CORS_ALLOWED_ORIGINS ?? '').trim();
  if (given === '*') return env;
  const origins = [
    ...new Set([
      ...given
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
      ...localConsoleOrigins(port),
    ]),
  ];
  return { ...env, CORS_ALLOWED_ORIGINS: origins.join(',') };
}

/** Builds the console if needed, then serves it on `port` pointed at the API on `apiBaseUrl`. */
export async function startLocalConsole(options: {
  port: number;
  apiBaseUrl: string;
  oidcIssuerUrl: string | undefined;
  logger: Logger;
  host?: string;
}): Promise<RunningConsole> {
  if (consoleBuildIsStale()) {
    options.logger.info('building the console (dist/console is missing or older than its sources)');
    await buildConsole();
  }
  const running = await startConsoleServer(
    {
      apiBaseUrl: new URL(options.apiBaseUrl).origin,
      connectOrigins: options.oidcIssuerUrl ? [new URL(options.oidcIssuerUrl).origin] : [],
      assetsDir: CONSOLE_DIST,
      port: options.port,
    },
    options.host,
  );
  options.logger.info('console listening', { url: `http://localhost:${running.port}`, api: options.apiBaseUrl });
  return running;
}
