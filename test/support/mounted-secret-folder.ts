import { mkdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

let generation = 0;

/**
 * Writes a Secret into a folder the way the kubelet does: the files go into a fresh timestamped
 * folder, a `..data` symlink is swapped to it atomically, and each key is a symlink through
 * `..data`. Readers therefore see the old set of keys or the new one, never a mix.
 */
export async function writeMountedSecret(folder: string, values: Record<string, string>): Promise<void> {
  await mkdir(folder, { recursive: true });
  generation += 1;
  const version = `..${Date.now()}_${process.pid}_${generation}`;
  await mkdir(join(folder, version));
  for (const [key, value] of Object.entries(values)) await writeFile(join(folder, version, key), value);
  const previous = await readlink(join(folder, '..data')).catch(() => undefined);
  await symlink(version, join(folder, '..data_tmp'));
  await rename(join(folder, '..data_tmp'), join(folder, '..data'));
  for (const key of Object.keys(values)) await symlink(join('..data', key), join(folder, key)).catch(ignoreExisting);
  if (previous) await rm(join(folder, previous), { recursive: true, force: true });
}

function ignoreExisting(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error;
}
