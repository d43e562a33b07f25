import { CoreV1Api, makeInformer, type KubeConfig, type V1ServiceAccount } from '@kubernetes/client-node';
import type { ServiceAccountClaimIndex } from './service-account-claim-index.ts';
import type { Logger } from '../base/logging/logger.ts';

/** A running watch of every ServiceAccount. */
export interface ServiceAccountWatch {
  /** Settles after the first list attempt, whether it succeeded or not. */
  firstAttempt: Promise<void>;
  stop(): Promise<void>;
}

const MIN_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Feeds the claim index from a list-and-watch of ServiceAccounts in all namespaces. When the
 * watch fails (cluster down), it restarts with backoff; the index keeps its last known state.
 */
export function watchServiceAccounts(
  kubeConfig: KubeConfig,
  index: ServiceAccountClaimIndex,
  logger: Logger,
): ServiceAccountWatch {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ServiceAccount>(kubeConfig, '/api/v1/serviceaccounts', () =>
    core.listServiceAccountForAllNamespaces(),
  );
  informer.on('add', (account) => index.upsert(account));
  informer.on('update', (account) => index.upsert(account));
  informer.on('delete', (account) => index.remove(account));
  let stopped = false;
  // Cleared by each start, set by an error during it: a start that saw one has not synced.
  let failedSinceStart: boolean;
  let restartDelayMs = MIN_RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  const start = async () => {
    failedSinceStart = false;
    await informer.start();
    if (!failedSinceStart && !stopped) {
      index.markSynced();
      restartDelayMs = MIN_RESTART_DELAY_MS;
    }
  };
  informer.on('error', (error: unknown) => {
    failedSinceStart = true;
    if (stopped || restartTimer) return;
    logger.warn('ServiceAccount watch failed; claim mappings keep their last known state until it recovers', {
      detail: error instanceof Error ? error.message : String(error),
      retryInMs: restartDelayMs,
    });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      void start();
    }, restartDelayMs);
    restartTimer.unref();
    restartDelayMs = Math.min(restartDelayMs * 2, MAX_RESTART_DELAY_MS);
  });

  return {
    firstAttempt: start(),
    async stop() {
      stopped = true;
      clearTimeout(restartTimer);
      await informer.stop();
    },
  };
}
