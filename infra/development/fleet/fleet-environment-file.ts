import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The variables that make a process one more member of a running fleet: same secret, issuer, cluster, database. */
export type SharedWithTheFleet = Record<'ADMIN_SECRET_SOURCE' | 'API_BASE_URL' | 'KUBECONFIG' | 'DATABASE_URL', string>;

/**
 * Writes `<data dir>/fleet.env` while the fleet runs: what a function started alone needs to accept
 * the fleet's tokens (the gateway's URL as issuer, the shared secret folder) and to use the fleet's
 * cluster and database instead of opening the local state the fleet holds. A file, not a log line,
 * because the database URL carries a password; readable by its owner only. Returns the command
 * that starts one such function and a remover for shutdown.
 */
export async function writeFleetEnvironmentFile(
  dataDir: string,
  shared: SharedWithTheFleet,
): Promise<{ path: string; joinCommand: string; remove: () => Promise<void> }> {
  const path = join(dataDir, 'fleet.env');
  const lines = Object.entries(shared).map(([name, value]) => `${name}=${shellQuoted(value)}`);
  await writeFile(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  return {
    path,
    joinCommand: `(set -a; . ${shellQuoted(path)}; npx functions-framework --target=<function> --port=<port>)`,
    remove: () => rm(path, { force: true }),
  };
}

function shellQuoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
