import { ConfigError } from '../../../shared/config/config-error.ts';

/** What the console's static server needs (issue 24): where the API is, where the build is, where it listens. */
export interface ConsoleSettings {
  /** CONSOLE_API_BASE_URL: the API's origin, served as `/config.json` and allowed by `connect-src`. */
  apiBaseUrl: string;
  /** CONSOLE_CONNECT_ORIGINS: further origins the app fetches from (the OpenID Provider's discovery and token endpoint). */
  connectOrigins: string[];
  /** CONSOLE_ASSETS_DIR: the Vite build (dist/console). */
  assetsDir: string | undefined;
  /** PORT (0: any free port). */
  port: number;
}

/** Reads the console's settings from its environment; a bad value throws ConfigError naming the variable. */
export function consoleSettings(env: Record<string, string | undefined>): ConsoleSettings {
  const apiBaseUrl = origin('CONSOLE_API_BASE_URL', env.CONSOLE_API_BASE_URL);
  const connectOrigins = (env.CONSOLE_CONNECT_ORIGINS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => origin('CONSOLE_CONNECT_ORIGINS', entry));
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ConfigError('PORT', 'is not a port number');
  return { apiBaseUrl, connectOrigins, assetsDir: env.CONSOLE_ASSETS_DIR || undefined, port };
}

/** An http(s) origin: CSP sources and CORS compare origins, so a path would silently match nothing. */
function origin(variable: string, text: string | undefined): string {
  if (!text) throw new ConfigError(variable, 'is required: the API origin, e.g. https://api.example.com');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, `"${text}" is not a URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text.replace(/\/$/, ''))
    throw new ConfigError(variable, `"${text}" is not an origin such as https://api.example.com (no path)`);
  return url.origin;
}
