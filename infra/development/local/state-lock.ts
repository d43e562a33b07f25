import { open, readFile, rm } from 'node:fs/promises';
import { LastingFailure } from '../../../shared/base/node/lasting-failure.ts';

/** Another live process holds a piece of local state; says which process and what to do. */
export class LocalStateInUseError extends LastingFailure {
  constructor(what: string, pid: number, hint: string) {
    super(`${what} is in use by process ${pid}${hint ? ` (${hint})` : ''}`);
    this.name = 'LocalStateInUseError';
  }
}

/**
 * Takes the lock file `path` for this process (a pid file, created exclusively). A lock left by
 * a process that no longer runs is taken over. Throws LocalStateInUseError when a live process
 * holds it. Returns the release function.
 */
export async function acquireStateLock(path: string, what: string, hint = ''): Promise<() => Promise<void>> {
  for (;;) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(String(process.pid));
      await file.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await refuseWhileHeld(path, what, hint);
    await rm(path, { force: true });
  }
}

/**
 * Throws LocalStateInUseError when the pid file (its first line: a process id) names a live
 * process: state another program locks in its own way, such as PostgreSQL's `postmaster.pid`.
 */
export async function refuseWhileHeld(pidFile: string, what: string, hint: string): Promise<void> {
  const text = await readFile(pidFile, 'utf8').catch(() => '');
  const pid = Number(text.split('\n', 1)[0]);
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid))
    throw new LocalStateInUseError(what, pid, hint);
}

/** Whether a process with this id runs (one of another user counts). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
