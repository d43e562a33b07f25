import type { Principal } from '../../auth/principal.ts';
import { BoundedMap } from '../../base/caching/bounded-map.ts';
import type { Logger } from '../../base/logging/logger.ts';
import { projectTokenUsed } from './project-token-principals.ts';
import type { ProjectTokenStore } from './project-token-store.ts';

/** How often at most this instance writes one token's last use (the store also skips a write within it). */
const WRITE_INTERVAL_MS = 60_000;
/** Tokens whose last write this instance remembers; past it the oldest is forgotten and may be written again early. */
const MAX_REMEMBERED = 10_000;

/**
 * Records a Project token's last use (time and client address) at most once a minute per token and
 * instance, without waiting: a request by a token costs a map lookup, and one UPDATE a minute.
 */
export function tokenUseRecorder(
  store: ProjectTokenStore,
  apiGroup: string,
  logger: Logger,
): (principal: Principal, clientAddress: string) => void {
  const lastWritten = new BoundedMap<string, number>(MAX_REMEMBERED);
  return (principal, clientAddress) => {
    const token = projectTokenUsed(principal, apiGroup);
    if (!token) return;
    const key = `${token.project}/${token.name}`;
    const now = Date.now();
    if (now - (lastWritten.get(key) ?? 0) < WRITE_INTERVAL_MS) return;
    lastWritten.set(key, now);
    store.recordUse(token.project, token.name, clientAddress).catch((error: unknown) =>
      logger.warn("a Project token's last use could not be recorded", {
        project: token.project,
        token: token.name,
        detail: error instanceof Error ? error.message : String(error),
      }),
    );
  };
}
