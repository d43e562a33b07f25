import { BoundedMap } from '../caching/bounded-map.ts';

/** Header names whose values never reach a log line. */
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);
/** Query parameters whose values never reach a log line. */
const SECRET_QUERY_PARAMETERS = new Set(['access_token', 'id_token', 'token', 'code', 'password']);
/** Field names, in any log record, whose values are replaced. */
const SECRET_FIELD =
  /^(.*pass(word)?.*|.*secret.*|.*token|.*hash|authorization|cookie|set-cookie|.*signing.?key.*|credentials?)$/i;

export const REDACTED = '[REDACTED]';

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

/** The path and query for a log line, with secret query parameters replaced. */
export function redactPathAndQuery(path: string, query: URLSearchParams): string {
  if (query.size === 0) return path;
  const safe = new URLSearchParams();
  for (const [name, value] of query)
    safe.append(name, SECRET_QUERY_PARAMETERS.has(name.toLowerCase()) ? REDACTED : value);
  return `${path}?${safe.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED)}`;
}

// Every log line asks about the same few field names: remember the answers (bounded, as field
// names may come from input).
const secretFieldAnswers = new BoundedMap<string, boolean>(1_024);

/** Whether a field of this name has its value replaced in every log record. */
export function isSecretField(key: string): boolean {
  let secret = secretFieldAnswers.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    secretFieldAnswers.set(key, secret);
  }
  return secret;
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
