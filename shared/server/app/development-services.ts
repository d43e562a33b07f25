import type { EmbeddedDatabaseStarter } from '../../base/database/database-url.ts';
import type { DevelopmentCluster } from '../../base/kubernetes/cluster-connection.ts';

/**
 * What local development hands a context, both the same way: a cluster for when the environment
 * names none, and a database for when DATABASE_URL is unset. The development entries
 * (infra/development/) build it with `developmentServices(...)`; the product entries pass none,
 * so nothing of the emulator or of embedded PostgreSQL is in what ships. Never used in production.
 */
export interface DevelopmentServices {
  /** Starts the built-in Kubernetes emulator (only when neither KUBECONFIG nor in-cluster configuration is set). */
  startCluster: DevelopmentCluster;
  /** Starts the embedded PostgreSQL (only when DATABASE_URL is unset). */
  startDatabase: EmbeddedDatabaseStarter;
  /**
   * They keep the checkout's local state (npm start, one function alone): a database another
   * process holds is reported at start, and the audit trail writes to the embedded database.
   * False for a throwaway cluster (tests).
   */
  localState: boolean;
}
