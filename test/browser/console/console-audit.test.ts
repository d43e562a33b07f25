// Issue 40, item 4, in headless Chromium: the audit trail page, for the admin and for an OIDC user
// whose ServiceAccount is granted `list` on `events` in `audit.k8s.io` by a ClusterRole (as
// docs/audit.md tells a platform team to): filtered by user, outcome, time and run, in pages, each
// event linking to its object and its run; axe-core on the page. (A user without that grant sees no
// link and reads the API's refusal: console-edits.test.ts.)
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import {
  API,
  MAPPED_ACCOUNT,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  expectStatus,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import {
  checkPage,
  expectNoPageErrors,
  signInAsAdmin,
  signInWithOidc,
  useConsole,
} from '../../support/console-fixture.ts';

const app = await useConsole();
const WORKSPACE = 'audited';
let runId = '';

const as = (who: 'admin' | 'oidcUser') => (method: string, path: string, body?: unknown, contentType?: string) =>
  send(app.platform().gateway.url, app.platform().tokens[who], method, path, body, contentType);

beforeAll(async () => {
  // The platform team lets the OIDC user's ServiceAccount read the trail (docs/audit.md, "Who may read it").
  const rbac = app.platform().cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'platform-audit-reader' },
      rules: [{ apiGroups: ['audit.k8s.io'], resources: ['events'], verbs: ['list'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'platform-audit-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'platform-audit-reader' },
      subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: MAPPED_ACCOUNT }],
    },
  });
  // What the trail will hold: the admin creates a Workspace and starts a run; the OIDC user changes the
  // Workspace, and is refused a write in a Project it may not write to.
  await as('admin')('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject(WORKSPACE)).then(
    expectStatus(201),
  );
  runId = (
    await as('admin')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${WORKSPACE}/runs`, {
      type: 'plan',
    }).then(expectStatus(201))
  ).id;
  await as('oidcUser')(
    'PATCH',
    `${API}/namespaces/${TEAM_PROJECT}/workspaces/${WORKSPACE}`,
    { spec: { description: 'audited change' } },
    'application/merge-patch+json',
  ).then(expectStatus(200));
  await as('oidcUser')('POST', `${API}/namespaces/${OTHER_PROJECT}/workspaces`, workspaceObject('refused')).then(
    expectStatus(403),
  );
  // Events reach the database in batches, at most a second late.
  for (let waited = 0; ; waited += 250) {
    const mine = await as('admin')('GET', `/api/v1alpha1/audit/events?user=${encodeURIComponent(OIDC_USERNAME)}`).then(
      expectStatus(200),
    );
    if (mine.items.length >= 2) break;
    if (waited > 10_000) throw new Error('the audit events did not reach the database in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
});

const PRINCIPALS = [
  { who: 'the admin', signIn: (page: Page) => signInAsAdmin(page, app.url, '#/projects') },
  {
    who: 'an OIDC user granted list on events.audit.k8s.io',
    signIn: (page: Page) => signInWithOidc(page, app.url, '#/projects'),
  },
] as const;

const rows = (page: Page) => page.locator('table.audit tbody tr');

for (const { who, signIn } of PRINCIPALS) {
  describe(`The audit trail, read by ${who}`, () => {
    let page: Page;
    beforeAll(async () => {
      page = await app.newPage();
      await signIn(page);
      await page.getByRole('heading', { name: 'Projects', level: 1, exact: true }).waitFor({ timeout: 15_000 });
    });
    afterAll(() => page.close());

    it('filters by user and outcome, each event linking to its object', async () => {
      await page.getByRole('link', { name: 'Audit trail' }).click();
      await page.getByRole('heading', { name: 'Audit trail', level: 1, exact: true }).waitFor();
      await page.getByLabel('User').fill(OIDC_USERNAME);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => new URL(page.url()).hash).toBe(`#/audit?user=${encodeURIComponent(OIDC_USERNAME)}`);
      await expect.poll(() => rows(page).count()).toBeGreaterThanOrEqual(2);
      for (const text of await rows(page).allInnerTexts()) expect(text).toContain(OIDC_USERNAME);
      const patch = rows(page).filter({ hasText: 'patch' }).first();
      expect(await patch.innerText()).toContain(`as system:serviceaccount:${TEST_NAMESPACE}:${MAPPED_ACCOUNT}`);
      await checkPage(page, 'audit-filtered');

      await page.getByLabel('Outcome').selectOption('refused');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => new URL(page.url()).hash).toContain('outcome=refused');
      // Only refusals (the OIDC user's own console asked for lists it may not read, too), the write in team-b among them.
      await expect
        .poll(async () => {
          const texts = await rows(page).allInnerTexts();
          return {
            allRefused: texts.length > 0 && texts.every((text) => /\b403\b.*\(forbidden\)/.test(text)),
            writesInTeamB: texts.filter((text) => /create\s+workspaces in team-b/.test(text)).length,
          };
        })
        .toEqual({ allRefused: true, writesInTeamB: 1 });

      // The changed object's page, from its event.
      await page.getByLabel('Outcome').selectOption('');
      await page.getByLabel('Verb').fill('patch');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect.poll(() => rows(page).count()).toBe(1);
      await rows(page)
        .getByRole('link', { name: `workspaces ${WORKSPACE}` })
        .click();
      await page.getByRole('heading', { name: `Workspace ${WORKSPACE}`, level: 1, exact: true }).waitFor();
      expectNoPageErrors(page);
    });

    it("a run's page links to its events, and they link back to the run", async () => {
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/runs/${runId}`);
      await page.getByRole('link', { name: 'Audit trail of this run' }).click();
      await expect.poll(() => rows(page).count()).toBeGreaterThanOrEqual(1);
      expect(await page.getByLabel('Run', { exact: true }).inputValue()).toBe(runId);
      const started = rows(page).filter({ hasText: 'create' }).first();
      expect(await started.innerText()).toContain(`workspaces/runs ${WORKSPACE}`);
      await started.getByRole('link', { name: runId.slice(-8), exact: true }).click();
      await page.getByRole('heading', { name: `Run ${runId}`, level: 1, exact: true }).waitFor();
      expectNoPageErrors(page);
    });

    it('pages with continue tokens, and a time filter with no events says so', async () => {
      await page.goto(`${app.url}/#/audit?user=admin&limit=2`);
      await expect.poll(() => rows(page).count()).toBe(2);
      const first = await rows(page).allInnerTexts();
      await page.getByRole('link', { name: 'Next page' }).click();
      expect(new URL(page.url()).hash).toContain('continue=');
      // The second page has a way back to the first, and two other events.
      await page.getByRole('link', { name: 'First page' }).waitFor();
      await expect.poll(() => rows(page).count()).toBe(2);
      const second = await rows(page).allInnerTexts();
      expect(second).not.toEqual(first);
      await page.getByRole('link', { name: 'First page' }).click();
      await page.getByRole('link', { name: 'First page' }).waitFor({ state: 'detached' });
      await expect.poll(() => rows(page).allInnerTexts()).toEqual(first);

      await page.getByLabel('Since').fill('2099-01-01T00:00');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No events match these filters.').waitFor();
      expect(new URL(page.url()).hash).toMatch(/since=2099-01-0[12]T/);
      expectNoPageErrors(page);
    });
  });
}
