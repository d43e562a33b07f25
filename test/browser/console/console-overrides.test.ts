// Issue 45, items 3 and 5, in headless Chromium: the Project page evaluates its cron windows in the browser (the
// rules the server judges with, shared/contract/rules/) to say which is open and when the next opens; an incident
// commander approves a stage and applies a plan through a freeze with an override that asks for a reason, and the
// apply run's page shows the override; the Override control is offered only where the user's rules allow
// `override` (and `approve`), as the server's own SelfSubjectAccessReview says.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import {
  checkPage,
  expectNoPageErrors,
  grantReadOnlyInOtherProject,
  signInAsAdmin,
  signInWithOidc,
  useConsole,
} from '../../support/console-fixture.ts';

const app = await useConsole();
type Caller = 'admin' | 'oidcUser';
const as = (who: Caller) => (method: string, path: string, body?: unknown, contentType?: string) =>
  send(app.platform().gateway.url, app.platform().tokens[who], method, path, body, contentType);
const controller = (method: string, path: string, body?: unknown) =>
  send(app.platform().gateway.url, app.platform().tokens.controller, method, path, body);
const REASON = 'hotfix for incident 4711';
const FREEZE = { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' };

const setPolicy = (project: string, approvalPolicy: unknown) =>
  as('admin')('PATCH', `${API}/projects/${project}`, { spec: { approvalPolicy } }, 'application/merge-patch+json').then(
    expectStatus(200),
  );

/** A Rollout of one stage that needs an approval (no four eyes), in `project`. */
async function waitingRollout(name: string, project = TEAM_PROJECT): Promise<void> {
  await as('admin')('POST', `${API}/namespaces/${project}/rollouts`, {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Rollout',
    metadata: { name },
    spec: { revision: 'v1.0.0', stages: [{ workspace: 'prod', approval: { required: true } }] },
  }).then(expectStatus(201));
}

/** A plan run of `workspace` taken by the controller to Succeeded. */
async function succeededPlan(workspace: string): Promise<string> {
  const run = await as('admin')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
    type: 'plan',
  }).then(expectStatus(201));
  const claimed = await controller('POST', '/internal/runs/claim', { project: TEAM_PROJECT, workspace }).then(
    expectStatus(200),
  );
  await controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: claimed.lease.id, phase: 'Succeeded' }).then(
    expectStatus(200),
  );
  return run.id as string;
}

beforeAll(async () => {
  await as('admin')('POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('planned')).then(
    expectStatus(201),
  );
  await waitingRollout('frozen-release');
  await waitingRollout('approve-only-release', OTHER_PROJECT);
  // team-b: the OIDC user reads, and approves Rollouts, but may not override.
  await grantReadOnlyInOtherProject(app.platform());
  await bindRole(
    app.platform().cluster,
    OTHER_PROJECT,
    'approver',
    [{ apiGroups: [GROUP], resources: ['rollouts'], verbs: ['approve'] }],
    MAPPED_ACCOUNT,
  );
});

describe('Issue 45, item 3: the console evaluates cron windows in the browser: which is open now, when the next opens', () => {
  it('a window opening every minute for an hour is open; a window of New Year only opens next New Year', async () => {
    await setPolicy(OTHER_PROJECT, {
      windows: [
        { name: 'always', kind: 'allow', schedule: '* * * * *', duration: '1h', appliesTo: { rollouts: ['*'] } },
        { name: 'new-year', kind: 'deny', schedule: '0 0 1 1 *', duration: '1m', appliesTo: { applies: ['*'] } },
      ],
    });
    const page = await app.newPage();
    try {
      const before = Date.now();
      await signInAsAdmin(page, app.url, `#/projects/${OTHER_PROJECT}`);
      await page.getByRole('heading', { name: 'Approval windows', level: 2 }).waitFor({ timeout: 15_000 });
      const always = (await page.getByTestId('window-always').textContent()) ?? '';
      expect(always).toContain('* * * * * (UTC) for 1h');
      // Open since the latest minute's start within the hour: until that start plus an hour, a minute at most ahead.
      const until = Date.parse(/open until (\S+Z)/.exec(always)?.[1] ?? '');
      expect(until).toBeGreaterThanOrEqual(before);
      expect(until).toBeLessThanOrEqual(Date.now() + 60_000);
      const nextNewYear = `${new Date().getUTCFullYear() + 1}-01-01T00:00:00.000Z`;
      expect(await page.getByTestId('window-new-year').textContent()).toContain(`opens at ${nextNewYear}`);
      expectNoPageErrors(page);
    } finally {
      await page.close();
      await setPolicy(OTHER_PROJECT, null);
    }
  });
});

