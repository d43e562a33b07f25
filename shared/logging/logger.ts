import { assignRedacted } from './redaction.ts';
import { stdoutLines } from './batched-line-writer.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

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

/** Reads LOG_LEVEL; an unknown value falls back to info. */
export function logLevelFromEnv(value: string | undefined): LogLevel {
  return value !== undefined && value in LEVEL_ORDER ? (value as LogLevel) : 'info';
}

function defaultWrite(): (line: string) => void {
  const lines = stdoutLines();
  return (line) => lines.write(line);
}
