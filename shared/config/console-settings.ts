import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';

/** The web console's settings (issue 24, docs/console.md): its static server, and where local mode serves it. */
export interface ConsoleSettings {
  /** CONSOLE_API_BASE_URL: the API's origin, served as `/config.json` and allowed by `connect-src`; required by FUNCTION_TARGET=console. */
  readonly apiBaseUrl: string | undefined;
  /** CONSOLE_CONNECT_ORIGINS: further origins the app fetches from (the OpenID Provider's discovery and token endpoint). */
  readonly connectOrigins: readonly string[];
  /** CONSOLE_ASSETS_DIR: the Vite build to serve (default: dist/console beside the bundles). */
  readonly assetsDir: string | undefined;
  /** CONSOLE_PORT, else the port after PORT's (0 when PORT is 0): the console beside `npm start` and `npm run fleet`. */
  readonly localPort: number;
}

export function loadConsoleSettings(env: Environment, apiPort: number): ConsoleSettings {
  const apiBaseUrl = env.CONSOLE_API_BASE_URL?.trim()
    ? origin('CONSOLE_API_BASE_URL', env.CONSOLE_API_BASE_URL)
    : undefined;
  const connectOrigins = (env.CONSOLE_CONNECT_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => origin('CONSOLE_CONNECT_ORIGINS', entry));
  return {
    apiBaseUrl,
    connectOrigins,
    assetsDir: env.CONSOLE_ASSETS_DIR?.trim() || undefined,
    localPort: localPort(env.CONSOLE_PORT, apiPort),
  };
}

function localPort(text: string | undefined, apiPort: number): number {
  if (text === undefined || text.trim() === '') {
    if (apiPort === 65_535)
      throw new ConfigError('CONSOLE_PORT', 'is required when PORT is 65535 (the default is PORT+1)');
    return apiPort === 0 ? 0 : apiPort + 1;
  }
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new ConfigError('CONSOLE_PORT', `"${text}" is not a port number (0 to 65535)`);
  return port;
}

/** An http(s) origin: CSP sources and CORS compare origins, so a path would silently match nothing. */
function origin(variable: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ConfigError(variable, `"${text}" is not a URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.trim().replace(/\/$/, ''))
    throw new ConfigError(variable, `"${text}" is not an origin such as https://api.example.com (no path)`);
  return url.origin;
}
