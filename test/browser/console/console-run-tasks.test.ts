// Issue 48, item 5: the console's run page shows the results of the run's tasks, and offers the override of a
// mandatory failure only where the caller's access review allows `override` on the Workspace's runs; used, it
// lets the run proceed. In headless Chromium, signed in as the OIDC user: in team-a its Role grants every verb on
// `workspaces/runs` (override included), in team-b only reading.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  runTaskObject,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { expectNoPageErrors, signInWithOidc, useConsole } from '../../support/console-fixture.ts';
import { ENGINE_DELIVERY_ENV, useEngineDelivery } from '../../support/run-task-delivery.ts';
import {
  type RunTaskServer,
  sendCallback,
  startRunTaskServer,
  taskResultDocument,
} from '../../support/run-task-server.ts';

const app = await useConsole(ENGINE_DELIVERY_ENV);
let taskServer: RunTaskServer;
const delivered = useEngineDelivery(app.platform, () => taskServer.received);
const WORKSPACE = 'gated';
const runs: Record<string, string> = {};

/** A run of WORKSPACE in `project` failed by its mandatory task `scanner`, answered through the task's callback. */
async function failedRun(project: string): Promise<string> {
  const asAdmin = (method: string, path: string, body?: unknown) =>
    send(app.platform().gateway.url, app.platform().tokens.admin, method, path, body);
  await asAdmin('POST', `${API}/namespaces/${project}/workspaces`, workspaceObject(WORKSPACE)).then(expectStatus(201));
  await asAdmin(
    'POST',
    `${API}/namespaces/${project}/runtasks`,
    runTaskObject('scanner', { url: taskServer.url, enforcement: 'mandatory', workspaces: [WORKSPACE] }),
  ).then(expectStatus(201));
  const { id } = await asAdmin('POST', `/api/v1alpha1/projects/${project}/workspaces/${WORKSPACE}/runs`, {
    type: 'plan',
  }).then(expectStatus(201));
  const request = await delivered(id);
  const answer = await sendCallback(
    request.callbackUrl,
    request.payload.access_token,
    taskResultDocument('failed', 'public bucket found', 'https://scanner.example.com/r/1'),
  );
  expect(answer.status).toBe(200);
  return id;
}

beforeAll(async () => {
  taskServer = await startRunTaskServer(undefined, () => app.platform().gateway.url);
  runs[TEAM_PROJECT] = await failedRun(TEAM_PROJECT);
  runs[OTHER_PROJECT] = await failedRun(OTHER_PROJECT);
  await bindRole(
    app.platform().cluster,
    OTHER_PROJECT,
    'run-reader',
    [{ apiGroups: [GROUP], resources: ['workspaces', 'workspaces/runs'], verbs: ['get', 'list'] }],
    MAPPED_ACCOUNT,
  );
});
afterAll(async () => {
  await taskServer?.close();
});

describe('Issue 48, item 5: the run page shows task results, with override where allowed', () => {
  it('with override on the runs: the failed mandatory task is shown, and overriding with a reason makes the run Pending', async () => {
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${TEAM_PROJECT}/runs/${runs[TEAM_PROJECT]}`);
    const row = page.getByTestId('task-result-scanner');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toMatch(/scanner.*pre_plan.*mandatory.*failed.*public bucket found/);
    await page.getByLabel(/^Reason/).fill('change CHG-42 approved');
    await page.getByRole('button', { name: 'Override and proceed' }).click();
    await page.getByTestId('run-phase').filter({ hasText: 'Pending' }).waitFor({ timeout: 15_000 });
    await row.filter({ hasText: 'overridden by oidc:alice@example.com: change CHG-42 approved' }).waitFor();
    expectNoPageErrors(page);
  });

  it('without it: the results are shown and no override is offered', async () => {
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${OTHER_PROJECT}/runs/${runs[OTHER_PROJECT]}`);
    await page.getByTestId('task-result-scanner').waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('button', { name: 'Override and proceed' }).count()).toBe(0);
    expectNoPageErrors(page);
  });
});
