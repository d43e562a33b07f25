import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { CatalogueError } from '../http/error-catalogue.ts';

/** A `continue` token this server did not issue for this query, or that names no position it can list from. HTTP: 400. */
export class InvalidContinueTokenError extends CatalogueError {
  constructor() {
    super(
      'InvalidContinueToken',
      'the continue token is not one this API handed out for this query; start again from the first page',
    );
    this.name = 'InvalidContinueTokenError';
  }
}

/** The secret page tokens are signed with, read at each use: a rotated key takes effect at once. */
export type PageTokenKey = () => Uint8Array;

/** Checks one field of a position as read back from a token; false refuses the token. */
export type PositionField = (value: string) => boolean;

const MAC_BYTES = 16;
const SUB_KEY_BYTES = 32;
// Domain separation: the key that signs admin tokens signs nothing else under its own name; page tokens
// are keyed by a sub-key derived with HKDF (RFC 5869) under this label. Tokens keyed the earlier way
// (an HMAC of a label) are refused once after the upgrade, as after a key rotation (docs/security.md).
const SUB_KEY_INFO = 'platform-api page tokens';

/**
 * Keyset `continue` tokens bound to what issued them (issue 38): the position after a page, and a MAC
 * over it and the query it was issued for (its filters, in a fixed order), keyed by an HKDF sub-key of
 * the admin signing key that every replica shares. A token from another query, an altered or forged one, or one from
 * before a key rotation is refused (400), and the position a token names is checked field by field
 * before it reaches a query. Format: `<base64url(JSON array of the position)>.<base64url(MAC)>`.
 */
export class PageTokens {
  readonly #key: PageTokenKey;
  // One derived key per signing key (settings are replaced whole on rotation, the key with them).
  readonly #derived = new WeakMap<Uint8Array, Buffer>();

  constructor(key: PageTokenKey) {
    this.#key = key;
  }

  /** The token naming `position` after a page of `query` (the filters that chose the rows). */
  issue(query: readonly unknown[], position: readonly string[]): string {
    const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
    return `${payload}.${this.#mac(query, payload).toString('base64url')}`;
  }

  /** The position `token` names, when this server issued it for `query` and each field passes its check. */
  read(query: readonly unknown[], token: string, fields: readonly PositionField[]): string[] {
    const [payload, mac, ...rest] = token.split('.');
    if (payload === undefined || mac === undefined || rest.length > 0) throw new InvalidContinueTokenError();
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(query, payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidContinueTokenError();
    let position: unknown;
    try {
      position = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidContinueTokenError();
    }
    // Checked though signed: a token outlives the code that issued it, and a leaked key must not reach SQL.
    if (
      !Array.isArray(position) ||
      position.length !== fields.length ||
      !position.every((value, index) => typeof value === 'string' && fields[index]!(value))
    )
      throw new InvalidContinueTokenError();
    return position as string[];
  }

  #mac(query: readonly unknown[], payload: string): Buffer {
    return createHmac('sha256', this.#derivedKey())
      .update(JSON.stringify(query))
      .update('\n')
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES);
  }

  #derivedKey(): Buffer {
    const key = this.#key();
    let derived = this.#derived.get(key);
    if (derived === undefined) {
      derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), SUB_KEY_INFO, SUB_KEY_BYTES));
      this.#derived.set(key, derived);
    }
    return derived;
  }
}

/**
 * Page tokens keyed for this process alone: for stores made outside a server (tests, tools). A server
 * passes the key of its admin signing key, so that every replica reads every other's tokens.
 */
const PROCESS_KEY = randomBytes(32);
export const PROCESS_PAGE_TOKENS = new PageTokens(() => PROCESS_KEY);

// A four-digit year from 1970 on: every row was written then, and PostgreSQL cannot compare with what
// JavaScript dates allow beyond (year 0, +275760).
const TIMESTAMP = /^(19[7-9]\d|[2-9]\d{3})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d{3}|\d{6})Z$/;

/**
 * A timestamp as PostgreSQL gave it (milliseconds or microseconds, UTC) that names a real instant: a
 * date that does not exist (30 February, month 13, 24:00) does not survive a round trip through Date,
 * which would roll it over to another day where PostgreSQL refuses it.
 */
export function isCanonicalTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  const milliseconds = `${value.slice(0, 23)}Z`;
  const date = new Date(milliseconds);
  return !Number.isNaN(date.getTime()) && date.toISOString() === milliseconds;
}
