// Issue 40, item 3, in headless Chromium against the approvals API (issue 37), as the admin and as an
// OIDC user whose ServiceAccount has team-a's developer Role: stages awaiting approval on the Project
// and Rollout pages, approved with one click and a confirmation naming the revision and the stage;
// the revision's own author refused under four eyes with the server's words; a succeeded plan applied
// as reviewed, confirmed by naming the plan run, its Workspace and its message; a Rollout's gates set
// in the form; and no approve control for a user whose rules do not allow `approve` (as the
// server's own SelfSubjectAccessReview says). axe-core on the pages and dialogs.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  expectStatus,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import {
  checkPage,
  grantReadOnlyInOtherProject,
  expectNoPageErrors,
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
const namespaced = (plural: string, name = '', project = TEAM_PROJECT) =>
  `${API}/namespaces/${project}/${plural}${name ? `/${name}` : ''}`;

/** A Workspace that applies only reviewed plans (the Workspace default: no `allowApplyWithoutPlan`). */
function reviewedOnly(name: string): Record<string, unknown> {
  const object = workspaceObject(name) as { spec: Record<string, unknown> };
  const { allowApplyWithoutPlan: _direct, ...spec } = object.spec;
  return { ...object, spec };
}

/** A Rollout of `staging` (no gate) then `prod` (an approval under four eyes), written by `author`. */
async function rolloutBy(author: Caller, name: string, project = TEAM_PROJECT): Promise<void> {
  await as(author)('POST', namespaced('rollouts', '', project), {
    apiVersion: 'platform.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      revision: 'v2.4.0',
      description: 'Bump the VPC module',
      stages: [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true, distinctFromAuthor: true } }],
    },
  }).then(expectStatus(201));
}

/** A plan run of `workspace` started by the admin and taken by the controller to Succeeded. */
async function succeededPlan(workspace: string, project = TEAM_PROJECT): Promise<string> {
  const run = await as('admin')('POST', `/api/v1alpha1/projects/${project}/workspaces/${workspace}/runs`, {
    type: 'plan',
    message: `plan of ${workspace} for review`,
  }).then(expectStatus(201));
  const claimed = await controller('POST', '/internal/runs/claim', { project, workspace }).then(expectStatus(200));
  expect(claimed.run.id).toBe(run.id);
  await controller('POST', `/internal/runs/${run.id}/phase`, { leaseId: claimed.lease.id, phase: 'Succeeded' }).then(
    expectStatus(200),
  );
  return run.id as string;
}

beforeAll(async () => {
  for (const workspace of ['staging', 'prod', 'plans-admin', 'plans-oidc'])
    await as('admin')('POST', namespaced('workspaces'), reviewedOnly(workspace)).then(expectStatus(201));
  // Written by the admin: the OIDC user may approve it, the admin may not (four eyes). And the other way round.
  // One pair for each principal's test, so that each finds its stages waiting.
  for (const pair of ['1', '2']) {
    await rolloutBy('admin', `by-admin-${pair}`);
    await rolloutBy('oidcUser', `by-oidc-${pair}`);
  }
  // team-b: the OIDC user may read, never approve.
  await grantReadOnlyInOtherProject(app.platform());
  for (const workspace of ['staging', 'prod', 'shared'])
    await as('admin')('POST', namespaced('workspaces', '', OTHER_PROJECT), reviewedOnly(workspace)).then(
      expectStatus(201),
    );
  await rolloutBy('admin', 'shared-release', OTHER_PROJECT);
});

const PRINCIPALS = [
  { who: 'admin', name: 'admin', own: 'by-admin-1', others: 'by-oidc-1', signIn: signInAsAdmin },
  { who: 'oidc', name: OIDC_USERNAME, own: 'by-oidc-2', others: 'by-admin-2', signIn: signInWithOidc },
] as const;

