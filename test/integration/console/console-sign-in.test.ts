import { describe, expect, it } from 'vitest';
import { OTHER_SIGNING_KEY } from '../../support/admin-fixtures.ts';
import { mountedAdminSecret } from '../../support/mounted-admin-secret.ts';
import {
  OIDC_USER,
  OIDC_USERNAME,
  TEAM_PROJECT,
  API,
  expectStatus,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { heldRuns } from '../../support/held-runs.ts';
import { expectNoPageErrors, signInAsAdmin, submitPassword, useConsole } from '../../support/console-fixture.ts';

const adminSecret = await mountedAdminSecret('console-sign-in-secret-');
const POLL_MS = 200;
/** Changes the admin settings and waits until the server has read them. */
async function changeAdminSecret(overrides: Record<string, string>): Promise<void> {
  await adminSecret.write(overrides);
  await new Promise((resolve) => setTimeout(resolve, POLL_MS * 5));
}

const app = await useConsole({
  ADMIN_SECRET_SOURCE: `file:${adminSecret.folder}`,
  ADMIN_SECRET_POLL_INTERVAL: `${POLL_MS}ms`,
});
const WORKSPACE = 'sign-in-network';
const workspaceHash = `#/projects/${TEAM_PROJECT}/workspaces/${WORKSPACE}`;
const held = heldRuns(app.platform, 'sign-in-log');

describe('Admin sign-in: the password form, and the refusals told apart as the API tells them apart', () => {
  it('a wrong password says so, and nothing is signed in', async () => {
    const page = await app.newPage();
    await page.goto(`${app.url}/`);
    await submitPassword(page, 'not the password');
    await expect.poll(() => page.getByTestId('sign-in-error').textContent()).toBe('Wrong password.');
    expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
    expectNoPageErrors(page);
  });

  it('the right password signs in: the projects list, the token in sessionStorage and never in localStorage', async () => {
    await send(
      app.platform().gateway.url,
      app.platform().tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject(WORKSPACE),
    ).then(expectStatus(201));
    const page = await app.newPage();
    await signInAsAdmin(page, app.url);
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await page.getByRole('link', { name: TEAM_PROJECT }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toMatch(/^ey/);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await page.getByRole('link', { name: 'Who am I' }).click();
    await expect.poll(() => page.getByTestId('principal-type').textContent()).toContain('admin');
    // Sign-out forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
    expectNoPageErrors(page);
  });

  it('a disabled admin account says so, not "wrong password"', async () => {
    const page = await app.newPage();
    await page.goto(`${app.url}/`);
    await page.getByLabel('Password').waitFor();
    await changeAdminSecret({ ADMIN_ACCOUNT_ENABLED: 'false' });
    try {
      await submitPassword(page, 'correct horse battery staple');
      await expect.poll(() => page.getByTestId('sign-in-error').textContent()).toBe('The admin account is disabled.');
      // A console opened now offers no password form at all (public-config says the account is off).
      const fresh = await app.newPage();
      await fresh.goto(`${app.url}/`);
      await fresh.getByRole('button', { name: /^Sign in with / }).waitFor();
      expect(await fresh.getByLabel('Password').count()).toBe(0);
    } finally {
      await changeAdminSecret({});
    }
  });
});

describe('OIDC sign-in: Authorization Code with PKCE as a public client, the ID token as the bearer token', () => {
  it('"Sign in with <provider>" goes to the provider, comes back with a code, and the API knows the user', async () => {
    const page = await app.newPage();
    const authorize: URL[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${app.platform().oidcIssuer}/auth`)) authorize.push(new URL(request.url()));
    });
    await page.goto(`${app.url}/#/whoami`);
    await page.getByRole('button', { name: `Sign in with ${new URL(app.platform().oidcIssuer).host}` }).click();
    // oidc-provider's own login and consent pages.
    await page.locator('input[name="login"]').fill(OIDC_USER.sub);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await expect.poll(() => page.getByTestId('principal-type').textContent(), { timeout: 15_000 }).toContain('oidc');
    expect(await page.getByTestId('principal-name').textContent()).toBe(OIDC_USERNAME);
    // Back where the user was going, the code gone from the address bar.
    expect(new URL(page.url()).hash).toBe('#/whoami');
    expect(new URL(page.url()).search).toBe('');
    const request = authorize[0]!;
    expect(request.searchParams.get('code_challenge_method')).toBe('S256');
    expect(request.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.searchParams.get('redirect_uri')).toBe(`${app.url}/`);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expectNoPageErrors(page);
  });
});

describe('OIDC sign-in refused at the provider', () => {
  it('the redirect back with an error shows the sign-in page saying so, the code parameters gone', async () => {
    const page = await app.newPage();
    let state = '';
    page.on('request', (request) => {
      if (request.url().startsWith(`${app.platform().oidcIssuer}/auth`))
        state = new URL(request.url()).searchParams.get('state') ?? '';
    });
    await page.goto(`${app.url}/`);
    await page.getByRole('button', { name: /^Sign in with / }).click();
    await page.locator('input[name="login"]').waitFor();
    // What the provider sends back when the user refuses: the error, the state the console sent, its issuer (RFC 9207).
    const issuer = encodeURIComponent(app.platform().oidcIssuer);
    await page.goto(`${app.url}/?error=access_denied&state=${state}&iss=${issuer}`);
    const reason = page.getByTestId('sign-in-reason');
    await reason.waitFor();
    expect(await reason.textContent()).toMatch(/^Sign-in with the provider failed: .*access_denied/);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
    expectNoPageErrors(page);
  });
});

describe('Any 401 sends the user to sign-in with the reason, and back to where they were after', () => {
  it('a token that expires while the page is open (short ADMIN_ACCOUNT_TOKEN_TTL)', async () => {
    await changeAdminSecret({ ADMIN_ACCOUNT_TOKEN_TTL: '3s' });
    const page = await app.newPage();
    try {
      await signInAsAdmin(page, app.url, workspaceHash);
      await page.getByRole('heading', { name: `Workspace ${WORKSPACE}` }).waitFor();
    } finally {
      await changeAdminSecret({});
    }
    // The runs list polls: the first poll after exp is refused, and the page says why.
    const reason = page.getByTestId('sign-in-reason');
    await reason.waitFor({ timeout: 15_000 });
    expect(await reason.textContent()).toMatch(/expired/i);
    expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
    await submitPassword(page, 'correct horse battery staple');
    await page.getByRole('heading', { name: `Workspace ${WORKSPACE}` }).waitFor();
    expect(new URL(page.url()).hash).toBe(workspaceHash);
    expectNoPageErrors(page);
  });

  it("on a run's page (its log streaming), an expiring token does the same and the user comes back to the run", async () => {
    const runId = await held.runningRun(['streaming before expiry']);
    const runHash = `#/projects/${TEAM_PROJECT}/runs/${runId}`;
    await changeAdminSecret({ ADMIN_ACCOUNT_TOKEN_TTL: '3s' });
    const page = await app.newPage();
    try {
      await signInAsAdmin(page, app.url, runHash);
      await expect
        .poll(() => page.locator('.run-log__line .run-log__text').allTextContents())
        .toEqual(['streaming before expiry']);
    } finally {
      await changeAdminSecret({});
    }
    const reason = page.getByTestId('sign-in-reason');
    await reason.waitFor({ timeout: 15_000 });
    expect(await reason.textContent()).toMatch(/expired/i);
    await submitPassword(page, 'correct horse battery staple');
    await page.getByTestId('run-phase').waitFor();
    expect(new URL(page.url()).hash).toBe(runHash);
    expectNoPageErrors(page);
  });

  it('a rotated signing key does the same', async () => {
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, workspaceHash);
    await page.getByRole('heading', { name: `Workspace ${WORKSPACE}` }).waitFor();
    await changeAdminSecret({ ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: OTHER_SIGNING_KEY });
    const reason = page.getByTestId('sign-in-reason');
    await reason.waitFor({ timeout: 15_000 });
    expect(await reason.textContent()).toMatch(/signature|rotated/i);
    await submitPassword(page, 'correct horse battery staple');
    await page.getByRole('heading', { name: `Workspace ${WORKSPACE}` }).waitFor();
    expectNoPageErrors(page);
  });
});

// Last in this file: it throttles this test's client address for the throttle's window.
describe('Throttled sign-in: 429 shown with the wait from Retry-After', () => {
  it('after repeated wrong passwords the form says how long to wait', async () => {
    const page = await app.newPage();
    await page.goto(`${app.url}/`);
    const error = page.getByTestId('sign-in-error');
    let message = '';
    for (let attempt = 0; attempt < 8 && !message.startsWith('Too many'); attempt++) {
      await submitPassword(page, `wrong ${attempt}`);
      // Each answer replaces the message (Wrong password. until the throttle answers 429).
      await error.waitFor();
      await page.waitForFunction(() => !document.querySelector('button[type="submit"]')?.hasAttribute('disabled'));
      message = (await error.textContent()) ?? '';
    }
    expect(message).toMatch(/^Too many sign-in attempts: try again in \d+ s\.$/);
    expectNoPageErrors(page);
  });
});
