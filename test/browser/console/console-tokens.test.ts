// Issue 46, item 5, in headless Chromium: a Project's Tokens page. The admin creates a token and is
// shown its value once, in a dialog it can be copied from, and never again; the list shows who made it
// and its last use; Revoke, after a confirmation naming the token, ends it at once. An OIDC user whose
// role only lets it list tokens sees the list and no action; in a Project where it may not list them it
// reads the API's refusal. axe-core on the page and the dialog.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage,
  expectNoPageErrors,
  signInAsAdmin,
  signInWithOidc,
  useConsole,
} from '../../support/console-fixture.ts';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const app = await useConsole();
const WORKSPACES = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

const withToken = (token: string, method: string, path: string, body?: unknown) =>
  send(app.platform().gateway.url, token, method, path, body).then((response) => response.status);
const tokenRow = (page: Page, name: string) => page.locator('table.tokens tbody tr').filter({ hasText: name });

beforeAll(async () => {
  // The OIDC user's ServiceAccount may list the team's tokens, and nothing more with them.
  await bindRole(
    app.platform().cluster,
    TEAM_PROJECT,
    'token-reader',
    [{ apiGroups: [GROUP], resources: ['tokens'], verbs: ['list'] }],
    MAPPED_ACCOUNT,
  );
});

describe("Issue 46, item 5: the console's Tokens page, for the admin", () => {
  let page: Page;
  let value = '';
  beforeAll(async () => {
    page = await app.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}`);
  });
  afterAll(() => page.close());

  it('creates a token whose value is shown once, in a dialog it is copied from, and works for what its role allows', async () => {
    await page.getByRole('link', { name: 'Tokens for automation' }).click();
    await page.getByRole('heading', { name: `Tokens of Project ${TEAM_PROJECT}`, level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('pipeline');
    await page.getByLabel('Description').fill('deploys the team');
    await page.getByLabel('Role kind').selectOption('Role');
    await page.getByLabel('Role name').fill('ci');
    await page.getByLabel('Lifetime').fill('24h');
    await page.getByRole('button', { name: 'Create token' }).click();

    const dialog = page.getByRole('dialog', { name: 'Token pipeline created' });
    await dialog.waitFor();
    value = await dialog.getByLabel('Token').inputValue();
    expect(value).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await dialog.getByRole('button', { name: 'Copy token' }).click();
    await dialog.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    await checkPage(page, 'tokens-created', { screenshot: false });

    // The value is the credential: its role (ci) lets it read Workspaces, not write them.
    expect(await withToken(value, 'GET', WORKSPACES)).toBe(200);
    expect(await withToken(value, 'POST', WORKSPACES, workspaceObject('by-token'))).toBe(403);
  });

  it('forgets the value when the dialog closes: neither the page nor the browser storage holds it', async () => {
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.getByTestId('page-notice').getByText('Created token pipeline.').waitFor();
    expect(await page.content()).not.toContain(value);
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(value);
  });

  it('lists the token with its role, creator and last use (time and client address)', async () => {
    await expect
      .poll(
        async () => {
          await page.reload();
          await tokenRow(page, 'pipeline').waitFor();
          return tokenRow(page, 'pipeline').innerText();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toContain('from 127.0.0.1');
    const row = await tokenRow(page, 'pipeline').innerText();
    expect(row).toContain('deploys the team');
    expect(row).toContain('Role/ci');
    expect(row).toContain('admin');
    expect(await page.content()).not.toContain(value);
    await checkPage(page, 'tokens');
  });

  it('revokes the token after a confirmation naming it: it is refused at once and leaves the list', async () => {
    await page.getByRole('button', { name: 'Revoke token pipeline' }).click();
    await page
      .getByRole('dialog', { name: 'Revoke token pipeline?' })
      .getByRole('button', { name: 'Revoke token pipeline' })
      .click();
    await page.getByTestId('page-notice').getByText('Revoked token pipeline.').waitFor();
    await expect.poll(() => tokenRow(page, 'pipeline').count()).toBe(0);
    expect(await withToken(value, 'GET', WORKSPACES)).toBe(401);
    expectNoPageErrors(page);
  });
});

describe("Issue 46, item 5: the console's Tokens page offers only what the server would allow", () => {
  let page: Page;
  beforeAll(async () => {
    // A token for the list to show: made by the admin through the API.
    const created = await send(
      app.platform().gateway.url,
      app.platform().tokens.admin,
      'POST',
      `/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`,
      {
        name: 'nightly',
        role: { kind: 'Role', name: 'ci' },
        lifetime: '1h',
      },
    );
    expect(created.status).toBe(201);
    page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${TEAM_PROJECT}`);
  });
  afterAll(() => page.close());

  it('an OIDC user who may list tokens sees them, with no Create and no Revoke', async () => {
    await page.getByRole('link', { name: 'Tokens for automation' }).click();
    await tokenRow(page, 'nightly').waitFor();
    // Every access review the page asked has been answered.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'New token' }).count()).toBe(0);
    await checkPage(page, 'tokens-read-only', { screenshot: false });
  });

  it('in a Project where it may not list tokens, it reads the refusal and is offered nothing', async () => {
    await page.goto(`${app.url}/#/projects/${OTHER_PROJECT}/tokens`);
    await page
      .getByRole('alert')
      .filter({ hasText: /forbidden|may not|cannot/i })
      .waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0);
    expectNoPageErrors(page);
  });
});
