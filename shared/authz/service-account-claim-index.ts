import type { Logger } from '../base/logging/logger.ts';
import {
  claimRulesFromAnnotations,
  claimsMatch,
  type ClaimAnnotationNames,
  type ClaimRules,
  type ServiceAccountName,
} from './service-account-claims.ts';

/** The part of a ServiceAccount the index reads. */
export interface AnnotatedServiceAccount {
  metadata?: { namespace?: string; name?: string; annotations?: Record<string, string> };
}

/**
 * The claim rules of every annotated ServiceAccount, kept current by a watch so no request
 * lists ServiceAccounts. Lookups are memoised per claims object (a cached principal's claims)
 * until the next change.
 */
export class ServiceAccountClaimIndex {
  readonly #names: ClaimAnnotationNames;
  readonly #logger: Logger;
  readonly #rules = new Map<string, { account: ServiceAccountName; rules: ClaimRules }>();
  #memo = new WeakMap<object, ServiceAccountName[]>();
  #synced = false;

  constructor(names: ClaimAnnotationNames, logger: Logger) {
    this.#names = names;
    this.#logger = logger;
  }

  /** True once the full list has been loaded; before that, no mapping can be trusted. */
  get synced(): boolean {
    return this.#synced;
  }

  markSynced(): void {
    this.#synced = true;
  }

  /** Records (or replaces) a ServiceAccount's rules; one without claim annotations is dropped. */
  upsert(account: AnnotatedServiceAccount): void {
    const key = keyOf(account);
    if (key === undefined) return;
    const { rules, problems } = claimRulesFromAnnotations(account.metadata!.annotations, this.#names);
    for (const problem of problems) this.#logger.warn('ignoring a claim annotation', { serviceAccount: key, problem });
    if (rules.size > 0)
      this.#rules.set(key, {
        account: { namespace: account.metadata!.namespace!, name: account.metadata!.name! },
        rules,
      });
    else if (!this.#rules.delete(key)) return;
    this.#changed();
  }

  remove(account: AnnotatedServiceAccount): void {
    const key = keyOf(account);
    if (key !== undefined && this.#rules.delete(key)) this.#changed();
  }

  /** The ServiceAccounts whose rules the claims satisfy, ordered by namespace and name. */
  serviceAccountsFor(claims: Record<string, unknown>): ServiceAccountName[] {
    const memoised = this.#memo.get(claims);
    if (memoised) return memoised;
    const matched = [...this.#rules.values()]
      .filter((entry) => claimsMatch(entry.rules, claims))
      .map((entry) => entry.account)
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    this.#memo.set(claims, matched);
    return matched;
  }

  #changed(): void {
    this.#memo = new WeakMap();
  }
}

function keyOf(account: AnnotatedServiceAccount): string | undefined {
  const { namespace, name } = account.metadata ?? {};
  return namespace && name ? `${namespace}/${name}` : undefined;
}
