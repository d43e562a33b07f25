// Runs bcrypt comparisons off the main thread, so a burst of logins (about 75 ms of CPU each at
// cost 10) never stalls the event loop that serves every other request.
import { parentPort } from 'node:worker_threads';
import bcrypt from 'bcryptjs';

parentPort!.on('message', ({ id, password, hash }: { id: number; password: string; hash: string }) => {
  let matches = false;
  try {
    matches = bcrypt.compareSync(password, hash);
  } catch {
    matches = false;
  }
  parentPort!.postMessage({ id, matches });
});
