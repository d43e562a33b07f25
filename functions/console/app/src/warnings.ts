// A write's warnings as the server sends them (`Warning: 299 - "…"`, which the API's CORS answers expose).
/** The texts of `Warning` headers (`299 - "text"`, comma-separated when several), as kubectl prints them. */
export function warningTexts(header: string | null): string[] {
  if (!header) return [];
  return [...header.matchAll(/\d{3} [^ ]+ "((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!.replace(/\\(.)/g, '$1'));
}
