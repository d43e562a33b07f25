// The development commands over the cluster and the checkout's local state (local-command-main.ts).
import { access, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Settings } from '../../../shared/base/config/settings.ts';
import { rotateSigningKey } from '../local/admin-secret-folder.ts';
import { startLocalCluster } from '../cluster/local-cluster.ts';
import { localDataPaths } from '../local/local-data.ts';
import { refuseWhileHeld } from '../local/state-lock.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import { setUpCluster } from '../cluster/cluster-setup.ts';
import { kubeConfigFromFiles } from '../../../shared/base/config/kubeconfig-files.ts';

/**
 * `npm run local:setup`: the one-shot cluster set-up. With KUBECONFIG, installs the CRDs in that
 * cluster; without, in the built-in emulator's saved state under the data folder, seeding the
 * example Project, so that functions started afterwards find them.
 */
export async function setupCommand(settings: Settings, dataDir: string, logger: Logger): Promise<void> {
  const { apiGroup } = settings.server;
  if (settings.cluster.kubeconfig !== undefined) {
    await setUpCluster(kubeConfigFromFiles(settings.cluster.kubeconfig), apiGroup, logger, { seedExample: false });
    return;
  }
  const emulator = await startLocalCluster(localDataPaths(dataDir).kubernetes);
  try {
    await setUpCluster(emulator.kubeConfig(), apiGroup, logger, { seedExample: true });
  } finally {
    await emulator.close();
  }
}

/** `npm run local:rotate-key`: a new admin signing key in the fleet's secret folder. */
export async function rotateSigningKeyCommand(dataDir: string): Promise<string> {
  const folder = localDataPaths(dataDir).adminSecret;
  await access(join(folder, 'ADMIN_ACCOUNT_TOKEN_SIGNING_KEY')).catch(() => {
    throw new Error(`no admin secret folder at ${folder}: \`npm run fleet\` creates it on its first start`);
  });
  await rotateSigningKey(folder);
  return folder;
}

/**
 * `npm run local:reset`: deletes the local cluster state and the embedded database together,
 * so neither outlives the other. Refused while a process of this checkout serves them.
 */
export async function resetLocalCommand(dataDir: string): Promise<string[]> {
  const paths = localDataPaths(dataDir);
  const present = await Promise.all(
    [paths.kubernetes, paths.postgres].map((path) =>
      stat(path).then(
        () => path,
        () => undefined,
      ),
    ),
  );
  // Saying "removed" for folders that were never there would hide a mistyped --data-dir.
  if (!present.some(Boolean))
    throw new Error(`no local state to reset in ${dataDir} (neither ${paths.kubernetes} nor ${paths.postgres} exists)`);
  const hint = 'stop `npm start`, `npm run fleet` and functions of this checkout first';
  await refuseWhileHeld(join(paths.kubernetes, 'lock'), `the local Kubernetes state in ${paths.kubernetes}`, hint);
  await refuseWhileHeld(
    join(paths.postgres, 'cluster', 'postmaster.pid'),
    `the embedded database in ${paths.postgres}`,
    hint,
  );
  const removed = present.filter((path) => path !== undefined);
  for (const path of removed) await rm(path, { recursive: true, force: true });
  return removed;
}
