import { assignRedacted, isSecretField } from './redaction.ts';
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

/** The keys every record begins with; a base or a call naming one of them takes the general path. */
const RECORD_KEYS = new Set(['time', 'level', 'message']);

/**
 * Creates a JSON-lines logger (batched stdout by default) that redacts secret fields.
 * A line is `{"time":…,"level":…,"message":…, base…, fields…}`. The base (a child's fields) is the
 * same on every line, so it is redacted and serialised once, when the logger is made; a line then
 * serialises only its own fields (issue 25: the request line was most of a request's logging cost).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? 'info'];
  const write = options.write ?? defaultWrite();
  const base = options.base ?? {};
  const baseKeys = Object.keys(base);
  const baseJson = jsonMembers(assignRedacted({}, base));
  const simpleBase = !baseKeys.some((key) => RECORD_KEYS.has(key));
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVEL_ORDER[level] < threshold) return;
    if (!simpleBase || (fields !== undefined && overlaps(fields, base))) {
      write(generalLine(level, message, base, fields));
      return;
    }
    const fieldsJson =
      fields === undefined ? '' : jsonMembers(isFlatAndPublic(fields) ? fields : assignRedacted({}, fields));
    write(`{"time":"${isoNow()}","level":"${level}","message":${JSON.stringify(message)}${baseJson}${fieldsJson}}`);
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

/** The line as one merged object gives it: a field overrides the base's (or a record key) in its place. */
function generalLine(
  level: LogLevel,
  message: string,
  base: Record<string, unknown>,
  fields: Record<string, unknown> | undefined,
): string {
  const record = assignRedacted({ time: isoNow(), level, message }, base);
  if (fields) assignRedacted(record, fields);
  return JSON.stringify(record);
}

/** Whether a call's fields name a record key or one of the base's. */
function overlaps(fields: Record<string, unknown>, base: Record<string, unknown>): boolean {
  for (const key in fields) if (RECORD_KEYS.has(key) || Object.hasOwn(base, key)) return true;
  return false;
}

/**
 * Whether redaction would copy these fields unchanged: no secret name and no object value (whose
 * own fields would need looking into). Then they are serialised as they are, without the copy;
 * the request line, on every request, is such a record.
 */
function isFlatAndPublic(fields: Record<string, unknown>): boolean {
  for (const key in fields) {
    const value = fields[key];
    if ((typeof value === 'object' && value !== null) || isSecretField(key)) return false;
  }
  return true;
}

/** An object's members as JSON to append after others: `,"a":1,"b":2`, or '' for none. */
function jsonMembers(record: Record<string, unknown>): string {
  const json = JSON.stringify(record);
  return json.length > 2 ? `,${json.slice(1, -1)}` : '';
}

let isoMs = Number.NaN;
let isoText = '';

/** The time now as ISO 8601; lines logged within one millisecond share the formatting. */
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

function defaultWrite(): (line: string) => void {
  const lines = stdoutLines();
  return (line) => lines.write(line);
}
