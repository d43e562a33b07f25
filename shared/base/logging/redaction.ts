import { BoundedMap } from '../caching/bounded-map.ts';

/** Header names whose values never reach a log line. */
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);
/**
 * Query parameters whose values never reach a log line, as their names read with case and everything
 * but letters and digits left out: `access_token[]`, `Access-Token`, `accessToken`, `access_token%00`
 * are all `access_token`.
 */
const SECRET_QUERY_PARAMETERS = new Set(['accesstoken', 'idtoken', 'token', 'code', 'password']);
/**
 * Field names, in any log record, whose values are replaced, as the names read with case and everything
 * but letters and digits left out (nameAsRead): `signing-key`, `signing.key`, `Signing Key` and
 * `SIGNING_KEY` are all `signingkey`, `API-Key` and `api_key` both `apikey` (issue 44, item 11).
 */
const SECRET_FIELD =
  /^(.*pass.*|.*secret.*|.*token|.*hash|authorization|cookie|setcookie|.*signingkey.*|.*apikey.*|.*privatekey.*|credentials?)$/;

export const REDACTED = '[REDACTED]';
const ENCODED_REDACTED = encodeURIComponent(REDACTED);

/** A copy of the headers with credentials replaced. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[] | undefined> {
  const copy: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value;
  }
  return copy;
}

/**
 * The path and query for a log line or an audit event (every place a request's URI is recorded):
 * a secret-named parameter's value, and every path segment, parameter name or value that holds a
 * credential (containsCredential), replaced.
 */
export function redactPathAndQuery(path: string, query: URLSearchParams): string {
  const safePath = redactPath(path);
  if (query.size === 0) return safePath;
  const safe = new URLSearchParams();
  for (const [name, value] of query) {
    const secretName = containsCredential(name);
    safe.append(
      secretName ? REDACTED : name,
      secretName || isSecretQueryParameter(name) || containsCredential(value) ? REDACTED : value,
    );
  }
  return `${safePath}?${safe.toString().replaceAll(ENCODED_REDACTED, REDACTED)}`;
}

/** A request path (as sent, percent-encoded) with every segment that holds a credential replaced. */
export function redactPath(path: string): string {
  if (!mayHoldCredential(path)) return path;
  return path
    .split('/')
    .map((segment) => (containsCredential(segment) ? REDACTED : segment))
    .join('/');
}

function isSecretQueryParameter(name: string): boolean {
  return SECRET_QUERY_PARAMETERS.has(nameAsRead(name));
}

/**
 * Where a bearer credential may stand: base64url text with two dots or more. Every token form the
 * server accepts is a JWT (admin, OIDC and ServiceAccount tokens alike; anything else is refused
 * as "not a JWT"), and a JWT is three (a JWE five) base64url parts joined by dots.
 */
const DOTTED_BASE64URL = /[\w-]+=*(?:\.[\w-]*=*){2,}/g;
/** A JWT header (`{"alg":"HS256"}`, 15 bytes) is at least this long in base64url; shorter parts are not one. */
const SHORTEST_JOSE_PART = 16;

/**
 * Whether the text holds something shaped like a bearer credential, whatever surrounds it: a JWT
 * (dotted base64url parts, one of them but the last a JSON object: the header, or the claims when
 * other text is glued before the header), also percent-encoded (`%2E` for the dots), twice over.
 */
export function containsCredential(text: string): boolean {
  if (!mayHoldCredential(text)) return false;
  const plain = text.includes('%') ? percentDecoded(text) : text;
  for (const [candidate] of plain.matchAll(DOTTED_BASE64URL)) {
    const parts = candidate.split('.');
    for (let index = 0; index < parts.length - 1; index++) if (opensJsonObject(parts[index]!)) return true;
  }
  return false;
}

/** A cheap first look (every request's path passes here): no credential without two dots, or a `%` that may encode them. */
function mayHoldCredential(text: string): boolean {
  const dot = text.indexOf('.');
  return (dot !== -1 && text.indexOf('.', dot + 1) !== -1) || text.includes('%');
}

/** Percent escapes decoded (three rounds, for text encoded more than once), each escape as one character: enough to see ASCII tokens. */
function percentDecoded(text: string): string {
  let decoded = text;
  for (let round = 0; round < 3 && decoded.includes('%'); round++) {
    decoded = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return decoded;
}

/** Whether a base64url part decodes to the start of a JSON object with a member (`{"`, white space allowed). */
function opensJsonObject(part: string): boolean {
  if (part.length < SHORTEST_JOSE_PART) return false;
  // 16 characters are 12 bytes: the brace, some white space and the quote.
  const start = Buffer.from(part.slice(0, 16), 'base64url')
    .toString('latin1')
    .replace(/^[ \t\r\n]+/, '');
  return /^\{[ \t\r\n]*"/.test(start);
}

// Every log line asks about the same few field names: remember the answers (bounded, as field
// names may come from input).
const secretFieldAnswers = new BoundedMap<string, boolean>(1_024);

/** Whether a field of this name has its value replaced in every log record. */
export function isSecretField(key: string): boolean {
  let secret = secretFieldAnswers.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(nameAsRead(key));
    secretFieldAnswers.set(key, secret);
  }
  return secret;
}

/**
 * A field or parameter name as SECRET_FIELD and SECRET_QUERY_PARAMETERS read it: lower case, separators
 * (and anything but letters and digits) left out.
 */
function nameAsRead(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A deep copy of a log record with every secret-named field replaced. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1));
  return assignRedacted({}, value as Record<string, unknown>, depth);
}

/** Copies the fields of `source` onto `target`, as redactFields would copy them. */
export function assignRedacted(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  depth = 0,
): Record<string, unknown> {
  for (const key of Object.keys(source)) {
    const field = source[key];
    if (key === 'headers' && field && typeof field === 'object')
      target[key] = redactHeaders(field as Record<string, string>);
    else target[key] = isSecretField(key) ? REDACTED : redactFields(field, depth + 1);
  }
  return target;
}
