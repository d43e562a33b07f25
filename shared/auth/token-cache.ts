import type { Authentication } from './authenticator.ts';
import { BoundedMap } from '../base/caching/bounded-map.ts';

/**
 * Verified tokens keyed by the exact token string, each kept until its own `cacheUntil`.
 * Bounded: the oldest entry goes first when full. Cleared whole when the admin settings
 * change, so a rotated key or a disabled account takes effect at once.
 */
export class TokenCache {
  readonly #entries: BoundedMap<string, Authentication>;
  /**
   * The users revoked (`forgetUser`), each with the number of its latest revocation: what a verification
   * that began before it must not put back. Bounded like the entries; a revocation forgotten after as many
   * later ones matters only to a verification in flight all that while, which its own timeout has ended.
   */
  readonly #revocations: BoundedMap<string, number>;
  #revocationsLearnt = 0;

  constructor(maxEntries = 10_000) {
    this.#entries = new BoundedMap(maxEntries);
    this.#revocations = new BoundedMap(maxEntries);
  }

  /** How many revocations this cache has learnt: taken when a verification begins, for `revokedSince`. */
  get revocationMark(): number {
    return this.#revocationsLearnt;
  }

  /**
   * Whether the user `name` was revoked after `mark` (a `revocationMark` taken when a verification
   * began): then that verification's answer may predate the revocation and must not be trusted.
   */
  revokedSince(name: string, mark: number): boolean {
    return (this.#revocations.get(name) ?? 0) > mark;
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
   * Forgets every token verified as the user `name` (a revoked Project token's ServiceAccount), and
   * remembers the revocation so that an answer to a verification begun before it is not cached again
   * (`revokedSince`): a walk over the entries, made only on a revocation, never on a request.
   */
  forgetUser(name: string): void {
    // Deleted first so the new number goes last: the bound drops the oldest revocation, not this one.
    this.#revocations.delete(name);
    this.#revocations.set(name, ++this.#revocationsLearnt);
    for (const [token, entry] of this.#entries) if (entry.principal.name === name) this.#entries.delete(token);
  }

  /**
   * Forgets every token verified as a user `matching` says (every Project token, after revocations may
   * have gone unheard), remembering each as revoked like `forgetUser`.
   */
  forgetUsers(matching: (name: string) => boolean): void {
    const users = new Set([...this.#entries.values()].map((entry) => entry.principal.name).filter(matching));
    for (const user of users) this.forgetUser(user);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
