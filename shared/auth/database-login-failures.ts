import type { Database } from '../base/database/database.ts';
import type { UncarriedFailures } from './uncarried-login-failures.ts';
import type {
  AdmittedLogin,
  LoginAdmission,
  LoginBudgets,
  LoginFailureStore,
  LoginKeys,
} from './login-failure-store.ts';

/** A login waits at most this long for the database before it is counted in the process instead. */
export const LOGIN_QUERY_TIMEOUT_MS = 2_000;

interface AdmissionRow {
  admitted: boolean;
  refused_by: 'account' | 'client' | null;
  retry_after_ms: string;
  account_failures: number | null;
  account_window_ends_at: Date | null;
  client_failures: number | null;
  client_window_ends_at: Date | null;
}

/**
 * Failed logins counted in PostgreSQL, where every instance sees them (migration 008): one
 * statement per attempt (`admit_login_attempt`), by the rules of login-failure-store.ts, on the
 * database's clock. Giving an attempt back is a second statement, made only when the attempt was
 * no failure (a success, or a comparison never made).
 */
export class DatabaseLoginFailures implements LoginFailureStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async admit(keys: LoginKeys, budgets: LoginBudgets, at?: number): Promise<LoginAdmission> {
    const { rows } = await this.#database.query<AdmissionRow>(
      'SELECT * FROM admit_login_attempt($1, $2, $3, $4, $5::interval, $6)',
      [
        keys.account,
        budgets.accountMax,
        keys.client,
        budgets.clientMax,
        `${budgets.windowMs} milliseconds`,
        at === undefined ? null : new Date(at),
      ],
      { timeoutMs: LOGIN_QUERY_TIMEOUT_MS },
    );
    const row = rows[0]!;
    if (!row.admitted) {
      return {
        admitted: false,
        refusedBy: row.refused_by!,
        retryAfterMs: Number(row.retry_after_ms),
        accountFailures: row.account_failures ?? undefined,
      };
    }
    return {
      admitted: true,
      accountFailures: row.account_failures!,
      accountWindowEndsAt: row.account_window_ends_at!.getTime(),
      clientFailures: row.client_failures!,
      clientWindowEndsAt: row.client_window_ends_at!.getTime(),
    };
  }

  async giveBack(keys: LoginKeys, admitted: AdmittedLogin, clearClient: boolean): Promise<void> {
    await this.#database.query(
      'SELECT give_back_login_attempt($1, $2, $3, $4, $5)',
      [
        keys.account,
        new Date(admitted.accountWindowEndsAt),
        keys.client,
        new Date(admitted.clientWindowEndsAt),
        clearClient,
      ],
      { timeoutMs: LOGIN_QUERY_TIMEOUT_MS },
    );
  }

  /**
   * Adds failures a process counted while the database did not answer to the key's window (issue 44,
   * item 6): to its count if its window is still open, else as a new window ending when the process's
   * did. One row per statement, so it never holds two rows' locks and cannot deadlock an admission.
   */
  async carryBack({ key, windowEndsAt, failures }: UncarriedFailures): Promise<void> {
    await this.#database.query(
      `INSERT INTO login_failures AS f (key, window_ends_at, failures) VALUES ($1, $2, $3)
        ON CONFLICT (key) DO UPDATE SET
          failures = CASE WHEN f.window_ends_at > now() THEN f.failures + excluded.failures ELSE excluded.failures END,
          window_ends_at = CASE WHEN f.window_ends_at > now() THEN f.window_ends_at ELSE excluded.window_ends_at END`,
      [key, new Date(windowEndsAt), failures],
      { timeoutMs: LOGIN_QUERY_TIMEOUT_MS },
    );
  }
}