for (const { who, name, own, others, signIn } of PRINCIPALS) {
  describe(`As ${who === 'admin' ? 'the admin' : 'an OIDC user with a namespaced Role'}`, () => {
    let page: Page;
    beforeAll(async () => {
      page = await app.newPage();
      await signIn(page, app.url, `#/projects/${TEAM_PROJECT}`);
      await page
        .getByRole('heading', { name: `Project ${TEAM_PROJECT}`, level: 1, exact: true })
        .waitFor({ timeout: 15_000 });
    });
    afterAll(() => page.close());

    it("the revision's author is refused under four eyes, in the server's words; another's revision is approved in one click", async () => {
      const awaiting = page.getByRole('region', { name: 'Awaiting approval' });
      await awaiting.getByRole('link', { name: own }).waitFor();
      // Its own revision: the dialog names what would be applied, and the server's refusal stays in it.
      await awaiting.getByRole('button', { name: `Approve stage prod of Rollout ${own}` }).click();
      const dialog = page.getByRole('dialog', { name: `Approve stage prod of Rollout ${own}?` });
      const text = await dialog.innerText();
      expect(text).toContain('Revision v2.4.0 will be applied to Workspace prod (stage 2 of 2)');
      expect(text).toContain(`Four eyes: the revision's author (${name}) may not approve it.`);
      await checkPage(page, 'approve-dialog');
      await dialog.getByRole('button', { name: 'Approve revision v2.4.0 for prod' }).click();
      await expect
        .poll(() => dialog.getByTestId('dialog-error').textContent())
        .toBe(
          `${name} changed revision "v2.4.0" and may not approve stage prod, which needs another approver (approval.distinctFromAuthor)`,
        );
      const stored = await as('admin')('GET', namespaced('rollouts', own)).then(expectStatus(200));
      expect(stored.spec.stages[1].approved).toBe(false);
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // Someone else's revision: approved.
      await awaiting.getByRole('button', { name: `Approve stage prod of Rollout ${others}` }).click();
      await page
        .getByRole('dialog', { name: `Approve stage prod of Rollout ${others}?` })
        .getByRole('button', { name: 'Approve revision v2.4.0 for prod' })
        .click();
      await expect
        .poll(() => page.getByTestId('page-notice').textContent())
        .toBe(`Approved stage prod of Rollout ${others}: revision v2.4.0.`);
      await expect.poll(() => awaiting.getByRole('link', { name: others }).count()).toBe(0);
      const approved = await as('admin')('GET', namespaced('rollouts', others)).then(expectStatus(200));
      expect(approved.spec.stages[1].approved).toBe(true);
      expect(
        approved.status.stages.find((stage: { workspace: string }) => stage.workspace === 'prod').approval,
      ).toMatchObject({ approvedBy: name, revision: 'v2.4.0' });

      // The Rollout page says who approved it; its own Rollout still waits there.
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/rollouts/${others}`);
      const prod = page.locator('tr[data-stage="prod"]');
      await expect.poll(() => prod.innerText()).toContain(`by ${name}`);
      expect(await page.locator('.facts').innerText()).toContain(who === 'admin' ? OIDC_USERNAME : 'admin');
      await checkPage(page, 'rollout-approved');
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/rollouts/${own}`);
      await page.locator('tr[data-stage="prod"]').getByText('awaiting approval').waitFor();
      expect(await page.getByRole('button', { name: `Approve stage prod of Rollout ${own}` }).count()).toBe(1);
      expectNoPageErrors(page);
    });

    it("editing an approved Rollout's revision: the review says the server withdraws the approval, and the stage waits again", async () => {
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/rollouts/${others}`);
      await page.getByRole('link', { name: 'Edit Rollout' }).click();
      await page.getByLabel(/^Revision/).fill('v2.5.0');
      await page.getByRole('button', { name: 'Review the changes to Rollout' }).click();
      const warnings = page.getByRole('list', { name: "The server's warnings" });
      expect(await warnings.innerText()).toContain(
        'Warning: spec.revision changed: the approval of stage prod was withdrawn; approve the new revision',
      );
      await page.getByRole('button', { name: `Save Rollout ${others}` }).click();
      await page.getByRole('heading', { name: `Rollout ${others}`, level: 1, exact: true }).waitFor();
      expect(await page.getByTestId('page-notice').textContent()).toContain('the approval of stage prod was withdrawn');
      await page.locator('tr[data-stage="prod"]').getByText('awaiting approval').waitFor();
      // Its writer is now the revision's author.
      expect(await page.locator('.facts').innerText()).toContain(`Revision author\n${name}`);
      expectNoPageErrors(page);
    });

    it('applies a succeeded plan as reviewed: the confirmation names the plan run, its Workspace and its message', async () => {
      const workspace = `plans-${who}`;
      const planId = await succeededPlan(workspace);
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/workspaces/${workspace}`);
      await page.getByRole('button', { name: 'Start plan' }).waitFor();
      // This Workspace applies only reviewed plans: no direct apply.
      expect(await page.getByRole('button', { name: 'Start apply' }).count()).toBe(0);
      // Issue 44, item 15: at 1280 px the runs table shows the button whole, without scrolling the table.
      expect(page.viewportSize()?.width).toBe(1280);
      const shown = await page.getByRole('button', { name: `Apply plan run ${planId}` }).evaluate((button) => {
        const table = button.closest('.table-scroll')!;
        const [box, frame] = [button.getBoundingClientRect(), table.getBoundingClientRect()];
        return { scrolls: table.scrollWidth > table.clientWidth, inside: box.right <= frame.right };
      });
      expect(shown).toEqual({ scrolls: false, inside: true });
      await page.getByRole('button', { name: `Apply plan run ${planId}` }).click();
      const dialog = page.getByRole('dialog', { name: `Apply plan run ${planId}?` });
      const text = await dialog.innerText();
      expect(text).toContain(`An apply run of Workspace ${workspace} starts from plan run ${planId}`);
      expect(text).toContain(`plan of ${workspace} for review`);
      await checkPage(page, 'apply-plan-dialog');
      await dialog.getByRole('button', { name: `Apply plan ${planId.slice(-8)} to ${workspace}` }).click();
      await page.getByRole('heading', { name: /^Run / }).waitFor();
      const applyId = new URL(page.url()).hash.split('/').pop()!;
      expect(await page.getByTestId('page-notice').textContent()).toBe(
        `Started apply run ${applyId} from plan ${planId}.`,
      );
      await page.getByRole('link', { name: `plan run ${planId}` }).waitFor();
      const applied = await as('admin')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${applyId}`).then(
        expectStatus(200),
      );
      expect(applied).toMatchObject({ type: 'apply', planRun: planId, principal: name, phase: 'Pending' });

      // A plan is applied once: its page no longer offers it, and says why (issue 44, item 15).
      await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/runs/${planId}`);
      await page.getByTestId('plan-stale').waitFor();
      expect(await page.getByTestId('plan-stale').textContent()).toBe(
        `This plan is stale: a newer apply run (${applyId}) of its Workspace exists; start a new plan.`,
      );
      expect(await page.getByRole('button', { name: `Apply plan run ${planId}` }).count()).toBe(0);
      expectNoPageErrors(page);
    });
  });
}

