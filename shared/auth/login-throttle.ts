import { BoundedMap } from '../caching/bounded-map.ts';

/**
 * Throttles failed admin logins per client, the way Argo CD does: after `maxFailures` failures
 * inside `windowMs`, the client gets 429 until the oldest failure leaves the window. A success
 * clears the client's record. The table is bounded so a flood of addresses cannot grow it.
 */
export class LoginThrottle {
  readonly #failures: BoundedMap<string, number[]>;
  readonly #maxFailures: number;
  readonly #windowMs: number;

  constructor(options: { maxFailures?: number; windowMs?: number; maxClients?: number } = {}) {
    this.#maxFailures = options.maxFailures ?? 5;
    this.#windowMs = options.windowMs ?? 5 * 60_000;
    this.#failures = new BoundedMap(options.maxClients ?? 10_000);
  }

  /** Seconds the client must wait before another attempt, or 0 when it may try now. */
  retryAfterSeconds(client: string, now = Date.now()): number {
    const recent = this.#recent(client, now);
    if (recent.length < this.#maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[0]! + this.#windowMs - now) / 1000));
  }

  recordFailure(client: string, now = Date.now()): void {
    const recent = this.#recent(client, now);
    recent.push(now);
    // Re-inserted, so the clients dropped first when the table is full are the least recently failing.
    this.#failures.delete(client);
    this.#failures.set(client, recent.slice(-this.#maxFailures));
  }

  recordSuccess(client: string): void {
    this.#failures.delete(client);
  }

  #recent(client: string, now: number): number[] {
    return (this.#failures.get(client) ?? []).filter((at) => at > now - this.#windowMs);
  }
}

/**
 * The client address for throttling: the peer address, or, behind `trustedHops` proxies that
 * append to X-Forwarded-For, the address the outermost trusted proxy saw.
 */
export function clientAddress(remoteAddress: string, forwardedFor: string | undefined, trustedHops: number): string {
  if (trustedHops === 0 || !forwardedFor) return remoteAddress;
  const chain = forwardedFor
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return chain[Math.max(0, chain.length - trustedHops)] ?? remoteAddress;
}