describe('Issue 45, items 3 and 5: an incident commander overrides a freeze from the console, with a reason', () => {
  let page: Page;
  beforeAll(async () => {
    await setPolicy(TEAM_PROJECT, { freeze: FREEZE });
    page = await app.newPage();
    await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}/rollouts/frozen-release`);
    await page.getByRole('heading', { name: 'Rollout frozen-release', level: 1 }).waitFor({ timeout: 15_000 });
  });
  afterAll(async () => {
    await page.close();
    await setPolicy(TEAM_PROJECT, null);
  });

  it('approve is refused in the server’s words; the override asks for a reason, then approves and records it', async () => {
    await page.getByRole('button', { name: 'Approve stage prod of Rollout frozen-release', exact: true }).click();
    const approveDialog = page.getByRole('dialog', { name: 'Approve stage prod of Rollout frozen-release?' });
    await approveDialog.getByRole('button', { name: 'Approve revision v1.0.0 for prod' }).click();
    await expect.poll(() => approveDialog.getByTestId('dialog-error').textContent()).toContain('frozen');
    await approveDialog.getByRole('button', { name: 'Cancel' }).click();

    await page
      .getByRole('button', { name: 'Override the time gates for stage prod of Rollout frozen-release' })
      .click();
    const dialog = page.getByRole('dialog', {
      name: 'Override the time gates and approve stage prod of Rollout frozen-release?',
    });
    await dialog.getByRole('button', { name: 'Override and approve prod' }).click();
    await expect.poll(() => dialog.getByTestId('dialog-error').textContent()).toContain('Give a reason');
    await checkPage(page, 'override-dialog', { screenshot: false });
    await dialog.getByLabel('Reason (recorded in the audit trail)').fill(REASON);
    await dialog.getByRole('button', { name: 'Override and approve prod' }).click();
    await page.getByText('Approved stage prod of Rollout frozen-release with an override').waitFor();
    const stored = await as('admin')('GET', `${API}/namespaces/${TEAM_PROJECT}/rollouts/frozen-release`).then(
      expectStatus(200),
    );
    expect(stored.status.stages[0].approval).toMatchObject({
      approvedBy: 'admin',
      override: { reason: REASON, overrode: 'ProjectFrozen' },
    });
    expectNoPageErrors(page);
  });

  it('a succeeded plan is applied with an override; the apply run’s page shows who overrode what, and why', async () => {
    const plan = await succeededPlan('planned');
    await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/runs/${plan}`);
    await page.getByRole('button', { name: `Override the time gates for plan run ${plan}` }).click();
    const dialog = page.getByRole('dialog', { name: `Override the time gates and apply plan run ${plan}?` });
    await dialog.getByLabel('Reason (recorded in the audit trail)').fill(REASON);
    await dialog.getByRole('button', { name: `Override and apply plan ${plan.slice(-8)}` }).click();
    await page.getByTestId('run-override').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('run-override').textContent()).toBe(`admin overrode ProjectFrozen: ${REASON}`);
    expectNoPageErrors(page);
  });
});

describe('Issue 45, item 5: Override is offered only where the rules allow `override`', () => {
  it('the OIDC user may approve in team-b but not override: Approve, no Override; the server agrees', async () => {
    const page = await app.newPage();
    try {
      await signInWithOidc(page, app.url, `#/projects/${OTHER_PROJECT}/rollouts/approve-only-release`);
      await page
        .getByRole('button', { name: 'Approve stage prod of Rollout approve-only-release', exact: true })
        .waitFor({ timeout: 15_000 });
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('button', { name: /^Override the time gates/ }).count()).toBe(0);
      const review = await as('oidcUser')('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            namespace: OTHER_PROJECT,
            verb: 'override',
            group: GROUP,
            resource: 'rollouts',
            name: 'approve-only-release',
          },
        },
      }).then(expectStatus(201));
      expect(review.status.allowed).toBe(false);
      expectNoPageErrors(page);
    } finally {
      await page.close();
    }
  });
});
