// Issue 36, item 2: the client a failed login counts against. An IPv4 address is one client; an
// IPv6 subscriber holds a whole prefix (a /64 by default, LOGIN_IPV6_PREFIX_LENGTH), so every
// address of it is one client; an IPv4-mapped IPv6 address is the IPv4 client it maps.
import { describe, expect, it } from 'vitest';
import { loginClientKey } from '../../../shared/auth/login-client-key.ts';

describe('Issue 36: IPv4 clients by address, IPv6 clients by prefix, IPv4-mapped IPv6 as IPv4', () => {
  it.each([
    ['an IPv4 address is its own client', '203.0.113.7', 64, '203.0.113.7'],
    ['an IPv4-mapped IPv6 address is the IPv4 client', '::ffff:203.0.113.7', 64, '203.0.113.7'],
    ['the same in hexadecimal and upper case', '::FFFF:CB00:7107', 64, '203.0.113.7'],
    ['an IPv4 address with the port a proxy appended', '203.0.113.7:51234', 64, '203.0.113.7'],
    ['an IPv6 address: its /64', '2001:db8:1:2:3:4:5:6', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['another address of the same /64: the same client', '2001:DB8:1:2::9', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['in brackets with a port', '[2001:db8:1:2::9]:443', 64, '2001:db8:1:2:0:0:0:0/64'],
    ['with a zone', 'fe80::1%eth0', 64, 'fe80:0:0:0:0:0:0:0/64'],
    ['a /56 groups the neighbouring /64s', '2001:db8:1:2ff::1', 56, '2001:db8:1:200:0:0:0:0/56'],
    ['a /128 is the address itself', '2001:db8::1.2.3.4', 128, '2001:db8:0:0:0:0:102:304/128'],
    ['the loopback address', '::1', 64, '0:0:0:0:0:0:0:0/64'],
    ['something that is no address, as it is (lower-cased)', 'Unknown', 64, 'unknown'],
  ] as const)('%s: %s (/%d) → %s', (_case, address, prefixLength, key) => {
    expect(loginClientKey(address, prefixLength)).toBe(key);
  });

  it('1,000 addresses of one /64, written every way, are one client; the next /64 is another', () => {
    const keys = new Set(
      Array.from({ length: 1_000 }, (_, index) => {
        const host = index.toString(16);
        return index % 2 === 0 ? `2001:db8:aa:bb::${host}` : `2001:0db8:00aa:00bb:0:${host}:0:1`;
      }).map((address) => loginClientKey(address, 64)),
    );
    expect([...keys]).toEqual(['2001:db8:aa:bb:0:0:0:0/64']);
    expect(loginClientKey('2001:db8:aa:bc::1', 64)).not.toBe([...keys][0]);
  });

  it('a key is never longer than 100 characters, whatever a proxy wrote', () => {
    expect(loginClientKey('x'.repeat(5_000), 64)).toHaveLength(100);
  });
});
