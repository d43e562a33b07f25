// Saving the emulator's objects to a file, so a local cluster outlives the process that serves it.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ResourceStore, StoreSnapshot } from './resource-store.ts';

/** Writes are coalesced: a burst of changes (seeding a Project) is one write. */
const SAVE_DELAY_MS = 50;

/** The saved snapshot at `path`, or undefined when nothing was saved yet. */
export async function readSavedState(path: string): Promise<StoreSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as StoreSnapshot;
}

/** Writes the store's current objects to `path`. */
export async function writeSavedState(store: ResourceStore, path: string): Promise<void> {
  const text = JSON.stringify(store.snapshot());
  // Written beside, then renamed over: a crash mid-write leaves the previous state whole.
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, text, { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

/** Saves the store to `path` after every change; `flush` waits for the last change to be on disk. */
export function saveOnChange(store: ResourceStore, path: string): { flush(): Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    timer = undefined;
    // A failed write (disk full) is reported and the next change tries again with the whole state.
    writing = writing
      .then(() => writeSavedState(store, path))
      .catch((error: Error) => process.emitWarning(`Kubernetes emulator state not saved to ${path}: ${error.message}`));
  };
  const unsubscribe = store.subscribe(() => {
    timer ??= setTimeout(save, SAVE_DELAY_MS);
  });
  return {
    async flush() {
      if (timer) {
        clearTimeout(timer);
        save();
      }
      await writing;
    },
    stop: unsubscribe,
  };
}
