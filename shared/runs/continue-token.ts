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
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== c) throw new InvalidContinueTokenError();
  return { createdAt: c, id: i };
}
