import { ConfigError } from './config-error.ts';

/** The setting's value that allows every origin; it must stand alone. */
export const ANY_ORIGIN = '*';

const VARIABLE = 'CORS_ALLOWED_ORIGINS';

/**
 * The browser origins allowed to call the API (`CORS_ALLOWED_ORIGINS`, the list's entries: exact
 * origins such as `https://console.example.com`): none when unset. `*` alone allows every origin,
 * which is safe only because the API takes bearer tokens and never allows credentials (cookies).
 * Throws ConfigError naming the variable on anything that is not an origin.
 */
export function parseCorsAllowedOrigins(entries: readonly string[]): string[] {
  if (entries.includes(ANY_ORIGIN)) {
    if (entries.length > 1)
      throw new ConfigError(VARIABLE, `"${ANY_ORIGIN}" allows every origin and cannot be combined with others`);
    return [ANY_ORIGIN];
  }
  for (const entry of entries) checkOrigin(entry);
  return [...new Set(entries)];
}

/** An origin is exactly what a browser sends in `Origin`: scheme, host and port only, no path, no pattern. */
function checkOrigin(entry: string): void {
  const problem = `"${entry}" is not an origin such as https://console.example.com (http or https, host, optional port; no path, wildcard or trailing slash)`;
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw new ConfigError(VARIABLE, problem);
  }
  const exact = url.origin === entry && !entry.includes(ANY_ORIGIN);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !exact) throw new ConfigError(VARIABLE, problem);
}
