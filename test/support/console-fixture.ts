// The console (issue 24) in a real browser: the platform of test/support/platform-fixture.ts (emulator,
// embedded PostgreSQL, a real OpenID Provider, the local gateway) with the console's static server
// serving the build the global setup made, on its own origin, which the API allows by CORS and the
// OpenID Provider knows as the console's redirect URI. One browser per test file.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { bindConsoleServer, type RunningConsole } from '../../knative/console-server/console-server.ts';
import { ADMIN_PASSWORD } from './admin-fixtures.ts';
import { REPO_ROOT } from './function-servers.ts';
import { launchChromium } from './headless-chromium.ts';
import {
  GROUP,
  MAPPED_ACCOUNT,
  OIDC_USER,
  OTHER_PROJECT,
  bindRole,
  usePlatform,
  type Platform,
} from './platform-fixture.ts';

export interface ConsoleFixture {
  platform: () => Platform;
  /** The console's origin (http://127.0.0.1:<port>). */
  url: string;
  /** A new page of its own context (own sessionStorage) at `width` × 800; every CSP violation and page error fails `expectNoPageErrors`. */
  newPage(width?: number): Promise<Page>;
}

/** What the console's pages reported that should never happen: CSP refusals, uncaught errors. */
const pageErrors = new WeakMap<Page, string[]>();

/** `options.tls`: the API serves HTTPS with a generated certificate, which the browser accepts (kubectl sends a token only over HTTPS). */
export async function useConsole(
  serverEnv: Record<string, string> = {},
  options: { tls?: boolean } = {},
): Promise<ConsoleFixture> {
  // Bound now and held, since the platform below must know the console's origin: a port only picked
  // here could be taken by another test file's server before beforeAll listened on it.
  const bound = await bindConsoleServer(0, 'PORT', '127.0.0.1');
  const { url } = bound;
  const platform = usePlatform(
    { CORS_ALLOWED_ORIGINS: url, ...serverEnv },
    { oidcRedirectUris: [`${url}/`], tls: options.tls ?? false },
  );
  let server: RunningConsole | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    bound.serve({
      apiBaseUrl: platform().gateway.url,
      connectOrigins: [platform().oidcIssuer],
      assetsDir: inject('consoleDir'),
    });
    server = bound;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    platform,
    url,
    async newPage(width = 1280) {
      const context = await browser!.newContext({
        viewport: { width, height: 800 },
        ignoreHTTPSErrors: options.tls ?? false,
      });
      const page = await context.newPage();
      const errors: string[] = [];
      pageErrors.set(page, errors);
      page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) errors.push(`CSP: ${message.text()}`);
      });
      return page;
    },
  };
}

/** No CSP refusal and no uncaught error on the page so far. */
export function expectNoPageErrors(page: Page): void {
  expect(pageErrors.get(page) ?? []).toEqual([]);
}

/** Opens the console at `hash`, is shown sign-in, and signs in with the admin password. */
export async function signInAsAdmin(page: Page, consoleUrl: string, hash = '#/projects'): Promise<void> {
  await page.goto(`${consoleUrl}/${hash}`);
  await submitPassword(page, ADMIN_PASSWORD);
}

/** The OIDC user may read OTHER_PROJECT's Workspaces, runs and Rollouts and list its VariableSets, and do nothing more there. */
export function grantReadOnlyInOtherProject(platform: Platform): Promise<void> {
  return bindRole(
    platform.cluster,
    OTHER_PROJECT,
    'reader',
    [
      { apiGroups: [GROUP], resources: ['workspaces', 'workspaces/runs', 'rollouts'], verbs: ['get', 'list'] },
      { apiGroups: [GROUP], resources: ['variablesets'], verbs: ['list'] },
    ],
    MAPPED_ACCOUNT,
  );
}

/** Opens the console at `hash` and signs the OIDC user in through the provider's own pages, as a person would. */
export async function signInWithOidc(page: Page, consoleUrl: string, hash: string): Promise<void> {
  await page.goto(`${consoleUrl}/${hash}`);
  await page.getByRole('button', { name: /^Sign in with / }).click();
  await page.locator('input[name="login"]').fill(OIDC_USER.sub);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  await page.locator('button[type="submit"]').click();
}

export async function submitPassword(page: Page, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in as admin' }).click();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations of the page as it is. Evaluated through the DevTools
 * protocol, not as an inline script, which the console's CSP rightly refuses.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.join(', ')}`);
}

/** Whether this run writes the pictures of docs/console.md (`npm run docs:console-screenshots`). */
export const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

/**
 * The page as it is holds up (issue 24 item 6, issue 40 item 6): no serious or critical axe-core
 * violation, nothing scrolls sideways, no CSP refusal or page error; with CONSOLE_SCREENSHOTS=1 it is
 * written to docs/console/<name>-<width>.png (unless `screenshot: false`: a state docs/console.md does not show).
 */
export async function checkPage(page: Page, name: string, options: { screenshot?: boolean } = {}): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  await page.waitForLoadState('networkidle');
  expect(await seriousAccessibilityViolations(page), `${name} at ${width} px`).toEqual([]);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
  // An open dialog is a box of its own: its text wraps inside it (a table cell around it must not stop that).
  const dialogOverflow = await page.evaluate(() =>
    [...document.querySelectorAll('dialog[open]')].map((dialog) => dialog.scrollWidth - dialog.clientWidth),
  );
  for (const clipped of dialogOverflow)
    expect(clipped, `a dialog of ${name} at ${width} px is cut off`).toBeLessThanOrEqual(0);
  if (SCREENSHOTS && options.screenshot !== false) {
    mkdirSync(join(REPO_ROOT, 'docs/console'), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, `docs/console/${name}-${width}.png`), fullPage: true });
  }
  expectNoPageErrors(page);
}