describe('Issue 44, item 15: "Apply plan" is not offered on a stale plan, as the server states it', () => {
  const planPage = (planId: string) => `#/projects/${TEAM_PROJECT}/runs/${planId}`;
  const applyButton = (page: Page, planId: string) => page.getByRole('button', { name: `Apply plan run ${planId}` });
  const planApproval = async (planId: string) =>
    (await as('admin')('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${planId}`).then(expectStatus(200)))
      .planApproval;

  beforeAll(async () => {
    for (const workspace of ['stale-by-age', 'superseded', 'goes-stale', 'refused-open'])
      await as('admin')('POST', namespaced('workspaces'), reviewedOnly(workspace)).then(expectStatus(201));
  });

  it('a plan older than PLAN_APPROVAL_MAX_AGE (24h): no button on its page nor in the runs table, the reason instead', async () => {
    const planId = await succeededPlan('stale-by-age');
    await app
      .platform()
      .database.pool.query("UPDATE runs SET finished_at = now() - interval '25 hours' WHERE id = $1", [planId]);
    expect(await planApproval(planId)).toMatchObject({ applyable: false, supersededBy: null });
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, planPage(planId));
    const reason = 'This plan is stale: it was planned more than 24h ago (PLAN_APPROVAL_MAX_AGE); start a new plan.';
    await page.getByTestId('plan-stale').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('plan-stale').textContent()).toBe(reason);
    expect(await applyButton(page, planId).count()).toBe(0);
    await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/workspaces/stale-by-age`);
    const row = page.locator(`tr[data-run="${planId}"]`);
    await row.getByTestId('plan-stale').waitFor();
    expect(await row.getByTestId('plan-stale').textContent()).toBe(reason);
    expect(await applyButton(page, planId).count()).toBe(0);
    await checkPage(page, 'workspace-stale-plan', { screenshot: false });
    expectNoPageErrors(page);
    await page.close();
  });

  it('a plan superseded by a newer plan: no button, the reason names the newer run', async () => {
    const planId = await succeededPlan('superseded');
    const newer = await as('admin')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/superseded/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, planPage(planId));
    await page.getByTestId('plan-stale').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('plan-stale').textContent()).toBe(
      `This plan is stale: a newer plan run (${newer.id}) of its Workspace exists; start a new plan.`,
    );
    expect(await applyButton(page, planId).count()).toBe(0);
    expectNoPageErrors(page);
    await page.close();
  });

  it('a fresh plan is offered, and on the open page stops being offered once its applyableUntil passes', async () => {
    const planId = await succeededPlan('goes-stale');
    expect(await planApproval(planId)).toMatchObject({ applyable: true, supersededBy: null });
    const page = await app.newPage();
    // The page's clock, run forward below: the plan's 24 hours pass without the test waiting them out.
    await page.clock.install();
    await signInAsAdmin(page, app.url, planPage(planId));
    await applyButton(page, planId).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('plan-stale').count()).toBe(0);
    await page.clock.fastForward('24:01:00');
    await page.getByTestId('plan-stale').waitFor();
    expect(await page.getByTestId('plan-stale').textContent()).toBe(
      'This plan is stale: it was planned more than 24h ago (PLAN_APPROVAL_MAX_AGE); start a new plan.',
    );
    expect(await applyButton(page, planId).count()).toBe(0);
    expectNoPageErrors(page);
    await page.close();
  });

  it('a plan that goes stale while its page shows the button: the server refuses, and the dialog says why', async () => {
    const planId = await succeededPlan('refused-open');
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, planPage(planId));
    await applyButton(page, planId).waitFor({ timeout: 15_000 });
    // A final run's page is not polled: it still offers the plan the server now holds stale.
    const newer = await as('admin')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/refused-open/runs`, {
      type: 'plan',
    }).then(expectStatus(201));
    await applyButton(page, planId).click();
    await page.getByRole('button', { name: `Apply plan ${planId.slice(-8)} to refused-open` }).click();
    await expect
      .poll(() => page.getByTestId('dialog-error').textContent())
      .toMatch(new RegExp(`^plan run ${planId} is stale: a newer plan run \\(${newer.id}\\)`));
    expectNoPageErrors(page);
    await page.close();
  });
});

