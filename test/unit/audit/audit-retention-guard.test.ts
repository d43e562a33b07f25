// Issue 44, item 1: AUDIT_RETENTION=9999999999h made the retention pass compute an invalid date,
// which every partition's end compared as "older", and each replica dropped every audit partition,
// today's included. The settings refuse such a value at start (test/system/foundation/setting-bounds.test.ts);
// these are the checks the pass makes again before it drops anything.
import { describe, expect, it } from 'vitest';
import { startAuditRetention } from '../../../shared/domain/audit/audit-retention.ts';
import { checkDropCutoff } from '../../../shared/domain/audit/audit-store.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 11, 7, 15, 30);
const START_OF_TODAY = Date.UTC(2026, 11, 7);

describe('Issue 44, item 1: the audit retention pass refuses a cut-off it has not checked', () => {
  it.each([
    ['an invalid date (what 9999999999h computed)', new Date(NOW - 9_999_999_999 * 3_600_000)],
    ['a date in the future', new Date(NOW + DAY_MS)],
    ["a date after the start of today (today's partition, where every replica writes)", new Date(START_OF_TODAY + 1)],
  ])('refuses %s', (_case, cutoff) => {
    expect(() => checkDropCutoff(cutoff, NOW)).toThrow(/^refusing to drop audit partitions before/);
  });

  it('accepts a cut-off at the start of today or earlier', () => {
    expect(() => checkDropCutoff(new Date(START_OF_TODAY), NOW)).not.toThrow();
    expect(() => checkDropCutoff(new Date(NOW - 90 * DAY_MS), NOW)).not.toThrow();
  });

  it.each([
    ['9999999999h', 9_999_999_999 * 3_600_000],
    ['1h (shorter than a day)', 3_600_000],
    ['a negative retention', -DAY_MS],
    ['not a number', Number.NaN],
  ])('a pass given AUDIT_RETENTION %s refuses before it asks the store for anything', async (_case, retentionMs) => {
    let storeAsked = false;
    const retention = startAuditRetention(
      async () => {
        storeAsked = true;
        throw new Error('the store was asked');
      },
      retentionMs,
      createLogger({ level: 'error' }),
      { firstRunMs: 3_600_000 },
    );
    try {
      await expect(retention.runOnce()).rejects.toThrow(/^AUDIT_RETENTION of .* ms is outside 24h to 87600h/);
      expect(storeAsked).toBe(false);
    } finally {
      retention.stop();
    }
  });
});
