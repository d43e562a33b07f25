import { ConfigError } from './config-error.ts';
import { parseGoDuration } from './go-duration.ts';

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

/**
 * Parses a Go duration setting (`15s`, `1h30m`) in milliseconds, refusing anything shorter
 * than `minMs`; the error reads `"<text>" is not <requirement>` after the variable's name.
 */
export function parseDurationSetting(variable: string, text: string, minMs: number, requirement: string): number {
  const ms = parseGoDuration(text);
  if (ms === null || ms < minMs) throw new ConfigError(variable, `"${text}" is not ${requirement}`);
  return ms;
}

/** Parses a whole-number setting from `min` to `max`; throws ConfigError naming the variable otherwise. */
export function parseIntegerSetting(variable: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(variable, `"${text}" is not a whole number from ${min} to ${max}`);
  }
  return value;
}
