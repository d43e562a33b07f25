import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { checkPlatformCrdsServed } from '../../../shared/domain/resources/crd-readiness.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { seedLocalExample } from './local-example.ts';

/** How long a real cluster may take to serve freshly created CRDs. */
const ESTABLISH_TIMEOUT_MS = 30_000;

/**
 * The one-shot cluster set-up that `npm run local:setup`, `npm start` and `npm run fleet` run locally
 * (the chart installs the same CRDs from its `crds` template): installs the platform's CRDs unless the
 * cluster serves them already (so a KUBECONFIG user without rights over CRDs is not refused for what an
 * operator installed; existing ones are kept), waits until they are served, and, with `seedExample`
 * (the local emulator), seeds the example Project once. Safe to run again.
 */
export async function setUpCluster(
  kubeConfig: KubeConfig,
  apiGroup: string,
  logger: Logger,
  options: { seedExample: boolean },
): Promise<void> {
  const rest = new KubernetesRestClient(kubeConfig, logger);
  const served = await checkPlatformCrdsServed(rest, apiGroup).then(
    () => true,
    () => false,
  );
  if (!served) {
    await installPlatformCrds(kubeConfig, apiGroup);
    const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
    for (;;) {
      try {
        await checkPlatformCrdsServed(rest, apiGroup);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }
  logger.info('cluster set up: the platform CustomResourceDefinitions are served', { apiGroup });
  if (options.seedExample) await seedLocalExample(new ClusterObjects(rest, apiGroup), logger);
}
