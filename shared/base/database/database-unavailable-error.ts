import { CatalogueError, retryAfter } from '../http/error-catalogue.ts';

/**
 * The database server cannot be reached right now (refused, terminated, timed out); retrying later
 * may succeed. Answered 503 `DatabaseUnavailable` with `Retry-After` by the chain's error filter.
 */
export class DatabaseUnavailableError extends CatalogueError {
  /** A hint for the `Retry-After` header. */
  readonly retryAfterSeconds = 5;

  constructor(options: { cause: unknown }) {
    super('DatabaseUnavailable', 'the database is unavailable; retry shortly', retryAfter(5));
    this.cause = options.cause;
    this.name = 'DatabaseUnavailableError';
  }
}

const UNREACHABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATEs where the server, not the statement, is the problem: the whole class 08 (connection
// exception), shutdown in progress / crash / starting up, and too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

// node-postgres reports lost connections and its own timeouts only by message.
const UNAVAILABLE_CLIENT_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable|Connection ended/i;

/** Whether `error` means the server could not be reached, as opposed to a bug or a rejected statement. */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNREACHABLE_NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true;
  }
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  return UNAVAILABLE_CLIENT_MESSAGES.test(error.message);
}

/** Wraps a connection failure in `DatabaseUnavailableError`; returns any other error unchanged. */
export function classifyDatabaseError(error: unknown): unknown {
  return isConnectionFailure(error) && !(error instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError({ cause: error })
    : error;
}