describe("A Rollout's gates in the form (the approvals contract's fields)", () => {
  it('creates a Rollout whose second stage needs an approval under four eyes; a deprecated requireApproval reads as required', async () => {
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}/new/rollouts`);
    await page.getByLabel(/^Name/).fill('gated');
    await page.getByLabel(/^Revision/).fill('v3.0.0');
    const first = page.getByRole('group', { name: /^Stage 1/ });
    await first.getByLabel(/^Workspace/).fill('staging');
    await page.getByRole('button', { name: 'Add stage' }).click();
    const second = page.getByRole('group', { name: /^Stage 2/ });
    await second.getByLabel(/^Workspace/).fill('prod');
    await second.getByLabel(/^Four eyes/).check();
    expect(await second.getByLabel(/^Requires approval/).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Review the new Rollout' }).click();
    await page.getByRole('button', { name: 'Create Rollout gated' }).click();
    await page.getByRole('heading', { name: 'Rollout gated', level: 1, exact: true }).waitFor();
    const stored = await as('admin')('GET', namespaced('rollouts', 'gated')).then(expectStatus(200));
    expect(stored.spec.stages).toEqual([
      expect.objectContaining({ workspace: 'staging' }),
      expect.objectContaining({ workspace: 'prod', approval: { required: true, distinctFromAuthor: true } }),
    ]);
    expect(await page.locator('tr[data-stage="prod"]').innerText()).toContain('required, four eyes');

    await as('admin')('POST', namespaced('rollouts'), {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'legacy' },
      spec: { revision: 'v1', stages: [{ workspace: 'prod', requireApproval: true }] },
    }).then(expectStatus(201));
    await page.goto(`${app.url}/#/projects/${TEAM_PROJECT}/rollouts/legacy`);
    await page.locator('tr[data-stage="prod"]').getByText('awaiting approval').waitFor();
    expect(await page.locator('tr[data-stage="prod"]').innerText()).toContain('required');
    expectNoPageErrors(page);
  });
});

