import { watch } from 'node:fs';
import { readFile, readdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { ADMIN_SETTING_KEYS, type AdminSettingValues } from '../admin-account-settings.ts';
import type { FollowedSecret } from './followed-admin-settings-source.ts';

const MAX_READ_ATTEMPTS = 3;

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
      // Read every key from one version of the kubelet's folder; a swap during the reading would
      // otherwise mix old and new keys, so the reading is repeated when the version changed.
      for (let attempt = 1; ; attempt += 1) {
        const version = await dataVersion(folder);
        const values: AdminSettingValues = {};
        for (const key of ADMIN_SETTING_KEYS) values[key] = await readOptionalFile(join(version ?? folder, key));
        if ((await dataVersion(folder)) === version) return values;
        if (attempt === MAX_READ_ATTEMPTS) throw new Error(`${folder} kept changing while it was read`);
      }
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

/** The folder the kubelet's `..data` symlink points to now; undefined for a plain folder of files. */
async function dataVersion(folder: string): Promise<string | undefined> {
  try {
    return await realpath(join(folder, '..data'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function readOptionalFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
