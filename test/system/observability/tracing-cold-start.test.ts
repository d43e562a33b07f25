// Issue 23, item 3, "the SDK and OTLP exporter loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is
// set, so cold start does not pay for it": a function process lists every module it loads
// (test/support/module-load-log.ts). With tracing off it reads none of the SDK, on the sources or
// from the bundle; with an endpoint it does (which shows the probe sees the SDK when it is there).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { REPO_ROOT, SOURCE_ENTRY, spawnNodeProcess, type FunctionProcess } from '../../support/function-servers.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';

const MODULE_LOAD_HOOK = ['--import', pathToFileURL(join(REPO_ROOT, 'test/support/module-load-log.ts')).href];
const BUNDLE_ENTRY = join(inject('bundleDir'), 'entry.mjs');
const receiver = await startOtlpReceiver();
const TRACING_ON = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };

const running: FunctionProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
afterAll(() => receiver.close());

/** Starts the login function from `entry`, answers one request, and returns every module URL it loaded. */
async function modulesLoaded(entry: string, env: Record<string, string>): Promise<string[]> {
  const folder = mkdtempSync(join(tmpdir(), 'tracing-modules-'));
  folders.push(folder);
  const logFile = join(folder, 'modules.txt');
  const child = await spawnNodeProcess(
    entry,
    adminEnv({ FUNCTION_TARGET: 'login', MODULE_LOAD_LOG: logFile, ...env }),
    '/healthz',
    { nodeArgs: MODULE_LOAD_HOOK },
  );
  running.push(child);
  // A request through the whole chain (refused: no password), so the request path's modules are loaded too.
  expect((await fetch(`${child.url}/api/v1alpha1/auth/login`, { method: 'POST' })).status).toBe(400);
  return readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
}

/** The OpenTelemetry packages among loaded module URLs (on the sources). */
function openTelemetryPackages(urls: string[]): string[] {
  const names = urls.map((url) => /\/node_modules\/(@opentelemetry\/[^/]+)\//.exec(url)?.[1]).filter(Boolean);
  return [...new Set(names as string[])].sort();
}

/** Whether a loaded bundle file holds the OTLP exporter's code (class names survive the build). */
function holdsExporter(url: string): boolean {
  return url.startsWith('file:') && /\bOTLPTraceExporter\b/.test(readFileSync(new URL(url), 'utf8'));
}

describe('issue 23: tracing off, cold start loads nothing of the OpenTelemetry SDK', () => {
  it('on the sources: only @opentelemetry/api; with an OTLP endpoint the SDK, the exporter and the context manager too', async () => {
    expect(openTelemetryPackages(await modulesLoaded(SOURCE_ENTRY, {}))).toEqual(['@opentelemetry/api']);
    expect(openTelemetryPackages(await modulesLoaded(SOURCE_ENTRY, TRACING_ON))).toEqual(
      expect.arrayContaining([
        '@opentelemetry/api',
        '@opentelemetry/context-async-hooks',
        '@opentelemetry/core',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/sdk-trace',
      ]),
    );
  });

  it('from the bundle: the SDK is a chunk of its own, read only with an OTLP endpoint', async () => {
    expect((await modulesLoaded(BUNDLE_ENTRY, {})).filter(holdsExporter)).toEqual([]);
    expect((await modulesLoaded(BUNDLE_ENTRY, TRACING_ON)).filter(holdsExporter)).toHaveLength(1);
  });
});
