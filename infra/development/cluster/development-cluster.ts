// How the local entry points (`npm start`, fleet, a function run alone in development) hand the
// emulator to the app context when no cluster is configured. The product (`shared/`) never names
// the emulator: it receives this starter and calls it only in development with no KUBECONFIG.
import type { DevelopmentCluster } from '../../../shared/kubernetes/cluster-connection.ts';

/**
 * Starts the built-in emulator: over `stateDir` (objects kept there across restarts, under a pid
 * lock) when given, else a throwaway one. Its modules load only when called, so entry points
 * that import this starter pay nothing for it when a cluster is configured.
 */
export const startDevelopmentCluster: DevelopmentCluster = async (stateDir) => {
  if (stateDir) return (await import('./local-cluster.ts')).startLocalCluster(stateDir);
  return (await import('../../kube-emulator/index.ts')).startKubeEmulator();
};