describe('No approve control where the rules do not allow `approve` (item 5)', () => {
  it('the OIDC user sees team-b’s waiting stage and succeeded plan, with no Approve and no Apply plan; the server agrees', async () => {
    const planId = await succeededPlan('shared', OTHER_PROJECT);
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${OTHER_PROJECT}`);
    const awaiting = page.getByRole('region', { name: 'Awaiting approval' });
    await awaiting.getByRole('link', { name: 'shared-release' }).waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await page.goto(`${app.url}/#/projects/${OTHER_PROJECT}/workspaces/shared`);
    await page.locator(`tr[data-run="${planId}"]`).getByText('Succeeded').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: /^Apply plan/ }).count()).toBe(0);
    await checkPage(page, 'workspace-no-approve', { screenshot: false });
    // The server's own review says the same for both approvals.
    for (const resourceAttributes of [
      {
        namespace: OTHER_PROJECT,
        verb: 'approve',
        group: 'platform.dev',
        resource: 'rollouts',
        name: 'shared-release',
      },
      {
        namespace: OTHER_PROJECT,
        verb: 'approve',
        group: 'platform.dev',
        resource: 'workspaces',
        subresource: 'runs',
        name: 'shared',
      },
    ]) {
      const review = await as('oidcUser')('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes },
      }).then(expectStatus(201));
      expect(review.status.allowed).toBe(false);
    }
    expectNoPageErrors(page);
  });
});

