import { ConfigError } from '../../shared/base/config/config-error.ts';
import type { Environment } from '../../shared/base/config/environment.ts';
import { loadSettings, type Settings } from '../../shared/base/config/settings.ts';
import { createLogger, type Logger } from '../../shared/base/logging/logger.ts';
import { flushStdoutLines } from '../../shared/base/logging/batched-line-writer.ts';

/** What a settings loader returns: its values, with those spelled the deprecated way to warn about. */
interface LoadedSettings {
  readonly warnings: readonly string[];
  /** The product's settings carry the log level; a loader without one logs at the default level. */
  readonly server?: { readonly logLevel: Settings['server']['logLevel'] };
}

/**
 * An entry point's first step: the settings parsed once from its environment (`process.env`), by
 * `loadSettings` or the loader given (local development's `loadDevelopmentSettings`). A bad value
 * ends the process, reported by a logger at the default level since LOG_LEVEL itself may be the
 * bad value. A value spelled the deprecated way is warned about, naming the variable.
 */
export function settingsOrExit(env: Environment): Settings;
export function settingsOrExit<T extends LoadedSettings>(env: Environment, load: (env: Environment) => T): T;
export function settingsOrExit(
  env: Environment,
  load: (env: Environment) => LoadedSettings = loadSettings,
): LoadedSettings {
  let settings: LoadedSettings;
  try {
    settings = load(env);
  } catch (error) {
    return refuseToStart(createLogger(), error);
  }
  const logger = createLogger(settings.server ? { level: settings.server.logLevel } : {});
  for (const warning of settings.warnings) logger.warn(warning);
  return settings;
}

/** Runs a start-up step; a ConfigError ends the process with a message naming the variable. */
export async function startOrExit<T>(logger: Logger, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    return refuseToStart(logger, error);
  }
}

function refuseToStart(logger: Logger, error: unknown): never {
  if (error instanceof ConfigError) {
    logger.error(`refusing to start: ${error.message}`, { variable: error.variable });
  } else {
    logger.error('refusing to start', { error });
  }
  process.exit(1);
}

/** Drains and closes on SIGTERM/SIGINT, writes every pending log line, then exits. */
export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down: draining in-flight requests', { signal });
    shutdown().then(
      () => exitAfterFlush(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        exitAfterFlush(1);
      },
    );
  };
  process.once('SIGTERM', () => handle('SIGTERM'));
  process.once('SIGINT', () => handle('SIGINT'));
}

function exitAfterFlush(code: number): never {
  flushStdoutLines();
  process.exit(code);
}
