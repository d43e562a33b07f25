import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { settingReader, type SettingReader } from './setting-values.ts';

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
  const setting = settingReader(env);
  const apiBaseUrl = setting.text('CONSOLE_API_BASE_URL');
  return {
    apiBaseUrl: apiBaseUrl === undefined ? undefined : origin('CONSOLE_API_BASE_URL', apiBaseUrl),
    connectOrigins: setting.list('CONSOLE_CONNECT_ORIGINS').map((entry) => origin('CONSOLE_CONNECT_ORIGINS', entry)),
    assetsDir: setting.text('CONSOLE_ASSETS_DIR'),
    localPort: localPort(setting, apiPort),
  };
}

function localPort(setting: SettingReader, apiPort: number): number {
  if (setting.text('CONSOLE_PORT') === undefined && apiPort === 65_535)
    throw new ConfigError('CONSOLE_PORT', 'is required when PORT is 65535 (the default is PORT+1)');
  return setting.integer('CONSOLE_PORT', { fallback: apiPort === 0 ? 0 : apiPort + 1, min: 0, max: 65_535 });
}

/** An http(s) origin: CSP sources and CORS compare origins, so a path would silently match nothing. */
function origin(variable: string, text: string): string {
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
