import type { Authentication } from './authenticator.ts';
import { BoundedMap } from '../base/caching/bounded-map.ts';

/**
 * Verified tokens keyed by the exact token string, each kept until its own `cacheUntil`.
 * Bounded: the oldest entry goes first when full. Cleared whole when the admin settings
 * change, so a rotated key or a disabled account takes effect at once.
 */
export class TokenCache {
  readonly #entries: BoundedMap<string, Authentication>;

  constructor(maxEntries = 10_000) {
    this.#entries = new BoundedMap(maxEntries);
  }

  /** The cached authentication, or undefined when absent or past its `cacheUntil`. */
  get(token: string, now = Date.now()): Authentication | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.cacheUntil <= now) {
      this.#entries.delete(token);
      return undefined;
    }
    return entry;
  }

  set(token: string, authentication: Authentication): void {
    this.#entries.set(token, authentication);
  }

  /**
   * Forgets every token verified as the user `name` (a revoked Project token's ServiceAccount): a walk
   * over the entries, made only on a revocation, never on a request.
   */
  forgetUser(name: string): void {
    for (const [token, entry] of this.#entries) if (entry.principal.name === name) this.#entries.delete(token);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
