// Issue 48, item 1 in the console: a succeeded plan whose mandatory post_plan run task failed shows the result under
// its stage, and "Apply plan" is disabled with the server's reason (`planApproval.blockedBy.message`); the
// override of the tasks (the OIDC user's Role in team-a grants `override` and `approve` on `workspaces/runs`) makes
// it applyable. In headless Chromium, signed in as the OIDC user.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEAM_PROJECT, expectStatus, send } from '../../support/platform-fixture.ts';
import { expectNoPageErrors, signInWithOidc, useConsole } from '../../support/console-fixture.ts';
import { postPlanRuns } from '../../support/post-plan-runs.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import { type RunTaskServer, startRunTaskServer } from '../../support/run-task-server.ts';

const app = await useConsole(ENGINE_DELIVERY_ENV);
let taskServer: RunTaskServer;
const delivered = useEngineDelivery(app.platform, () => taskServer.received);
const plans = postPlanRuns(app.platform, () => taskServer.url, 'console-post-plan');
const asAdmin = (method: string, path: string) =>
  send(app.platform().gateway.url, app.platform().tokens.admin, method, path);
let plan: string;
let task: string;

beforeAll(async () => {
  taskServer = await startRunTaskServer(undefined, () => app.platform().gateway.url);
  const checked = await plans.workspaceWithPostPlanTask('mandatory');
  task = checked.task;
  taskServer.verdicts.set(checked.workspace, { status: 'failed', message: 'cost rises by 40 %' });
  plan = (await plans.succeededPlan(checked.workspace)).id;
  await delivered(plan);
  await vi.waitFor(
    async () => {
      const run = await asAdmin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${plan}`).then(expectStatus(200));
      expect(run.planApproval.blockedBy).toMatchObject({ reason: 'RunTaskFailed' });
    },
    { timeout: 30_000, interval: 200 },
  );
});
afterAll(async () => {
  await taskServer?.close();
});

describe('Issue 48, item 1: the run page of a plan held back by its post_plan tasks', () => {
  it('shows the post_plan result, disables "Apply plan" with the reason the server gives, and enables it once overridden', async () => {
    const { planApproval } = await asAdmin('GET', `/api/v1alpha1/projects/${TEAM_PROJECT}/runs/${plan}`).then(
      expectStatus(200),
    );
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${TEAM_PROJECT}/runs/${plan}`);
    const row = page.getByTestId(`task-result-${task}`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toMatch(new RegExp(`${task}.*post_plan.*mandatory.*failed.*cost rises by 40 %`));
    const apply = page.getByRole('button', { name: `Apply plan run ${plan}` });
    expect(await apply.isDisabled()).toBe(true);
    expect(await page.getByTestId('plan-apply-blocked').textContent()).toBe(planApproval.blockedBy.message);
    await page.getByLabel(/^Reason/).fill('cost accepted by finance');
    await page.getByRole('button', { name: 'Override and proceed' }).click();
    await row.filter({ hasText: 'overridden by oidc:alice@example.com: cost accepted by finance' }).waitFor();
    await vi.waitFor(async () => expect(await apply.isEnabled()).toBe(true), { timeout: 15_000, interval: 200 });
    expect(await page.getByTestId('plan-apply-blocked').count()).toBe(0);
    expectNoPageErrors(page);
  });
});
