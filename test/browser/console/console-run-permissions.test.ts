// Issue 44, item 11: the console's run buttons follow `create` on `workspaces/runs` (starting and
// cancelling a run), its "New Workspace" link `create` on `workspaces`. Every other test role grants
// both, so a console asking for the one where it means the other went unseen; this role grants only
// `create workspaces/runs`, in headless Chromium, signed in as the OIDC user.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  bindRole,
  expectStatus,
  send,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { expectNoPageErrors, signInWithOidc, useConsole } from '../../support/console-fixture.ts';

const app = await useConsole();
const WORKSPACE = 'runs-only';

beforeAll(async () => {
  const asAdmin = (method: string, path: string, body?: unknown) =>
    send(app.platform().gateway.url, app.platform().tokens.admin, method, path, body);
  await asAdmin('POST', `${API}/namespaces/${OTHER_PROJECT}/workspaces`, workspaceObject(WORKSPACE)).then(
    expectStatus(201),
  );
  await asAdmin('POST', `/api/v1alpha1/projects/${OTHER_PROJECT}/workspaces/${WORKSPACE}/runs`, {
    type: 'plan',
  }).then(expectStatus(201));
  await bindRole(
    app.platform().cluster,
    OTHER_PROJECT,
    'run-starter',
    [
      {
        apiGroups: [GROUP],
        resources: ['workspaces', 'workspaces/runs', 'rollouts', 'variablesets'],
        verbs: ['get', 'list'],
      },
      { apiGroups: [GROUP], resources: ['workspaces/runs'], verbs: ['create'] },
    ],
    MAPPED_ACCOUNT,
  );
});

describe('Issue 44, item 11: with create on workspaces/runs and not on workspaces, the console offers runs, not a new Workspace', () => {
  it("the Workspace's page offers Start plan and Cancel; the Project's page no New Workspace", async () => {
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${OTHER_PROJECT}/workspaces/${WORKSPACE}`);
    await page.getByRole('heading', { name: `Workspace ${WORKSPACE}` }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Start plan' }).waitFor();
    await page.getByRole('button', { name: /^Cancel plan run / }).waitFor();

    await page.goto(`${app.url}/#/projects/${OTHER_PROJECT}`);
    await page.getByRole('heading', { name: `Project ${OTHER_PROJECT}` }).waitFor();
    await page.getByRole('link', { name: WORKSPACE }).waitFor();
    // The review has answered (the same one that offered Start plan): still no link to create a Workspace.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('link', { name: 'New Workspace' }).count()).toBe(0);
    expectNoPageErrors(page);
  });
});
