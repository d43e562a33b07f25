// Runs bcrypt comparisons off the main thread, so a burst of logins (about 75 ms of CPU each at
// cost 10) never stalls the event loop that serves every other request.
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

// Linux schedules threads one by one: lowering this thread's priority (its thread id, from
// /proc/thread-self) lets the event loop win the CPU whenever both want it. Elsewhere it stays as is.
try {
  const threadId = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ', 1)[0]);
  setPriority(threadId, 10);
} catch {
  // Not Linux, or not permitted: comparisons simply share the CPU evenly.
}

parentPort!.on('message', ({ id, password, hash }: { id: number; password: string; hash: string }) => {
  let matches = false;
  try {
    matches = bcrypt.compareSync(password, hash);
  } catch {
    matches = false;
  }
  parentPort!.postMessage({ id, matches });
});
