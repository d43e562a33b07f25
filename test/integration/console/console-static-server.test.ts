// Issue 24, item 1 and 6: the console's static server and build. A strict CSP (no inline script or
// style in Vite's output), nosniff, hashed assets immutable and index.html revalidated, the SPA
// fallback, /config.json from CONSOLE_API_BASE_URL, and JavaScript under 150 KB compressed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ConfigError } from '../../../shared/base/config/config-error.ts';
import { loadConsoleSettings } from '../../../shared/base/config/console-settings.ts';
import {
  bindConsoleServer,
  startConsoleServer,
  type RunningConsole,
} from '../../../knative/console-server/console-server.ts';
import { rawRequest } from '../../support/raw-http.ts';

const API = 'https://api.platform.test';
const ISSUER = 'https://login.example.com';
const JS_BUDGET_BYTES = 150 * 1024;

let server: RunningConsole;
beforeAll(async () => {
  const settings = loadConsoleSettings({ CONSOLE_API_BASE_URL: API, CONSOLE_CONNECT_ORIGINS: ISSUER }, 0);
  server = await startConsoleServer(
    {
      apiBaseUrl: settings.apiBaseUrl!,
      connectOrigins: settings.connectOrigins,
      assetsDir: inject('consoleDir'),
      port: 0,
    },
    '127.0.0.1',
  );
});
afterAll(() => server.close());

