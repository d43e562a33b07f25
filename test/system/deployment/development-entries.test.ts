// Issue 21, item 1: the product entries (knative/) name nothing of local development; the
// development entries (infra/development/entries/) wrap them and hand over the cluster and the
// database the same way (DevelopmentServices). Run alone on a checkout's local state, outside
// production and with neither KUBECONFIG nor DATABASE_URL, the development entries start the
// emulator and the embedded PostgreSQL there; the product entry starts neither.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startEmbeddedDatabase } from '../../../infra/development/database/embedded-database.ts';
import { spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';

const FRAMEWORK_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@google-cloud/functions-framework')),
  'main.js',
);

let dataDir = '';
const children: FunctionProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await child.stop();
  // The embedded PostgreSQL may still write its shutdown checkpoint after the entry has exited.
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
});

/** Local development mode (not production, no cluster or database named) over a fresh local state folder. */
async function localEnvironment(target: string): Promise<Record<string, string>> {
  dataDir = await mkdtemp(join(tmpdir(), 'development-entries-'));
  return { NODE_ENV: 'development', LOCAL_DATA_DIR: dataDir, FUNCTION_TARGET: target };
}

async function start(script: string, env: Record<string, string>): Promise<FunctionProcess> {
  const child = await spawnNodeProcess(script, env, '/healthz', { startTimeoutMs: 120_000 });
  children.push(child);
  return child;
}

describe('issue 21: development entries wrap the product entries and inject the cluster and the database', () => {
  it.each([
    ['the container entry', 'infra/development/entries/function-container.ts', {}],
    [
      'the functions-framework entry (--source)',
      FRAMEWORK_CLI,
      { FUNCTION_SOURCE: 'infra/development/entries/functions-framework.ts' },
    ],
  ])(
    '%s for development keeps the emulator and the embedded database in the local state folder',
    async (_, script, extra) => {
      const child = await start(script, { ...(await localEnvironment('resources')), ...extra });
      // resources connects to the cluster on first use (issue 25): readiness is the first use. The
      // fresh emulator serves no CustomResourceDefinitions yet (npm start installs them), hence 503.
      expect(await (await fetch(`${child.url}/readyz`)).json()).toMatchObject({
        reason: 'CustomResourceDefinitionsMissing',
      });
      // Log lines are written in batches (at most 1 s late).
      await expect
        .poll(() => child.output(), { timeout: 10_000 })
        .toContain(`its state is kept in ${join(dataDir, 'kubernetes')}`);
      // The resources function keeps run history: alone on the local state, it opens the database at start.
      expect(existsSync(join(dataDir, 'postgres', 'cluster', 'PG_VERSION'))).toBe(true);
    },
    180_000,
  );

  it('the product container entry, in the same environment, starts neither (what ships names neither)', async () => {
    const child = await start('knative/server.ts', await localEnvironment('resources'));
    expect((await fetch(`${child.url}/readyz`)).status).toBe(503);
    await expect.poll(() => child.output(), { timeout: 10_000 }).toContain('no Kubernetes cluster configured');
    // Readiness does not ask a cluster that is not configured (no failed call logged at every probe).
    expect((await fetch(`${child.url}/readyz`)).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(child.output()).not.toContain('did not answer');
    expect(child.output()).not.toContain('built-in Kubernetes emulator');
    expect(existsSync(join(dataDir, 'kubernetes'))).toBe(false);
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 120_000);

  it('Ctrl-C (SIGINT) drains before the embedded database stops: the last audit events are stored, not cut off', async () => {
    const child = await start('infra/development/entries/function-container.ts', await localEnvironment('resources'));
    // A refusal is recorded at the default policy; its event waits in the database sink's batch (up to 1 s).
    const refused = await fetch(`${child.url}/api/v1alpha1/auth/whoami`, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    expect(refused.status).toBe(401);
    const auditId = refused.headers.get('audit-id')!;
    const exited = new Promise((resolve) => child.child.once('exit', resolve));
    child.child.kill('SIGINT');
    expect(await exited).toBe(0);
    // The same data folder, opened again: the event was written before the database stopped.
    const database = await startEmbeddedDatabase({ dataDir: join(dataDir, 'postgres') });
    const client = new pg.Client({ connectionString: database.connectionString });
    try {
      await client.connect();
      const { rows } = await client.query('SELECT code FROM audit_events WHERE audit_id = $1', [auditId]);
      expect(rows).toEqual([{ code: 401 }]);
    } finally {
      await client.end();
      await database.stop();
    }
  }, 180_000);
});
