// Proactive negotiation of the content coding (RFC 9110, section 12.5.3) for the console's files, which
// the static server holds as they are and gzipped: `gzip;q=0` says gzip is NOT acceptable, `*` stands for
// every coding not listed, and identity is acceptable unless refused (`identity;q=0`, or `*;q=0` without it).

/** The coding to answer in: `gzip`, `identity`, or undefined when the client accepts neither (406). */
export type ContentCoding = 'gzip' | 'identity';

// A member: a coding, then parameters; only `q` is defined for Accept-Encoding.
const MEMBER = /^([!#$%&'*+.^_`|~0-9a-z-]+)\s*(?:;\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?))?\s*$/i;

/** The q-value of each coding the header names (lower case; `x-gzip` is gzip); a malformed member is left out. */
function qualities(header: string): Map<string, number> {
  const named = new Map<string, number>();
  for (const member of header.split(',')) {
    const match = MEMBER.exec(member.trim());
    if (!match) continue;
    const coding = match[1]!.toLowerCase();
    named.set(coding === 'x-gzip' ? 'gzip' : coding, match[2] === undefined ? 1 : Number(match[2]));
  }
  return named;
}

/**
 * Which coding to answer a request in, from its `Accept-Encoding` (undefined: no header, any coding
 * will do) and whether a gzipped form exists: gzip when it is acceptable and not less wanted than
 * identity, else identity when that is acceptable, else undefined.
 */
export function negotiateContentCoding(header: string | undefined, gzipAvailable: boolean): ContentCoding | undefined {
  if (header === undefined) return 'identity';
  const named = qualities(header);
  const any = named.get('*');
  const gzip = named.get('gzip') ?? any ?? 0;
  // Identity is acceptable unless the header refuses it by name, or by `*` without naming it; unnamed,
  // it states no preference, so an acceptable gzip is taken (smaller); named, its q-value competes.
  const identity = named.get('identity') ?? (any === 0 ? 0 : undefined);
  if (gzipAvailable && gzip > 0 && gzip >= (identity ?? 0)) return 'gzip';
  return identity === 0 ? undefined : 'identity';
}
