import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseDurationSetting, parseIntegerSetting } from './setting-values.ts';

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

const MAX_WINDOW_MS = 24 * 3_600_000;
const WINDOW_REQUIREMENT = 'a Go duration from 1s to 24h such as 5m';

/** Reads the login section of the settings; throws ConfigError naming the bad variable. */
export function loadLoginThrottleSettings(env: Environment): LoginThrottleSettings {
  const integer = (variable: string, fallback: number, min: number, max: number) => {
    const text = env[variable]?.trim();
    return text ? parseIntegerSetting(variable, text, min, max) : fallback;
  };
  return {
    windowMs: parseWindow(env.LOGIN_FAILURE_WINDOW?.trim()),
    clientMaxFailures: integer('LOGIN_CLIENT_MAX_FAILURES', DEFAULT_LOGIN_THROTTLE.clientMaxFailures, 1, 1_000),
    accountMaxFailures: integer('LOGIN_ACCOUNT_MAX_FAILURES', DEFAULT_LOGIN_THROTTLE.accountMaxFailures, 1, 1_000_000),
    ipv6PrefixLength: integer('LOGIN_IPV6_PREFIX_LENGTH', DEFAULT_LOGIN_THROTTLE.ipv6PrefixLength, 16, 128),
  };
}

function parseWindow(text: string | undefined): number {
  if (!text) return DEFAULT_LOGIN_THROTTLE.windowMs;
  const ms = parseDurationSetting('LOGIN_FAILURE_WINDOW', text, 1_000, WINDOW_REQUIREMENT);
  if (ms > MAX_WINDOW_MS) throw new ConfigError('LOGIN_FAILURE_WINDOW', `"${text}" is not ${WINDOW_REQUIREMENT}`);
  return ms;
}
