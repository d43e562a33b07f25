import { ApiError } from '../../../base/http/api-error.ts';
import type { Logger } from '../../../base/logging/logger.ts';
import type { SensitiveValue } from './log-masking.ts';
import type { Run } from '../run.ts';
import type { LeasedRun, LeaseHolder, RunLeases } from '../leases/run-leases.ts';
import type { AppendedChunk, RunLogChunks } from '../leases/log-chunks.ts';
import { AttemptMasking, RunLogMasks } from './run-log-masks.ts';

/**
 * The run's sensitive values that its log must not show: what the controller can read (the internal
 * function resolves them as its variables route does). An ApiError below 500 means it can read none.
 */
export type SensitiveValuesOf = (run: Run) => Promise<SensitiveValue[]>;

/** The masking of run logs (issue 26, docs/run-history.md "Masking"): the product's only way to store log lines. */
export interface RunLogMasking {
  /** At claim: resolves the run's sensitive values for this attempt; answers the names too short to mask. */
  claimed(claimed: LeasedRun): Promise<string[]>;
  /** Masks the chunk, then stores it with RunLogChunks.appendChunk (which sees only masked lines). */
  append(
    runId: string,
    leaseId: string,
    holder: LeaseHolder,
    firstSeq: number,
    lines: readonly string[],
  ): Promise<AppendedChunk>;
  /** The run ended: its values leave memory. */
  finished(runId: string): void;
}

export function runLogMasking(
  leases: () => Promise<RunLeases>,
  chunks: () => Promise<RunLogChunks>,
  sensitiveValues: SensitiveValuesOf,
  logger: Logger,
): RunLogMasking {
  const masks = new RunLogMasks();

  /** An attempt this process has no masker for (claimed by another replica, or before a restart). */
  const attemptOf = async (
    store: RunLeases,
    runId: string,
    leaseId: string,
    holder: LeaseHolder,
  ): Promise<AttemptMasking> => {
    const run = await store.heldRun(runId, leaseId, holder);
    try {
      return masks.start(runId, leaseId, await sensitiveValues(run));
    } catch (error) {
      // A Workspace or VariableSet the variables route refuses too: the controller cannot have read any
      // value, so there is nothing to mask yet; not kept, the next chunk resolves again. Any other
      // failure (the cluster unreachable) refuses the chunk rather than store it unmasked.
      if (error instanceof ApiError && error.status < 500) return new AttemptMasking(leaseId, []);
      throw error;
    }
  };

  return {
    async claimed(claimed) {
      try {
        return masks.start(claimed.run.id, claimed.lease.id, await sensitiveValues(claimed.run))
          .unmaskedSensitiveValues;
      } catch (error) {
        // The claim is made: answer it; the run's first log chunk resolves the values again.
        logger.warn('the sensitive values of a claimed run could not be resolved; its log chunks resolve them again', {
          run: claimed.run.id,
          reason: error instanceof ApiError ? error.reason : error instanceof Error ? error.name : 'unknown',
        });
        return [];
      }
    },
    async append(runId, leaseId, holder, firstSeq, lines) {
      const [store, log] = await Promise.all([leases(), chunks()]);
      // A pipelined chunk is masked after the chunk before it was stored: with the carry it left.
      return log.inLineOrder(runId, firstSeq, lines.length, async () => {
        const attempt = masks.held(runId, leaseId) ?? (await attemptOf(store, runId, leaseId, holder));
        const masked = attempt.mask(firstSeq, lines);
        const appended = await log.appendChunk(runId, leaseId, holder, firstSeq, masked.lines);
        attempt.stored(appended.lastSeq + 1, masked.carry);
        return appended;
      });
    },
    finished(runId) {
      masks.forget(runId);
    },
  };
}
