import type { DevelopmentServices } from '../../shared/server/app/development-services.ts';
import { startDevelopmentCluster } from './cluster/development-cluster.ts';
import { startDevelopmentDatabase } from './database/development-database.ts';
import { localDataPaths } from './local/local-data.ts';
import { DEFAULT_LOCAL_DATA_DIR } from './local/local-settings.ts';

/**
 * The cluster and the database local development hands an app context, both the same way: over
 * the checkout's local state folder `localDataDir` when given (the entries pass LOCAL_DATA_DIR, local-settings.ts) (the emulator's objects in
 * `kubernetes/`, PostgreSQL in `postgres/`, each under a lock, so they survive a restart together);
 * without one (tests), a throwaway cluster and the checkout's default database folder. Each starts
 * only when the environment names no cluster or database, and loads its modules only then.
 */
export function developmentServices(localDataDir?: string): DevelopmentServices {
  const paths = localDataDir === undefined ? undefined : localDataPaths(localDataDir);
  return {
    startCluster: () => startDevelopmentCluster(paths?.kubernetes),
    startDatabase: () => startDevelopmentDatabase((paths ?? localDataPaths(DEFAULT_LOCAL_DATA_DIR)).postgres),
    localState: paths !== undefined,
  };
}
