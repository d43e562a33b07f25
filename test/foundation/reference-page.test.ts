import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer } from '../../shared/server/running-server.ts';
import { routeTable } from '../../shared/routes/route-table.ts';
import { startTestGateway } from '../support/function-servers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('GET /docs: a readable reference page served from local files, no CDN', () => {
  let gateway: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    gateway = await startTestGateway({});
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway.close();
  });

  it('renders every route in a headless browser without fetching anything from elsewhere', async () => {
    const page = await browser.newPage();
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
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.click('a[href="/openapi.json"]');
    expect(JSON.parse(await page.locator('body').innerText()).openapi).toBe('3.1.0');
  });
});
