// Issue 44 item 3: while following a run that no controller claims, say so once on standard error
// ("no controller has claimed this run for 30 s") rather than wait in silence.
import { unclaimedNotice, unclaimedNoticeDueAt } from '../../shared/contract/rules/unclaimed-run.ts';
import type { PlatformConnection } from './platform-connection.ts';
import { getRun } from './runs-client.ts';

/**
 * Reads the run, and again when its notice falls due, until it is claimed, over, or the notice is
 * written (once). A failed read ends the watch quietly: the follower reports the server's errors.
 * `stop` ends it when the follow ends.
 */
export function watchUnclaimedRun(
  connection: PlatformConnection,
  project: string,
  run: string,
  write: (text: string) => void,
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    const record = await getRun(connection, project, run).catch(() => undefined);
    if (stopped || !record) return;
    const now = Date.now();
    const notice = unclaimedNotice(record, now);
    if (notice) {
      write(
        `run/${run}: ${notice}; is a workspace controller running? (npm start runs one unless LOCAL_CONTROLLER=false)\n`,
      );
      return;
    }
    const due = unclaimedNoticeDueAt(record);
    if (due !== undefined) timer = setTimeout(() => void check(), due - now);
  };
  void check();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
