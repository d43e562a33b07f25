// How local development starts the emulator when no cluster is configured. The product (`shared/`,
// `knative/`) never names it: the development entries hand it over (development-services.ts).
import type { StartedDevelopmentCluster } from '../../../shared/base/kubernetes/cluster-connection.ts';

/**
 * Starts the built-in emulator: over `stateDir` (objects kept there across restarts, under a pid
 * lock) when given, else a throwaway one. Its modules load only when called, so entry points
 * that hold this starter pay nothing for it when a cluster is configured.
 */
export async function startDevelopmentCluster(stateDir: string | undefined): Promise<StartedDevelopmentCluster> {
  if (stateDir) return { ...(await (await import('./local-cluster.ts')).startLocalCluster(stateDir)), stateDir };
  return (await import('../../kube-emulator/index.ts')).startKubeEmulator();
}