describe('Issue 45, item 3: the Project page shows the freeze, and which approval window is open and when the next opens', () => {
  it('a frozen Project with an open deny window and an allow window still to open', async () => {
    const end = new Date(Date.now() + 3_600_000).toISOString();
    const opens = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const setPolicy = (approvalPolicy: unknown) =>
      as('admin')(
        'PATCH',
        `${API}/projects/${OTHER_PROJECT}`,
        { spec: { approvalPolicy } },
        'application/merge-patch+json',
      ).then(expectStatus(200));
    await setPolicy({
      freeze: { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' },
      windows: [
        {
          name: 'maintenance',
          kind: 'deny',
          start: new Date(Date.now() - 3_600_000).toISOString(),
          end,
          appliesTo: { applies: ['*'] },
        },
        {
          name: 'release-train',
          kind: 'allow',
          start: opens,
          end: new Date(Date.now() + 3 * 3_600_000).toISOString(),
          appliesTo: { rollouts: ['*'] },
        },
        {
          name: 'office-hours',
          kind: 'allow',
          schedule: '0 9 * * 1-5',
          duration: '8h',
          timeZone: 'Europe/Berlin',
          appliesTo: { rollouts: ['web'] },
        },
      ],
    });
    const page = await app.newPage();
    try {
      await signInAsAdmin(page, app.url, `#/projects/${OTHER_PROJECT}`);
      await page.getByRole('heading', { name: 'Approval windows', level: 2 }).waitFor({ timeout: 15_000 });
      expect(await page.getByTestId('project-freeze').textContent()).toContain(
        'Frozen since 2026-12-01T00:00:00Z: incident 4711.',
      );
      expect(await page.getByTestId('window-maintenance').textContent()).toContain(`open until ${end}`);
      expect(await page.getByTestId('window-release-train').textContent()).toContain(`opens at ${opens}`);
      expect(await page.getByTestId('window-office-hours').textContent()).toContain(
        '0 9 * * 1-5 (Europe/Berlin) for 8h',
      );
      await checkPage(page, 'project-windows');
      expectNoPageErrors(page);
    } finally {
      await page.close();
      await setPolicy(null);
    }
  });
});

describe('Issue 45, item 2: the Rollout page says who still has to approve, by the server rule', () => {
  it('a stage that needs two approvers, one given: one more, and who approved so far', async () => {
    await as('admin')('POST', namespaced('rollouts'), {
      apiVersion: 'platform.dev/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'two-approvers' },
      spec: { revision: 'v3', stages: [{ workspace: 'prod', approval: { required: true, count: 2 } }] },
    }).then(expectStatus(201));
    await as('oidcUser')('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/two-approvers/approve`, {
      stage: 'prod',
    }).then(expectStatus(200));
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}/rollouts/two-approvers`);
    const row = page.locator('tr[data-stage="prod"]');
    await row.getByText('awaiting approval').waitFor({ timeout: 15_000 });
    expect(await row.innerText()).toContain(`(needs 1 more approver; approved so far by ${OIDC_USERNAME})`);
    expectNoPageErrors(page);
    await page.close();
  });
});

describe('Issue 45, items 2 and 5: the run page of a plan that needs two approvers says who still has to approve, and offers Withdraw', () => {
  const setPolicy = (approvalPolicy: unknown) =>
    as('admin')(
      'PATCH',
      `${API}/projects/${TEAM_PROJECT}`,
      { spec: { approvalPolicy } },
      'application/merge-patch+json',
    ).then(expectStatus(200));

  it('one approval given: the approval and "1 more approver"; withdrawing it, then approving from the page, as the server records', async () => {
    await as('admin')('POST', namespaced('workspaces'), reviewedOnly('plans-two')).then(expectStatus(201));
    await setPolicy({ applies: [{ workspace: 'plans-two', approvals: { count: 2 } }] });
    try {
      const planId = await succeededPlan('plans-two');
      const planPath = `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${planId}`;
      // The OIDC user's approval is the first of two: recorded, and the server answers with the plan (202).
      const recorded = await as('oidcUser')('POST', `${planPath}/apply`).then(expectStatus(202));
      expect(recorded).toMatchObject({ id: planId, planApproval: { stillNeeded: { approvers: 1, groups: [] } } });
      const approvers = async () =>
        ((await as('admin')('GET', planPath).then(expectStatus(200))).planApproval.approvals ?? []).map(
          (record: { approvedBy: string }) => record.approvedBy,
        );

      const page = await app.newPage();
      await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}/runs/${planId}`);
      const section = page.getByRole('region', { name: 'Approvals of this plan' });
      await section.locator(`tr[data-approver="${OIDC_USERNAME}"]`).waitFor({ timeout: 15_000 });
      expect(await section.getByTestId('plan-still-needed').textContent()).toBe('Still needed: 1 more approver.');
      await checkPage(page, 'plan-approvals', { screenshot: false });

      await section.getByRole('button', { name: `Withdraw the approval of ${OIDC_USERNAME}` }).click();
      const dialog = page.getByRole('dialog', {
        name: `Withdraw the approval of ${OIDC_USERNAME} from plan run ${planId}?`,
      });
      await dialog.getByRole('button', { name: `Withdraw ${OIDC_USERNAME}'s approval` }).click();
      await expect
        .poll(() => page.getByTestId('page-notice').textContent())
        .toBe(`Withdrew the approval of ${OIDC_USERNAME} from plan ${planId}. Still needed: 2 more approvers.`);
      await expect.poll(() => section.locator('tr[data-approver]').count()).toBe(0);
      expect(await approvers()).toEqual([]);

      // The admin's approval from the page is again one of two: recorded, no apply run, and the page says so.
      await page.getByRole('button', { name: `Apply plan run ${planId}` }).click();
      const apply = page.getByRole('dialog', { name: `Apply plan run ${planId}?` });
      expect(await apply.innerText()).toContain('Still needed: 2 more approvers.');
      await apply.getByRole('button', { name: `Apply plan ${planId.slice(-8)} to plans-two` }).click();
      await expect
        .poll(() => page.getByTestId('page-notice').textContent())
        .toBe(`Approval of plan ${planId} recorded. Still needed: 1 more approver.`);
      await section.locator('tr[data-approver="admin"]').waitFor();
      expect(await approvers()).toEqual(['admin']);
      expect(new URL(page.url()).hash).toBe(`#/projects/${TEAM_PROJECT}/runs/${planId}`);
      expectNoPageErrors(page);
      await page.close();
    } finally {
      await setPolicy(null);
    }
  });
});
