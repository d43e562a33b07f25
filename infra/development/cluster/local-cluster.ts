import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeEmulator } from '../../kube-emulator/index.ts';
import { acquireStateLock } from '../local/state-lock.ts';

/**
 * The built-in Kubernetes emulator over the local state folder: its objects are read from and
 * saved to `<folder>/state.json`, so Projects survive a restart together with the run history
 * in the embedded database beside it. One process serves it at a time (`<folder>/lock`).
 */
export async function startLocalCluster(folder: string): Promise<KubeEmulator> {
  await mkdir(folder, { recursive: true });
  const release = await acquireStateLock(
    join(folder, 'lock'),
    `the local Kubernetes state in ${folder}`,
    'another `npm start`, `npm run fleet` or function of this checkout; stop it, or use `npm run fleet` to run several functions together',
  );
  try {
    // Imported only here, so production never loads the emulator.
    const { startKubeEmulator } = await import('../../kube-emulator/index.ts');
    const emulator = await startKubeEmulator({ statePath: join(folder, 'state.json') });
    return {
      ...emulator,
      async close() {
        await emulator.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
