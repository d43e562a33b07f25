import { AUDIT_RETENTION_BOUNDS } from '../../base/config/audit-settings.ts';
import { assertDurationWithin } from '../../base/config/duration-guard.ts';
import type { Logger } from '../../base/logging/logger.ts';
import { repeatInBackground } from '../../base/node/background-task.ts';
import type { AuditStore } from './audit-store.ts';

/** How often each process looks for days past the retention (any replica may drop them; the rest find none). */
const RETENTION_INTERVAL_MS = 3_600_000;
/** The first look, soon after start (not at start: start-up is busy enough). */
const FIRST_RUN_MS = 60_000;

export interface AuditRetention {
  /** Drops the days older than the retention now; resolves with the partitions dropped. */
  runOnce(): Promise<string[]>;
  stop(): void;
}

/**
 * Enforces AUDIT_RETENTION: every hour, the day partitions that ended more than `retentionMs` ago are
 * detached without locking writers and dropped. A failure is logged and tried again next hour.
 */
export function startAuditRetention(
  store: () => Promise<AuditStore>,
  retentionMs: number,
  logger: Logger,
  options: { firstRunMs?: number; intervalMs?: number } = {},
): AuditRetention {
  const runOnce = async () => {
    assertDurationWithin('AUDIT_RETENTION', retentionMs, AUDIT_RETENTION_BOUNDS);
    const dropped = await (await store()).dropDaysBefore(new Date(Date.now() - retentionMs));
    if (dropped.length > 0) logger.info('audit events past their retention dropped', { partitions: dropped });
    return dropped;
  };
  const task = repeatInBackground(runOnce, {
    firstRunMs: options.firstRunMs ?? FIRST_RUN_MS,
    intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS,
    onFailure: (error) =>
      logger.warn('audit retention could not run; it is tried again later', {
        detail: error instanceof Error ? error.message : String(error),
      }),
  });
  return { runOnce, stop: () => task.stop() };
}
