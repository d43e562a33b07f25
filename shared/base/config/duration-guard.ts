import { parseGoDuration } from './go-duration.ts';

/**
 * Throws unless `ms` is a finite duration within `bounds` (Go durations, as a setting's bounds are
 * written). For the passes that compute a cut-off from a setting (audit retention, run history):
 * the settings refuse such a value at start, and a pass checks again before it acts, since a
 * cut-off computed from a value out of range (an invalid date, a date in the future) would mean
 * "everything is past its retention".
 */
export function assertDurationWithin(name: string, ms: number, bounds: { min: string; max: string }): void {
  const min = parseGoDuration(bounds.min) ?? Number.NaN;
  const max = parseGoDuration(bounds.max) ?? Number.NaN;
  if (!Number.isFinite(ms) || !(ms >= min && ms <= max))
    throw new RangeError(`${name} of ${ms} ms is outside ${bounds.min} to ${bounds.max}: nothing is removed`);
}
