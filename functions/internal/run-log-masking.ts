import { ApiError } from '../../shared/http/api-error.ts';
import type { Logger } from '../../shared/logging/logger.ts';
import type { ClusterObjects } from '../../shared/resources/cluster-objects.ts';
import type { SensitiveValue } from '../../shared/runs/log-masking.ts';
import type { Run } from '../../shared/runs/run.ts';
import type { AppendedChunk, LeasedRun, LeaseHolder, RunLeases } from '../../shared/runs/run-leases.ts';
import { AttemptMasking, RunLogMasks } from '../../shared/runs/run-log-masks.ts';
import { resolveRunVariables } from './run-variables.ts';

/** The internal routes' masking of run logs (issue 26, docs/run-history.md "Masking"). */
export interface RunLogMasking {
  /** At claim: resolves the run's sensitive values for this attempt; answers the names too short to mask. */
  claimed(claimed: LeasedRun): Promise<string[]>;
  /** Masks the chunk, then stores it with `appendChunk` (which sees only masked lines). */
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
  clusterObjects: () => Promise<ClusterObjects>,
  logger: Logger,
  clusterConfigured: () => Promise<boolean> = async () => true,
): RunLogMasking {
  const masks = new RunLogMasks();
  // The same resolution as the variables route: what the controller can read is what is masked. A
  // deployment with no cluster configured at all (not one unreachable for now) answers the variables
  // route 503 for good: it handed out no value, so there is nothing to mask.
  const sensitiveValues = async (run: Run): Promise<SensitiveValue[]> => {
    if (!(await clusterConfigured())) return [];
    return (await resolveRunVariables(await clusterObjects(), run.project, run.workspace))
      .filter((variable) => variable.sensitive)
      .map(({ name, value }) => ({ name, value }));
  };

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
      const store = await leases();
      // A pipelined chunk is masked after the chunk before it was stored: with the carry it left.
      return store.inLineOrder(runId, firstSeq, lines.length, async () => {
        const attempt = masks.held(runId, leaseId) ?? (await attemptOf(store, runId, leaseId, holder));
        const masked = attempt.mask(firstSeq, lines);
        const appended = await store.appendChunk(runId, leaseId, holder, firstSeq, masked.lines);
        attempt.stored(appended.lastSeq + 1, masked.carry);
        return appended;
      });
    },
    finished(runId) {
      masks.forget(runId);
    },
  };
}
