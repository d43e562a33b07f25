import { redactFields } from './redaction.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Whether `value` names a log level. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** A structured logger writing one JSON object per line; every record passes through redaction. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Whether a record at this level would be written (skip building costly fields otherwise). */
  isEnabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  base?: Record<string, unknown>;
}

/** Creates a JSON-lines logger (stdout by default) that redacts secret fields. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const base = options.base ?? {};
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] < threshold) return;
    const record = redactFields({ time: new Date().toISOString(), level, message, ...base, ...fields });
    write(JSON.stringify(record));
  };
  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => createLogger({ ...options, base: { ...base, ...fields } }),
    isEnabled: (level) => LEVEL_ORDER[level] >= threshold,
  };
}

/**
 * The level of the logger that reports start-up itself: LOG_LEVEL when it names a level, else
 * info. A bad value is then refused by the server configuration, through this logger.
 */
export function logLevelFromEnv(value: string | undefined): LogLevel {
  const text = value?.trim() ?? '';
  return isLogLevel(text) ? text : 'info';
}
