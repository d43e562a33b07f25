import { ConfigError } from './config-error.ts';
import type { Environment } from './environment.ts';
import { parseGoDuration } from './go-duration.ts';

/**
 * A duration setting's range, each a Go duration as the operator would write it (`24h`, `100ms`).
 * Every duration setting has a maximum: a value past what it feeds (a timer, a PostgreSQL interval,
 * a date) must stop the process at start, not misbehave later.
 */
export interface DurationBounds {
  /** The value when the variable is unset or blank. */
  readonly fallback: string;
  readonly min: string;
  readonly max: string;
  /** A value to show in the error, such as `2160h` (90 days). */
  readonly example: string;
}

export interface IntegerBounds {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

/** The spellings a boolean variable took before `true` and `false` were the only ones: still read, with a warning. */
export interface FormerSpellings {
  readonly true: readonly string[];
  readonly false: readonly string[];
}

export interface BooleanOptions {
  readonly fallback: boolean;
  readonly formerly?: FormerSpellings;
}

/**
 * The one way a setting is read (house review, section 7): each variable trimmed, blank as unset,
 * and a bad value refused with a ConfigError naming the variable, its bounds and an example.
 * Booleans are `true` or `false`; a variable's former spellings are read and warned about.
 */
export interface SettingReader {
  /** The value without surrounding blanks; undefined when unset or blank. */
  text(variable: string): string | undefined;
  /** A Go duration in milliseconds, from `min` to `max`. */
  duration(variable: string, bounds: DurationBounds): number;
  /** A whole number from `min` to `max` (digits only). */
  integer(variable: string, bounds: IntegerBounds): number;
  /** `true` or `false` in any case; the variable's former spellings with a warning. */
  boolean(variable: string, options: BooleanOptions): boolean;
  /** A comma-separated list, each entry trimmed, blank entries left out. */
  list(variable: string): string[];
}

/**
 * Reads settings out of `env` (the process environment, or a secret's keys). Warnings about
 * accepted but deprecated values are pushed onto `warnings`, for the start-up log.
 */
export function settingReader(env: Environment, warnings: string[] = []): SettingReader {
  const text = (variable: string) => env[variable]?.trim() || undefined;
  return {
    text,
    duration: (variable, bounds) => parseDurationSetting(variable, text(variable) ?? bounds.fallback, bounds),
    integer: (variable, bounds) => {
      const given = text(variable);
      return given === undefined ? bounds.fallback : parseIntegerSetting(variable, given, bounds);
    },
    boolean: (variable, options) => {
      const given = text(variable);
      if (given === undefined) return options.fallback;
      const parsed = parseBooleanSetting(variable, given, options.formerly);
      if (parsed.warning !== undefined) warnings.push(parsed.warning);
      return parsed.value;
    },
    list: (variable) =>
      (env[variable] ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
  };
}

/** Parses a Go duration setting (`15s`, `1h30m`) in milliseconds within its bounds; throws ConfigError naming the variable otherwise. */
function parseDurationSetting(variable: string, text: string, bounds: Omit<DurationBounds, 'fallback'>): number {
  const ms = parseGoDuration(text);
  if (ms === null || ms < boundMs(bounds.min) || ms > boundMs(bounds.max))
    throw new ConfigError(
      variable,
      `"${text}" is not a Go duration from ${bounds.min} to ${bounds.max} such as ${bounds.example}`,
    );
  return ms;
}

/** Parses a whole-number setting from `min` to `max`; throws ConfigError naming the variable otherwise. */
function parseIntegerSetting(variable: string, text: string, { min, max, fallback }: IntegerBounds): number {
  const value = Number(text);
  // Digits only: Number() would also take `1e3`, `0x10` and `2.0`, which no operator means as a count.
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(variable, `"${text}" is not a whole number from ${min} to ${max} such as ${fallback}`);
  }
  return value;
}

/**
 * Parses `true` or `false` (any case). A former spelling of this variable is accepted, so no
 * deployment breaks, with a warning naming the variable; anything else is a ConfigError.
 */
function parseBooleanSetting(
  variable: string,
  text: string,
  formerly?: FormerSpellings,
): { value: boolean; warning?: string } {
  const spelled = text.trim().toLowerCase();
  if (spelled === 'true' || spelled === 'false') return { value: spelled === 'true' };
  const value = formerly?.true.includes(spelled) ? true : formerly?.false.includes(spelled) ? false : undefined;
  if (value === undefined) throw new ConfigError(variable, `"${text}" is not true or false`);
  return {
    value,
    warning: `${variable}="${text}" is read as ${value}; write ${value} instead (the spelling "${text}" is deprecated)`,
  };
}

/** Parses an http(s) URL setting; throws ConfigError naming the variable otherwise. */
export function parseHttpUrlSetting(variable: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(variable, `"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(variable, `"${text}" must be an http or https URL`);
  return url;
}

function boundMs(bound: string): number {
  const ms = parseGoDuration(bound);
  if (ms === null) throw new TypeError(`a setting's bound "${bound}" is not a Go duration`);
  return ms;
}
