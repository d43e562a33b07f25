import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer } from '../../../knative/node-http/running-server.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import { REPO_ROOT, startTestGateway } from '../../support/function-servers.ts';

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
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
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
    expect(await page.locator('details.operation').count()).toBeGreaterThanOrEqual(routeTable('platform.dev').length);
    expect(requested.every((url) => url.startsWith(gateway.url))).toBe(true);
    const screenshot = join(mkdtempSync(join(tmpdir(), 'docs-')), 'docs.png');
    expect((await page.screenshot({ path: screenshot, fullPage: true })).byteLength).toBeGreaterThan(10_000);
  });

  it('has a table of contents that lists every operation and navigates to it', async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    // Every operation and schema folded: the page is a few screens long, not the 19,000 px it was.
    expect(await page.evaluate(() => document.body.scrollHeight)).toBeLessThan(6_000);
    const operations = await page.locator('details.operation').count();
    expect(await page.locator('nav a[href^="#"]').count()).toBeGreaterThan(operations);
    await page.click('nav a[href="#createWorkspace"]');
    expect(new URL(page.url()).hash).toBe('#createWorkspace');
    // The link unfolds the operation it points at, and scrolls it into view.
    expect(
      await page
        .locator('details[data-operation="createWorkspace"]')
        .evaluate((element) => (element as HTMLDetailsElement).open),
    ).toBe(true);
    const top = await page.locator('#createWorkspace').evaluate((element) => element.getBoundingClientRect().top);
    expect(top).toBeGreaterThanOrEqual(0);
    expect(top).toBeLessThan(await page.evaluate(() => window.innerHeight));
    await page.click('nav a[href="#schema-Rollout"]');
    expect(await page.locator('#schema-Rollout').innerText()).toContain('stages');
  });

  it("shows a route's request schema and the schema of each answer, down to the CRD's fields", async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.locator('details[data-operation="createWorkspace"] summary').click();
    const operation = page.locator('#createWorkspace');
    const text = await operation.innerText();
    expect(text).toContain('Request body');
    expect(text).toMatch(/201\s+Success/);
    expect(await operation.locator('.answer[data-status="422"] a[href="#schema-Status"]').count()).toBe(1);
    await operation.locator('a[href="#schema-Workspace"]').first().click();
    const schema = await page.locator('#schema-Workspace').innerText();
    for (const field of ['apiVersion', 'metadata', 'spec', 'source', 'repository', 'status'])
      expect(schema).toContain(field);
    await page.locator('details[data-operation="listWorkspaceRuns"] summary').click();
    expect(await page.locator('#listWorkspaceRuns').innerText()).toContain('continue');
  });

  it('lists only the answers a route can give: no body errors on a read, no 401 on an open route', async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    const statuses = (id: string) =>
      page
        .locator(`#${id} .answer`)
        .evaluateAll((answers) => answers.map((answer) => answer.getAttribute('data-status')));
    // 400 and 504 on every route: a malformed `timeout`, and one that passed (issue 38).
    expect(await statuses('getWorkspace')).toEqual(['200', '400', '401', '403', '404', '503', '504']);
    expect(await page.locator('#getWorkspace .answer[data-status="400"]').innerText()).not.toContain('JSON');
    expect(await statuses('getHealth')).toEqual(['200', '400', '504']);
    expect(await statuses('whoAmI')).toEqual(['200', '400', '401', '503', '504']);
    expect(await statuses('createWorkspace')).toEqual(
      expect.arrayContaining(['201', '400', '409', '413', '415', '422']),
    );
  });

  it('links to /openapi.json, which is served alongside', async () => {
    const page = await newPage();
    await page.goto(`${gateway.url}/docs`);
    await page.click('a[href="/openapi.json"]');
    expect(JSON.parse(await page.locator('body').innerText()).openapi).toBe('3.1.0');
  });
});
