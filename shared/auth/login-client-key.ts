import { isIPv4, isIPv6 } from 'node:net';

/** A client key never holds more than this: a proxy that writes something long cannot grow the store's rows. */
const MAX_KEY_LENGTH = 100;

/**
 * The key a client's failed logins are counted under (issue 36): an IPv4 address as it is, an
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) as that IPv4 address, and any other IPv6 address
 * as its first `ipv6PrefixLength` bits (`2001:db8:1:2:0:0:0:0/64`), since one subscriber holds a
 * whole /64 and would otherwise never repeat an address. A port a proxy appended
 * (`203.0.113.7:51234`, `[2001:db8::1]:443`) and an IPv6 zone (`%eth0`) are dropped. Anything that is
 * no address is counted as the text it is (lower-cased, cut to 100 characters).
 */
export function loginClientKey(address: string, ipv6PrefixLength: number): string {
  const host = withoutPortAndZone(address.trim());
  if (isIPv4(host)) return host;
  if (isIPv6(host)) {
    const groups = ipv6Groups(host);
    if (isIpv4Mapped(groups)) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
    return `${maskedGroups(groups, ipv6PrefixLength)
      .map((group) => group.toString(16))
      .join(':')}/${ipv6PrefixLength}`;
  }
  return host.toLowerCase().slice(0, MAX_KEY_LENGTH);
}

function withoutPortAndZone(text: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  const host = bracketed ? bracketed[1]! : (/^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)?.[1] ?? text);
  const zone = host.indexOf('%');
  return zone >= 0 && host.includes(':') ? host.slice(0, zone) : host;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part as its two groups). */
function ipv6Groups(address: string): number[] {
  const text = address
    .toLowerCase()
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
      [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
    );
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const compressed = text.indexOf('::');
  if (compressed < 0) return parse(text);
  const front = parse(text.slice(0, compressed));
  const back = parse(text.slice(compressed + 2));
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}

function maskedGroups(groups: number[], prefixLength: number): number[] {
  return groups.map((group, index) => {
    const bits = Math.min(16, Math.max(0, prefixLength - index * 16));
    return bits === 16 ? group : bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
}
