import type { Environment } from './environment.ts';
import { settingReader } from './setting-values.ts';

/**
 * How failed admin logins are budgeted (issue 36, docs/admin-account.md "Throttling"): per client
 * (an IPv4 address, or an IPv6 prefix) and for the account as a whole, in windows of one length.
 */
export interface LoginThrottleSettings {
  /** LOGIN_FAILURE_WINDOW: the length of a window, from the first failure counted in it. */
  readonly windowMs: number;
  /** LOGIN_CLIENT_MAX_FAILURES: failures one client may have in its window; past them it gets 429. */
  readonly clientMaxFailures: number;
  /** LOGIN_ACCOUNT_MAX_FAILURES: failures of all clients together in the account's window; past them every client gets 429. */
  readonly accountMaxFailures: number;
  /** LOGIN_IPV6_PREFIX_LENGTH: IPv6 clients are grouped by this prefix (a /64 is what one subscriber holds). */
  readonly ipv6PrefixLength: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleSettings = {
  windowMs: 5 * 60_000,
  clientMaxFailures: 5,
  accountMaxFailures: 20,
  ipv6PrefixLength: 64,
};

/** Reads the login section of the settings; throws ConfigError naming the bad variable. */
export function loadLoginThrottleSettings(env: Environment): LoginThrottleSettings {
  const setting = settingReader(env);
  return {
    windowMs: setting.duration('LOGIN_FAILURE_WINDOW', { fallback: '5m', min: '1s', max: '24h', example: '5m' }),
    clientMaxFailures: setting.integer('LOGIN_CLIENT_MAX_FAILURES', {
      fallback: DEFAULT_LOGIN_THROTTLE.clientMaxFailures,
      min: 1,
      max: 1_000,
    }),
    accountMaxFailures: setting.integer('LOGIN_ACCOUNT_MAX_FAILURES', {
      fallback: DEFAULT_LOGIN_THROTTLE.accountMaxFailures,
      min: 1,
      max: 1_000_000,
    }),
    ipv6PrefixLength: setting.integer('LOGIN_IPV6_PREFIX_LENGTH', {
      fallback: DEFAULT_LOGIN_THROTTLE.ipv6PrefixLength,
      min: 16,
      max: 128,
    }),
  };
}
