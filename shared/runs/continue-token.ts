import { InvalidContinueTokenError } from './run-errors.ts';
import { isUuid } from './run-id.ts';

/** The position after the last run of a page: its `(createdAt, id)`, the keyset sort key. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

const TOKEN_VERSION = 1;

/** Encodes a position as an opaque, URL-safe token. */
export function encodeContinueToken(position: ListPosition): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, c: position.createdAt, i: position.id })).toString('base64url');
}

/** Decodes a token from `encodeContinueToken`; anything else throws `InvalidContinueTokenError`. */
export function decodeContinueToken(token: string): ListPosition {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidContinueTokenError();
  }
  const { v, c, i } = (decoded ?? {}) as Record<string, unknown>;
  if (v !== TOKEN_VERSION || typeof c !== 'string' || typeof i !== 'string' || !isUuid(i)) {
    throw new InvalidContinueTokenError();
  }
  if (!isStorableTimestamp(c)) throw new InvalidContinueTokenError();
  return { createdAt: c, id: i };
}

// A four-digit year from 1970 on: every run was created then, and PostgreSQL cannot compare with
// what JavaScript dates allow beyond (year 0, +275760), which would otherwise fail the query.
const TIMESTAMP = /^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether `value` is a canonical ISO timestamp (as toISOString writes it) in the range runs can have. */
function isStorableTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && date.toISOString() === value;
}
