// CORS for browser clients on another origin (issue 9, item 6): the setting CORS_ALLOWED_ORIGINS
// (exact origins, none by default), and the real browser against the local gateway: a page of an
// allowed origin calls the API with fetch + Authorization (preflighted) and opens an EventSource
// on a run's log with ?access_token= (no preflight); a page of another origin is blocked by the
// browser itself. Each adapter's answers are compared in every-adapter.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { loadServerConfig } from '../../../shared/base/config/server-config.ts';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { testRuns } from '../../support/test-runs.ts';
import { capturingLogger, loginToken, startTestGateway } from '../../support/function-servers.ts';
import { launchChromium } from '../../support/headless-chromium.ts';
import { startTestDatabase, type TestDatabase } from '../../support/test-database.ts';

describe('CORS_ALLOWED_ORIGINS: exact origins, comma-separated, none by default; `*` alone allows any', () => {
  it('allows none by default', () => {
    expect(loadServerConfig({}).corsAllowedOrigins).toEqual([]);
    expect(loadServerConfig({ CORS_ALLOWED_ORIGINS: ' ' }).corsAllowedOrigins).toEqual([]);
  });

  it('reads exact origins, trimmed, each once', () => {
    expect(
      loadServerConfig({
        CORS_ALLOWED_ORIGINS: 'https://console.example.com, http://localhost:3000,https://console.example.com',
      }).corsAllowedOrigins,
    ).toEqual(['https://console.example.com', 'http://localhost:3000']);
  });

  it('takes `*` alone as every origin', () => {
    expect(loadServerConfig({ CORS_ALLOWED_ORIGINS: '*' }).corsAllowedOrigins).toEqual(['*']);
  });

  it.each([
    ['a trailing slash', 'https://console.example.com/'],
    ['a path', 'https://console.example.com/app'],
    ['a pattern', 'https://*.example.com'],
    ['`*` beside an origin', '*, https://console.example.com'],
    ['an upper-case host (browsers send it lower-case)', 'https://Console.example.com'],
    ['a default port written out (browsers leave it out)', 'https://console.example.com:443'],
    ['the opaque origin "null"', 'null'],
    ['a scheme other than http(s)', 'ftp://files.example.com'],
    ['a bare host', 'console.example.com'],
  ])('refuses %s with a ConfigError naming the variable', (_case, value) => {
    let error: unknown;
    try {
      loadServerConfig({ CORS_ALLOWED_ORIGINS: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({
      variable: 'CORS_ALLOWED_ORIGINS',
      message: expect.stringContaining('CORS_ALLOWED_ORIGINS'),
    });
  });

  it('stops the server from starting on a malformed origin', async () => {
    await expect(startTestGateway({ CORS_ALLOWED_ORIGINS: 'https://console.example.com/' })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });
});

/** A page server: one empty HTML page, so the browser has an origin to call the API from. */
async function startPageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>'),
  );
  return { server, origin: `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}` };
}

interface BrowserCalls {
  /** The whoami answer, or the browser's error when it refused the answer. */
  fetched: { status: number; body: unknown } | { error: string };
  /** Without a token: the status and the exposed `WWW-Authenticate` challenge the page could read, or the browser's error. */
  refused: { status: number; challenge: string | null } | { error: string };
  /** The log lines the EventSource received, or the error it ended with. */
  streamed: { lines: string[] } | { error: string };
}

describe('A browser page on an allowed origin uses the API and the run-log EventSource; other origins are blocked by the browser', () => {
  let database: TestDatabase;
  let gateway: RunningServer;
  let browser: Browser;
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  const log = capturingLogger();
  let token = '';
  let runPath = '';

  beforeAll(async () => {
    [database, allowed, other] = await Promise.all([startTestDatabase(), startPageServer(), startPageServer()]);
    gateway = await startTestGateway(
      { DATABASE_URL: database.connectionString, CORS_ALLOWED_ORIGINS: allowed.origin },
      { logger: log },
    );
    const run = await testRuns(database.pool).records.createRun({
      project: 'demo',
      workspace: 'network',
      type: 'plan',
      principal: 'admin',
      principalType: 'admin',
    });
    await testRuns(database.pool).appendLogLines(run.id, ['Initializing...', 'Plan: 1 to add']);
    runPath = `/api/v1alpha1/run-logs/demo/${run.id}`;
    token = await loginToken(gateway.url);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await Promise.all([allowed, other].map((page) => page && new Promise((resolve) => page.server.close(resolve))));
    await database?.destroy();
  });

  /** From a page of `origin`: fetch whoami with the token in Authorization, then read the run's log with EventSource + ?access_token=. */
  async function callFrom(origin: string): Promise<BrowserCalls> {
    const page: Page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(
        async ({ api, token, runPath }) => {
          const fetched = await fetch(`${api}/api/v1alpha1/auth/whoami`, {
            headers: { Authorization: `Bearer ${token}` },
          }).then(
            async (response) => ({ status: response.status, body: await response.json() }),
            (error: Error) => ({ error: error.name }),
          );
          const refused = await fetch(`${api}/api/v1alpha1/auth/whoami`).then(
            (response) => ({ status: response.status, challenge: response.headers.get('www-authenticate') }),
            (error: Error) => ({ error: error.name }),
          );
          const streamed = await new Promise<BrowserCalls['streamed']>((resolve) => {
            const lines: string[] = [];
            const source = new EventSource(`${api}${runPath}?access_token=${encodeURIComponent(token)}`);
            source.onmessage = (event) => {
              lines.push(event.data);
              if (lines.length === 2) {
                source.close();
                resolve({ lines });
              }
            };
            source.onerror = () => {
              source.close();
              resolve({ error: `EventSource readyState ${source.readyState}` });
            };
          });
          return { fetched, refused, streamed };
        },
        { api: gateway.url, token, runPath },
      );
    } finally {
      await page.close();
    }
  }

  it("an allowed origin reads whoami (after a preflight answered before authentication), a 401's challenge, and the run's log lines", async () => {
    const calls = await callFrom(allowed.origin);
    expect(calls).toEqual({
      fetched: { status: 200, body: { type: 'admin', name: 'admin' } },
      refused: { status: 401, challenge: 'Bearer realm="platform-api"' },
      streamed: { lines: ['Initializing...', 'Plan: 1 to add'] },
    });
    const preflights = log.lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.message === 'request' && line.method === 'OPTIONS');
    expect(preflights).toContainEqual(expect.objectContaining({ path: '/api/v1alpha1/auth/whoami', status: 204 }));
    expect(log.lines.join('\n')).not.toContain(token);
  });

  it('another origin is refused by the browser: the fetch fails and the EventSource closes with an error', async () => {
    const calls = await callFrom(other.origin);
    expect(calls).toEqual({
      fetched: { error: 'TypeError' },
      refused: { error: 'TypeError' },
      streamed: { error: 'EventSource readyState 2' },
    });
  });
});