const files = () =>
  readdirSync(inject('consoleDir'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());

describe('The console is served under a strict Content-Security-Policy', () => {
  it('index.html: script and style only from itself, connections only to itself, the API and the OpenID Provider', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${API} ${ISSUER}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it("Vite's build has no inline script, no inline style and no style attribute (the CSP would refuse them)", () => {
    const html = readFileSync(join(inject('consoleDir'), 'index.html'), 'utf8');
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? []) {
      expect(tag).toMatch(/\bsrc=/);
      expect(tag.replace(/<script\b[^>]*>|<\/script>/g, '').trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
  });
});

describe('Caching: hashed assets for a year, everything else revalidated', () => {
  it('an asset under assets/ is immutable, compressed when asked, and of its type', async () => {
    const script = files().find((entry) => entry.name.endsWith('.js'))!;
    const response = await fetch(`${server.url}/assets/${script.name}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('content-encoding')).toBe('gzip');
  });

  it('/config.json tells the app where the API is, never cached', async () => {
    const response = await fetch(`${server.url}/config.json`);
    expect(await response.json()).toEqual({ apiBaseUrl: API });
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });
});

describe('The single-page fallback', () => {
  it('answers index.html for a path without a file extension, 404 for a missing file', async () => {
    const page = await fetch(`${server.url}/projects/team-a`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    expect((await fetch(`${server.url}/assets/missing-123.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/robots.txt`)).status).toBe(404);
  });

  it('serves only GET and HEAD', async () => {
    const response = await fetch(`${server.url}/`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('Hostile request targets (issue 24; a 500 is a bug, a crash worse)', () => {
  it('a target that is no URL path is a 400, and the server goes on serving', async () => {
    for (const target of ['//', '///', '/\\'])
      expect((await rawRequest(server.url, 'GET', target)).status, target).toBe(400);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
  });
});

describe('Content coding follows the q-values of Accept-Encoding (issue 38, item 16)', () => {
  const encodingOf = async (acceptEncoding: string) => {
    const answer = await rawRequest(server.url, 'GET', '/', { 'accept-encoding': acceptEncoding });
    return { status: answer.status, encoding: answer.headers['content-encoding'] };
  };

  it('gzip;q=0 means gzip is not acceptable: the answer is not compressed', async () => {
    expect(await encodingOf('gzip;q=0')).toEqual({ status: 200, encoding: undefined });
    expect(await encodingOf('gzip; q=0.000, identity')).toEqual({ status: 200, encoding: undefined });
    expect(await encodingOf('*;q=0, identity')).toEqual({ status: 200, encoding: undefined });
  });

  it('gzip is used when gzip or * is acceptable and identity is not preferred to it', async () => {
    expect(await encodingOf('gzip')).toEqual({ status: 200, encoding: 'gzip' });
    expect(await encodingOf('deflate, GZIP;q=0.5')).toEqual({ status: 200, encoding: 'gzip' });
    expect(await encodingOf('*')).toEqual({ status: 200, encoding: 'gzip' });
    expect(await encodingOf('gzip;q=0.4, identity;q=0.8')).toEqual({ status: 200, encoding: undefined });
    expect(await encodingOf('br, deflate')).toEqual({ status: 200, encoding: undefined });
  });

  it('406 when neither gzip nor identity is acceptable (identity;q=0, *;q=0)', async () => {
    expect((await encodingOf('identity;q=0')).status).toBe(406);
    expect((await encodingOf('br, *;q=0')).status).toBe(406);
    expect(await encodingOf('gzip, identity;q=0')).toEqual({ status: 200, encoding: 'gzip' });
  });
});

describe('The asterisk request target (issue 38, item 16)', () => {
  it('OPTIONS * and GET * are 400, not index.html', async () => {
    for (const method of ['OPTIONS', 'GET']) {
      const answer = await rawRequest(server.url, method, '*');
      expect(answer.status, method).toBe(400);
      expect(answer.text).not.toContain('<div id="app">');
    }
  });
});

describe("Issue 44, item 10: every answer of the console's server has an Audit-Id, and its 431 is JSON like the API's", () => {
  const AUDIT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  it.each([
    ['GET', '/', {}, 200],
    ['GET', '/config.json', {}, 200],
    ['GET', '/healthz', {}, 200],
    ['GET', '/missing.js', {}, 404],
    ['POST', '/', {}, 405],
    ['GET', '//', {}, 400],
    ['GET', '/', { 'accept-encoding': 'identity;q=0, *;q=0' }, 406],
  ] as const)('%s %s (%j): %i with an Audit-Id of its own', async (method, target, headers, status) => {
    const first = await rawRequest(server.url, method, target, headers);
    const second = await rawRequest(server.url, method, target, headers);
    expect(first.status).toBe(status);
    expect(first.headers['audit-id']).toMatch(AUDIT_ID);
    expect(second.headers['audit-id']).toMatch(AUDIT_ID);
    expect(second.headers['audit-id']).not.toBe(first.headers['audit-id']);
  });

  it('the 503 while the console starts has one too', async () => {
    const starting = await bindConsoleServer(0, 'PORT', '127.0.0.1');
    try {
      const answer = await rawRequest(starting.url, 'GET', '/');
      expect(answer.status).toBe(503);
      expect(answer.headers['audit-id']).toMatch(AUDIT_ID);
    } finally {
      await starting.close();
    }
  });

  it('headers over the limit: 431 with a JSON error body and an Audit-Id, as the API answers', async () => {
    const answer = await rawRequest(server.url, 'GET', '/', { 'x-padding': 'b'.repeat(20_000) });
    expect(answer.status).toBe(431);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(answer.text)).toEqual({
      error: expect.stringContaining('request headers exceed'),
      reason: 'RequestHeaderFieldsTooLarge',
    });
    expect(answer.headers['audit-id']).toMatch(AUDIT_ID);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
  });
});

describe('Settings', () => {
  it('refuses an API origin with a path, and connect origins that are not origins', () => {
    expect(() => loadConsoleSettings({ CONSOLE_API_BASE_URL: 'https://api.example.com/v1' }, 8080)).toThrow(
      /CONSOLE_API_BASE_URL/,
    );
    expect(() =>
      loadConsoleSettings({ CONSOLE_API_BASE_URL: API, CONSOLE_CONNECT_ORIGINS: 'not a url' }, 8080),
    ).toThrow(ConfigError);
  });

  it("local mode's console port: CONSOLE_PORT, else PORT+1, else any free port when PORT is 0", () => {
    expect(loadConsoleSettings({}, 8080).localPort).toBe(8081);
    expect(loadConsoleSettings({}, 0).localPort).toBe(0);
    expect(loadConsoleSettings({ CONSOLE_PORT: '3000' }, 8080).localPort).toBe(3000);
    expect(() => loadConsoleSettings({ CONSOLE_PORT: 'x' }, 8080)).toThrow(/CONSOLE_PORT/);
    expect(() => loadConsoleSettings({}, 65_535)).toThrow(/CONSOLE_PORT/);
  });
});

describe('JavaScript under 150 KB compressed (issue 24, item 6)', () => {
  it('the gzipped size of every script of the build adds up to less than the budget', () => {
    const scripts = files().filter((entry) => entry.name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const total = scripts.reduce(
      (sum, entry) => sum + gzipSync(readFileSync(join(entry.parentPath, entry.name)), { level: 9 }).byteLength,
      0,
    );
    expect(total).toBeLessThan(JS_BUDGET_BYTES);
  });
});

describe('Issue 44, item 15: the console ships a favicon (no page asks for a /favicon.ico that is 404)', () => {
  it('index.html links an icon the server answers with an image, and /favicon.ico answers it too', async () => {
    const html = await (await fetch(`${server.url}/`)).text();
    const href = html.match(/<link rel="icon"[^>]*href="([^"]+)"/)?.[1];
    expect(href, html).toBeDefined();
    for (const url of [new URL(href!, `${server.url}/`).href, `${server.url}/favicon.ico`]) {
      const response = await fetch(url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/svg+xml');
      expect(await response.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
  });
});
