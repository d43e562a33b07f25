import ipaddr from 'ipaddr.js';

/** Why an address may not be called: its class, as ipaddr.js names it (`loopback`, `private`, `linkLocal`, ...). */
export interface RefusedAddress {
  address: string;
  range: string;
}

/**
 * Which addresses an outbound call may reach (issue 47, item 5): public unicast only, so a receiver URL
 * cannot point the platform at itself, the cluster, the node or a cloud's metadata service (169.254.169.254
 * is link-local, fd00:ec2::254 unique-local, Alibaba's 100.100.100.200 carrier-grade NAT); for IPv6, only
 * the global unicast range 2000::/3. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 * The operator's ranges (OUTBOUND_ALLOWED_CIDRS) are allowed whatever their class.
 */
export class OutboundAddressPolicy {
  readonly #allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(allowedCidrs: readonly string[]) {
    this.#allowed = allowedCidrs.map((range) => ipaddr.parseCIDR(range));
  }

  /** undefined when `address` (an IP literal) may be called, else why not. */
  refusal(address: string): RefusedAddress | undefined {
    if (!ipaddr.isValid(address)) return { address, range: 'invalid' };
    const parsed = ipaddr.process(address);
    if (this.#allowed.some((range) => parsed.kind() === range[0].kind() && parsed.match(range))) return undefined;
    const range = parsed.range();
    if (range !== 'unicast') return { address: parsed.toString(), range };
    // IPv6 has public addresses in 2000::/3 alone; what ipaddr.js calls unicast outside it is unassigned or
    // deprecated, as the IPv4-compatible ::127.0.0.1 is (a tunnelling host may route it to IPv4 loopback).
    if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_IPV6))
      return { address: parsed.toString(), range: 'reserved' };
    return undefined;
  }
}

const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');
