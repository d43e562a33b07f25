import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The uid and gid of an operating-system account. */
export interface AccountIds {
  uid: number;
  gid: number;
}

/** Looks up the `postgres` account, which PostgreSQL runs as when this process is root. */
export async function lookUpPostgresAccount(): Promise<AccountIds> {
  const [uid, gid] = await Promise.all([
    execFileAsync('id', ['-u', 'postgres']),
    execFileAsync('id', ['-g', 'postgres']),
  ]);
  return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
}

/**
 * Creates `folder` owned by `account` and makes every ancestor traversable by others,
 * because PostgreSQL (running as that account) must reach and own its data folder.
 */
export async function preparePostgresOwnedFolder(folder: string, account: AccountIds): Promise<void> {
  const absolute = resolve(folder);
  await mkdir(absolute, { recursive: true });
  await chown(absolute, account.uid, account.gid);
  for (let parent = dirname(absolute); parent !== dirname(parent); parent = dirname(parent)) {
    await ensureOthersCanTraverse(parent);
  }
}

const OTHERS_EXECUTE = 0o001;

async function ensureOthersCanTraverse(directory: string): Promise<void> {
  const { mode } = await stat(directory);
  if ((mode & OTHERS_EXECUTE) === 0) await chmod(directory, (mode & 0o7777) | OTHERS_EXECUTE);
}
