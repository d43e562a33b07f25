import { watch } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_SETTING_KEYS, type AdminSettingValues } from '../admin-account-settings.ts';
import type { FollowedSecret } from './followed-admin-settings-source.ts';

/**
 * A Secret mounted as a folder: one file per key, named by the key. The kubelet swaps the whole
 * folder atomically (the `..data` symlink), which `fs.watch` on the folder sees at once; a poll
 * every `pollIntervalMs` catches what a watch can miss (network filesystems, a replaced folder).
 * File contents are taken byte for byte, as the environment route takes them, so both routes
 * yield the same signing key from the same Secret.
 */
export function mountedFolderSecret(folder: string, pollIntervalMs: number): FollowedSecret {
  return {
    description: `the mounted secret folder ${folder}`,
    async read() {
      // A missing or unreadable folder is an error of its own, not four missing keys.
      await readdir(folder);
      const values: AdminSettingValues = {};
      for (const key of ADMIN_SETTING_KEYS) values[key] = await readOptionalFile(join(folder, key));
      return values;
    },
    follow(changed) {
      const poll = setInterval(changed, pollIntervalMs);
      poll.unref();
      let watcher: ReturnType<typeof watch> | undefined;
      try {
        watcher = watch(folder, { persistent: false }, changed);
        // A watch that breaks (folder removed and re-created) leaves the poll in charge.
        watcher.on('error', () => watcher?.close());
      } catch {
        watcher = undefined;
      }
      return () => {
        clearInterval(poll);
        watcher?.close();
      };
    },
  };
}

async function readOptionalFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
