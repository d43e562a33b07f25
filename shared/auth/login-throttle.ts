import type { LoginThrottleSettings } from '../base/config/login-throttle-settings.ts';
import { DatabaseLoginFailures } from './database-login-failures.ts';
import { loginClientKey } from './login-client-key.ts';
import { loginKeys, type AdmittedLogin, type LoginBudgets, type LoginKeys } from './login-failure-store.ts';
import { ProcessLoginFailures } from './process-login-failures.ts';
import { UncarriedLoginFailures } from './uncarried-login-failures.ts';
import type { SharedCountFallback } from '../base/database/shared-count-fallback.ts';
import type { SharedLimitCount } from '../base/database/shared-limit.ts';
import { withDeadline } from '../base/node/deadline.ts';

/** Where an attempt was counted: in the database every instance shares, or in this process only. */
export type LoginFailureStoreName = 'database' | 'process';

/** The one account whose failures are budgeted: the built-in admin. */
const ADMIN_ACCOUNT = 'admin';
/**
 * How long an attempt waits for the database, opening it included (a connection takes at most 2 s,
 * a statement LOGIN_QUERY_TIMEOUT_MS), before it is counted in the process instead.
 */
export const DATABASE_DEADLINE_MS = 3_000;

/** An attempt admitted: counted as a failure until `succeeded` or `notCompared` gives it back. */
export interface LoginAttempt extends AdmittedLogin {
  keys: LoginKeys;
  store: LoginFailureStoreName;
}

/** An attempt refused with 429: by the account's budget or the client's. */
export interface LoginRefusal {
  admitted: false;
  refusedBy: 'account' | 'client';
  retryAfterSeconds: number;
  accountFailures: number | undefined;
  store: LoginFailureStoreName;
}

export interface LoginThrottleOptions {
  settings: LoginThrottleSettings;
  /**
   * Where failures are counted (`sharedLimit({ name: 'login_failures', ... })`): its database, or
   * none (per process); its fallback, metrics and start-up line.
   */
  limit: SharedLimitCount;
  /** The process's store (tests give a small one). */
  processStore?: ProcessLoginFailures;
}

/**
 * Budgets failed admin logins per client and for the account (issue 36, docs/admin-account.md):
 * in PostgreSQL when the process has a database, so every instance counts against one budget, and
 * in the process otherwise. Each attempt is counted before its password is compared, by one
 * statement. A database that does not answer does not open the door: attempts are then counted in
 * the process, from the counts the database last gave (fail closed), said once in the log and by
 * the metrics, and the database is asked again after DATABASE_RETRY_MS; when it answers, the
 * failures counted meanwhile are carried back to it first (issue 44, item 6).
 */
export class LoginThrottle {
  /** Where failures are counted when the database answers (`process` without one). */
  readonly store: LoginFailureStoreName;
  readonly #budgets: LoginBudgets;
  readonly #ipv6PrefixLength: number;
  readonly #process: ProcessLoginFailures;
  /** What the database answered this instance, alone: the refusals it gave stand here until their windows end. */
  readonly #shared = new ProcessLoginFailures();
  readonly #database: DatabaseLoginFailures | undefined;
  /** Failures counted in the process while the database did not answer, not yet carried back to it. */
  readonly #uncarried = new UncarriedLoginFailures();
  readonly #options: LoginThrottleOptions;
  readonly #fallback: SharedCountFallback;

  constructor(options: LoginThrottleOptions) {
    const { settings } = options;
    this.#options = options;
    this.#budgets = {
      windowMs: settings.windowMs,
      accountMax: settings.accountMaxFailures,
      clientMax: settings.clientMaxFailures,
    };
    this.#ipv6PrefixLength = settings.ipv6PrefixLength;
    this.#process = options.processStore ?? new ProcessLoginFailures();
    this.#database = options.limit.database ? new DatabaseLoginFailures(options.limit.database) : undefined;
    this.store = options.limit.store;
    this.#fallback = options.limit.fallback;
  }

  get budgets(): Readonly<LoginBudgets> {
    return this.#budgets;
  }

  /** Counts an attempt from `clientAddress` before its password is compared, or refuses it. */
  async admit(clientAddress: string): Promise<LoginAttempt | LoginRefusal> {
    const keys = loginKeys(ADMIN_ACCOUNT, loginClientKey(clientAddress, this.#ipv6PrefixLength));
    // A refusal the database already gave this instance stands until its window ends (no attempt is
    // counted meanwhile, so the shared count cannot fall below it): refused here, nothing asked.
    const known = this.#database && this.#fallback.ask ? this.#shared.refusal(keys, this.#budgets) : undefined;
    const shared = this.#database && this.#fallback.ask && !known ? await this.#admitShared(keys) : undefined;
    const store: LoginFailureStoreName = known || shared ? 'database' : 'process';
    if (this.#database && store === 'process') this.#options.limit.countedInProcess();
    const admission = known ?? shared ?? (await this.#process.admit(keys, this.#budgets));
    if (this.#database && store === 'process' && admission.admitted) this.#uncarried.counted(keys, admission);
    if (admission.admitted) return { ...admission, keys, store };
    return {
      admitted: false,
      refusedBy: admission.refusedBy,
      retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
      accountFailures: admission.accountFailures,
      store,
    };
  }

  /** The attempt's password was right: its failure is given back and the client's failures forgotten. */
  succeeded(attempt: LoginAttempt): Promise<void> {
    return this.#giveBack(attempt, true);
  }

  /** The attempt's password was never compared (too many in progress): its failure is given back. */
  notCompared(attempt: LoginAttempt): Promise<void> {
    return this.#giveBack(attempt, false);
  }

  async #admitShared(keys: LoginKeys) {
    try {
      const admission = await withDeadline(
        this.#carryBack().then(() => this.#database!.admit(keys, this.#budgets)),
        DATABASE_DEADLINE_MS,
        'counting a failed login',
      );
      this.#shared.mirror(keys, admission, this.#budgets);
      this.#process.mirror(keys, admission, this.#budgets);
      this.#fallback.answered();
      return admission;
    } catch (error) {
      this.#fallback.failed(error);
      return undefined;
    }
  }

  /**
   * Adds the failures counted in the process during an outage to the database's counts, before the
   * database judges another attempt. Taken out at once, so concurrent attempts carry each once; what
   * is not carried (the database failed again) stays to be carried next time.
   */
  async #carryBack(): Promise<void> {
    if (this.#uncarried.empty) return;
    const entries = this.#uncarried.take();
    for (let index = 0; index < entries.length; index++) {
      try {
        await this.#database!.carryBack(entries[index]!);
      } catch (error) {
        this.#uncarried.restore(entries.slice(index));
        throw error;
      }
    }
  }

  async #giveBack(attempt: LoginAttempt, clearClient: boolean): Promise<void> {
    await this.#process.giveBack(attempt.keys, attempt, clearClient);
    if (this.#database && attempt.store === 'process') this.#uncarried.givenBack(attempt.keys, attempt, clearClient);
    if (attempt.store !== 'database') return;
    await this.#shared.giveBack(attempt.keys, attempt, clearClient);
    try {
      await this.#database!.giveBack(attempt.keys, attempt, clearClient);
    } catch (error) {
      // The attempt stays counted as a failure in the shared store: the safe side.
      this.#fallback.failed(error);
    }
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
