import { isNonResource, type AuthorizationAttributes } from './authorizer.ts';
import { BoundedMap } from '../base/caching/bounded-map.ts';
import type { ReviewSubject, SubjectAccessReviewer } from './subject-access-reviewer.ts';

export interface SubjectAccessReviewCacheOptions {
  /** How long an allow is trusted (default 5 minutes, as kube-apiserver's webhook authorizer). */
  allowedTtlMs?: number;
  /** How long a denial is trusted (default 30 seconds), so a new RoleBinding takes effect soon. */
  deniedTtlMs?: number;
  maxEntries?: number;
  /** Hears whether each review was answered without asking the cluster (a cached or an in-flight answer). */
  onLookup?: (hit: boolean) => void;
}

/**
 * Caches another reviewer's answers and coalesces concurrent identical reviews. The key is the
 * whole review (user, uid, groups, extra and attributes), so one principal can never be
 * answered from another's entry. Failures (503) are never cached.
 */
export class SubjectAccessReviewCache implements SubjectAccessReviewer {
  readonly #inner: SubjectAccessReviewer;
  readonly #allowedTtlMs: number;
  readonly #deniedTtlMs: number;
  readonly #entries: BoundedMap<string, { allowed: boolean; until: number }>;
  readonly #inFlight = new Map<string, Promise<boolean>>();
  readonly #onLookup: ((hit: boolean) => void) | undefined;

  constructor(inner: SubjectAccessReviewer, options: SubjectAccessReviewCacheOptions = {}) {
    this.#onLookup = options.onLookup;
    this.#inner = inner;
    this.#allowedTtlMs = options.allowedTtlMs ?? 5 * 60_000;
    this.#deniedTtlMs = options.deniedTtlMs ?? 30_000;
    this.#entries = new BoundedMap(options.maxEntries ?? 10_000);
  }

  async review(subject: ReviewSubject, attributes: AuthorizationAttributes): Promise<boolean> {
    const key = reviewKey(subject, attributes);
    const cached = this.#entries.get(key);
    if (cached !== undefined) {
      if (cached.until > Date.now()) {
        this.#onLookup?.(true);
        return cached.allowed;
      }
      this.#entries.delete(key);
    }
    let pending = this.#inFlight.get(key);
    this.#onLookup?.(pending !== undefined);
    if (pending === undefined) {
      pending = this.#inner
        .review(subject, attributes)
        .then((allowed) => {
          this.#remember(key, allowed);
          return allowed;
        })
        .finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }

  #remember(key: string, allowed: boolean): void {
    this.#entries.set(key, { allowed, until: Date.now() + (allowed ? this.#allowedTtlMs : this.#deniedTtlMs) });
  }
}

// JSON of a fixed-order array: no separator a user name or group could forge.
function reviewKey(subject: ReviewSubject, attributes: AuthorizationAttributes): string {
  const extra = Object.entries(subject.extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const target = isNonResource(attributes)
    ? ['path', attributes.nonResourcePath, attributes.verb]
    : [
        'resource',
        attributes.verb,
        attributes.group,
        attributes.resource,
        attributes.subresource ?? '',
        attributes.namespace ?? '',
        attributes.name ?? '',
      ];
  return JSON.stringify([subject.user, subject.uid ?? '', subject.groups, extra, target]);
}
