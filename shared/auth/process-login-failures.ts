import type {
  AdmittedLogin,
  LoginAdmission,
  LoginBudgets,
  LoginFailureStore,
  LoginKeys,
  RefusedLogin,
} from './login-failure-store.ts';

interface Window {
  endsAt: number;
  failures: number;
}

/** Clients one process keeps windows for at most; the account's budget keeps it far below that by default. */
export const MAX_CLIENTS_PER_PROCESS = 10_000;

/**
 * Failed logins counted in this process's memory, by the rules of login-failure-store.ts: alone
 * when there is no database, and as the fallback while the database does not answer, in which
 * case it starts from what the database last said (`mirror`). A full table never drops a live
 * window (the bypass of Argo CD's CVE-2024-21662): windows that ended are swept, and while
 * `maxClients` live windows remain, a new client is refused until the first of them ends.
 */
export class ProcessLoginFailures implements LoginFailureStore {
  readonly #windows = new Map<string, Window>();
  readonly #maxClients: number;

  constructor(options: { maxClients?: number } = {}) {
    this.#maxClients = options.maxClients ?? MAX_CLIENTS_PER_PROCESS;
  }

  /** Keys with a window, ended or not (for tests and diagnostics). */
  get size(): number {
    return this.#windows.size;
  }

  async admit(keys: LoginKeys, budgets: LoginBudgets, at = Date.now()): Promise<LoginAdmission> {
    const refusal = this.refusal(keys, budgets, at);
    if (refusal) return refusal;
    let account = this.#live(keys.account, at);
    const client = this.#live(keys.client, at);
    if (!account) {
      // Once per window of the account: what no window holds any more goes.
      this.#sweep(at);
      account = { endsAt: at + budgets.windowMs, failures: 0 };
      this.#windows.set(keys.account, account);
    }
    if (!this.#hasRoomFor(keys.client, at))
      return {
        admitted: false,
        refusedBy: 'client',
        retryAfterMs: this.#firstEnd() - at,
        accountFailures: account.failures,
      };
    const counted = client ?? { endsAt: at + budgets.windowMs, failures: 0 };
    this.#windows.set(keys.client, counted);
    account.failures++;
    counted.failures++;
    return {
      admitted: true,
      accountFailures: account.failures,
      accountWindowEndsAt: account.endsAt,
      clientFailures: counted.failures,
      clientWindowEndsAt: counted.endsAt,
    };
  }

  /** The refusal `admit` would answer now, counting nothing; undefined when it would count the attempt. */
  refusal(keys: LoginKeys, budgets: LoginBudgets, at = Date.now()): RefusedLogin | undefined {
    const account = this.#live(keys.account, at);
    if (account && account.failures >= budgets.accountMax) return refused('account', account, at, account.failures);
    const client = this.#live(keys.client, at);
    if (client && client.failures >= budgets.clientMax) return refused('client', client, at, account?.failures);
    return undefined;
  }

  async giveBack(keys: LoginKeys, admitted: AdmittedLogin, clearClient: boolean): Promise<void> {
    takeOne(this.#windows.get(keys.account), admitted.accountWindowEndsAt);
    if (clearClient) this.#windows.delete(keys.client);
    else takeOne(this.#windows.get(keys.client), admitted.clientWindowEndsAt);
  }

  /**
   * Takes in what the shared store answered, so that counting here, should the database stop
   * answering, goes on from the fleet's counts as last seen rather than from nothing. Counts only
   * ever rise here; a client beyond the table's room is left to the database.
   */
  mirror(keys: LoginKeys, admission: LoginAdmission, budgets: LoginBudgets, at = Date.now()): void {
    if (admission.admitted) {
      this.#raise(keys.account, admission.accountWindowEndsAt, admission.accountFailures, at);
      this.#raise(keys.client, admission.clientWindowEndsAt, admission.clientFailures, at);
      return;
    }
    const max = admission.refusedBy === 'account' ? budgets.accountMax : budgets.clientMax;
    this.#raise(admission.refusedBy === 'account' ? keys.account : keys.client, at + admission.retryAfterMs, max, at);
  }

  #raise(key: string, endsAt: number, failures: number, at: number): void {
    const window = this.#live(key, at);
    if (window && window.endsAt >= endsAt) {
      window.failures = Math.max(window.failures, failures);
      return;
    }
    if (!this.#hasRoomFor(key, at)) return;
    this.#windows.set(key, { endsAt, failures: Math.max(window?.failures ?? 0, failures) });
  }

  /** Whether `key` has a place, or one can be made by sweeping the windows that ended (the account's is not a client's). */
  #hasRoomFor(key: string, at: number): boolean {
    if (this.#windows.has(key) || this.#windows.size <= this.#maxClients) return true;
    this.#sweep(at);
    return this.#windows.size <= this.#maxClients;
  }

  #live(key: string, at: number): Window | undefined {
    const window = this.#windows.get(key);
    return window && window.endsAt > at ? window : undefined;
  }

  #sweep(at: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= at) this.#windows.delete(key);
  }

  #firstEnd(): number {
    let first = Number.POSITIVE_INFINITY;
    for (const window of this.#windows.values()) first = Math.min(first, window.endsAt);
    return first;
  }
}

function refused(
  refusedBy: 'account' | 'client',
  window: Window,
  at: number,
  accountFailures: number | undefined,
): RefusedLogin {
  return { admitted: false, refusedBy, retryAfterMs: window.endsAt - at, accountFailures };
}

/** One failure less in `window`, if it is still the window that counted it. */
function takeOne(window: Window | undefined, endsAt: number): void {
  if (window && window.endsAt === endsAt && window.failures > 0) window.failures--;
}
