/**
 * How long a test file's `beforeAll` may wait for a fleet to start: a real slow step (ten or
 * fifteen Node processes, each compiling the product, then every replica's `/readyz`), taking
 * minutes on a loaded two-core machine (issue 44, item 14). The start itself fails sooner, naming
 * the replica, when one replica takes longer than its own start timeout.
 */
export const FLEET_START_BOUND_MS = 600_000;

/**
 * How long one replica may take to start and answer `/readyz` (the fleet's `startTimeoutMs`): a
 * replica alone starts in seconds, but at a load average of 35 on two cores (other test files,
 * other checkouts) one took more than the fleet's default of 60 s.
 */
export const REPLICA_START_BOUND_MS = 300_000;

/**
 * Each replica's last state in the gateway's log before its `fleet listening` line, keyed by
 * `<function> <host:port>`: `upstream ready` or `upstream not serving` (none if never checked).
 */
export function replicaStatesWhenListening(lines: readonly string[]): Map<string, string> {
  const states = new Map<string, string>();
  for (const line of lines) {
    const entry = JSON.parse(line) as { message?: string; function?: string; upstream?: string };
    if (entry.message === 'fleet listening') return states;
    if (entry.message === 'upstream ready' || entry.message === 'upstream not serving')
      states.set(`${entry.function} ${entry.upstream}`, entry.message);
  }
  throw new Error('the fleet never logged "fleet listening"');
}
