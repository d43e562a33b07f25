import type { AdmittedLogin, LoginKeys } from './login-failure-store.ts';

/** Failures of one key counted in the process during an outage, in the window that counted them. */
export interface UncarriedFailures {
  key: string;
  /** When the process's window for the key ends (ms since the epoch). */
  windowEndsAt: number;
  failures: number;
}

/**
 * The failed logins this process counted while the database did not answer, kept until they are
 * carried back to it (issue 44, item 6): without them every instance, this one included, would go
 * on from the database's count as if the outage's failures had never been, and one instance
 * admitted twice the account's budget in one window. Attempts given back (a right password, a
 * comparison never made) leave it, as they leave the counts.
 */
export class UncarriedLoginFailures {
  readonly #windows = new Map<string, { endsAt: number; failures: number }>();

  get empty(): boolean {
    return this.#windows.size === 0;
  }

  /** An attempt counted in the process while the database was not asked. */
  counted(keys: LoginKeys, admitted: AdmittedLogin): void {
    if (this.#windows.get(keys.account)?.endsAt !== admitted.accountWindowEndsAt) this.#sweep(Date.now());
    this.#add(keys.account, admitted.accountWindowEndsAt, 1);
    this.#add(keys.client, admitted.clientWindowEndsAt, 1);
  }

  /** An attempt counted here was no failure after all. */
  givenBack(keys: LoginKeys, admitted: AdmittedLogin, clearClient: boolean): void {
    this.#takeOne(keys.account, admitted.accountWindowEndsAt);
    if (clearClient) this.#windows.delete(keys.client);
    else this.#takeOne(keys.client, admitted.clientWindowEndsAt);
  }

  /**
   * Takes out the failures whose window is still open, the account's first (the order admissions
   * lock rows in), for carrying back; what cannot be carried is `restore`d.
   */
  take(at = Date.now()): UncarriedFailures[] {
    const live = [...this.#windows]
      .filter(([, window]) => window.endsAt > at && window.failures > 0)
      .map(([key, window]) => ({ key, windowEndsAt: window.endsAt, failures: window.failures }))
      .sort((a, b) => Number(b.key.startsWith('account:')) - Number(a.key.startsWith('account:')));
    this.#windows.clear();
    return live;
  }

  /** Failures taken out and not carried back: counted here again. */
  restore(entries: readonly UncarriedFailures[]): void {
    for (const { key, windowEndsAt, failures } of entries) this.#add(key, windowEndsAt, failures);
  }

  #add(key: string, endsAt: number, failures: number): void {
    const window = this.#windows.get(key);
    if (window && window.endsAt === endsAt) window.failures += failures;
    else this.#windows.set(key, { endsAt, failures });
  }

  #takeOne(key: string, endsAt: number): void {
    const window = this.#windows.get(key);
    if (window && window.endsAt === endsAt && window.failures > 0) window.failures--;
  }

  #sweep(at: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= at) this.#windows.delete(key);
  }
}
