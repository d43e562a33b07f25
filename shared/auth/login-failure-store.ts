/**
 * The rules every store of failed logins keeps (issue 36), whether it is the database every
 * instance shares (migration 008's `admit_login_attempt`) or one process's memory:
 *
 * - A key (the account, a client) has at most one window at a time, opened by the first failure
 *   counted while it has none and lasting `windowMs`. Failures are counted against the account and
 *   the client together; past `accountMax` of the account's window every client is refused, past
 *   `clientMax` of its own window that client is, each until that window ends.
 * - An attempt is counted before its password is compared, so no number of concurrent attempts on
 *   any number of instances compares more than the budgets allow; an attempt that turns out to be
 *   no failure (the right password, a comparison never made) is given back.
 * - Only admitted attempts make entries, so a store holds at most about twice the account's budget
 *   of clients; nothing an attacker sends removes an entry before its window ends.
 */
export interface LoginFailureStore {
  /** Counts the attempt, or refuses it when the account or the client has spent its budget. */
  admit(keys: LoginKeys, budgets: LoginBudgets, at?: number): Promise<LoginAdmission>;
  /** Takes back an admitted attempt that was no failure; `clearClient` forgets the client's failures (a success). */
  giveBack(keys: LoginKeys, admitted: AdmittedLogin, clearClient: boolean): Promise<void>;
}

/** Whose failures an attempt counts against: `account:<name>` and `client:<loginClientKey>`. */
export interface LoginKeys {
  account: string;
  client: string;
}

export interface LoginBudgets {
  windowMs: number;
  accountMax: number;
  clientMax: number;
}

/** An attempt counted as a failure until it is given back; the window ends are ms since the epoch. */
export interface AdmittedLogin {
  admitted: true;
  accountFailures: number;
  accountWindowEndsAt: number;
  clientFailures: number;
  clientWindowEndsAt: number;
}

/** An attempt refused: by the account's budget or the client's, until that window ends. */
export interface RefusedLogin {
  admitted: false;
  refusedBy: 'account' | 'client';
  retryAfterMs: number;
  /** The account's failures in its window, when known (for the audit annotation). */
  accountFailures: number | undefined;
}

export type LoginAdmission = AdmittedLogin | RefusedLogin;

/** The keys of an attempt by `client` (a loginClientKey) on the account `account`. */
export function loginKeys(account: string, client: string): LoginKeys {
  return { account: `account:${account}`, client: `client:${client}` };
}
