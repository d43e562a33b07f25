import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer } from '../../shared/server/running-server.ts';
import { routeTable } from '../../shared/routes/route-table.ts';
import { REPO_ROOT, startTestGateway } from '../support/function-servers.ts';

/** The Chromium unpacked by infra/tools/install-tools.sh (npm test's pretest), unless CHROMIUM_PATH names another. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? join(REPO_ROOT, '.tools/bin/chromium');

describe('GET /docs: a readable reference page served from local files, no CDN', () => {
  let gateway: RunningServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    gateway = await startTestGateway({});
    if (!existsSync(CHROMIUM)) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway.close();
  });
  /** A new page; without a browser every test fails naming the cause, rather than being skipped. */
  async function newPage(): Promise<Page> {
    if (!browser) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: run \`bash infra/tools/install-tools.sh\` (it unpacks Debian's chromium into .tools/ ` +
          'and needs apt-get, dpkg and a reachable Debian mirror; its message says what failed) or set CHROMIUM_PATH',
      );
    }
    return browser.newPage();
  }

  it('renders every route in a headless browser without fetching anything from elsewhere', async () => {
    const page = await newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const response = await page.goto(`${gateway.url}/docs`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Platform API reference');
    const text = await page.locator('body').innerText();
    for (const route of routeTable('platform.dev')) expect(text).toContain(route.path.replace(/\/\*$/, '/{path}'));
    expect(await page.locator('section').count()).toBeGreaterThanOrEqual(routeTable('platform.dev').length);
    expect(requested.every((url) => url.startsWith(gateway.url))).toBe(true);
    const screenshot = join(mkdtempSync(join(tmpdir(), 'docs-')), 'docs.png');
    expect((await page.screenshot({ path: screenshot, fullPage: true })).byteLength).toBeGreaterThan(10_000);
  });

  it('links to /openapi.json, which is served alongside', async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.click('a[href="/openapi.json"]');
    expect(JSON.parse(await page.locator('body').innerText()).openapi).toBe('3.1.0');
  });
});
