import { assignRedacted } from './redaction.ts';
import { stdoutLines } from './batched-line-writer.ts';

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
  /** Receives each line (without newline); default: stdout, batched so that logging never blocks a request. */
  write?: (line: string) => void;
  base?: Record<string, unknown>;
}

/** Creates a JSON-lines logger (batched stdout by default) that redacts secret fields. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? defaultWrite();
  const base = options.base ?? {};
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] < threshold) return;
    // Built redacted at once: one copy of the fields, not a merge and then a redacted copy of it.
    const record = assignRedacted({ time: new Date().toISOString(), level, message }, base);
    if (fields) assignRedacted(record, fields);
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

function defaultWrite(): (line: string) => void {
  const lines = stdoutLines();
  return (line) => lines.write(line);
}
