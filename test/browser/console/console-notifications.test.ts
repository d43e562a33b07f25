// Issue 47, item 6: the console shows a Project's Notifications and each one's delivery log, with
// Redeliver and Pause/Resume where the user's rules allow them (`update` and `patch` on the
// Notification), in headless Chromium against the platform, a real receiver and the sweep route.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startReceiver, type TestReceiver } from '../../support/outbound-fixtures.ts';
import {
  API,
  GROUP,
  MAPPED_ACCOUNT,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  callAs,
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

const app = await useConsole({
  OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
  OUTBOUND_MAX_ATTEMPTS: '1',
  // The test sweeps through the route; the process's own timer stays out of the way.
  OUTBOUND_SWEEP_INTERVAL: '10m',
});
const WAIT = { timeout: 60_000, interval: 100 };
const WORKSPACE = 'notified';
let receiver: TestReceiver;
let receiverUp = false;

const asAdmin = (method: string, path: string, body?: unknown) =>
  send(app.platform().gateway.url, app.platform().tokens.admin, method, path, body);
const notificationPath = (project: string, name: string) => `${API}/namespaces/${project}/notifications/${name}`;

/** Sweeps through the scheduled trigger's route until the receiver has had `count` requests. */
async function sweepUntilReceived(count: number): Promise<void> {
  await vi.waitFor(async () => {
    await callAs(app.platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
    if (receiver.received.length < count) throw new Error(`${receiver.received.length} of ${count} received`);
  }, WAIT);
}

/** A Notification of run creations in `project` to the receiver, and one run: its one attempt fails (500). */
async function failedDelivery(project: string, name: string): Promise<void> {
  await asAdmin('POST', `${API}/namespaces/${project}/workspaces`, workspaceObject(WORKSPACE)).then(expectStatus(201));
  await asAdmin('POST', `${API}/namespaces/${project}/notifications`, {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Notification',
    metadata: { name },
    spec: { events: ['RunCreated'], workspaces: [WORKSPACE], receiver: { type: 'cloudevents', url: receiver.url } },
  }).then(expectStatus(201));
  const before = receiver.received.length;
  await asAdmin('POST', `/api/v1alpha1/projects/${project}/workspaces/${WORKSPACE}/runs`, { type: 'plan' }).then(
    expectStatus(201),
  );
  await sweepUntilReceived(before + 1);
}

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.answer = (_request, response) => {
    response.statusCode = receiverUp ? 200 : 500;
    response.end(receiverUp ? 'thanks' : 'receiver down');
  };
  await failedDelivery(TEAM_PROJECT, 'hooks');
  await failedDelivery(OTHER_PROJECT, 'watched');
  await bindRole(
    app.platform().cluster,
    OTHER_PROJECT,
    'notification-reader',
    [
      {
        apiGroups: [GROUP],
        resources: ['notifications', 'workspaces', 'rollouts', 'variablesets'],
        verbs: ['get', 'list'],
      },
    ],
    MAPPED_ACCOUNT,
  );
  return () => receiver.close();
});

describe("Issue 47, item 6: the console shows a Project's Notifications and their delivery log", () => {
  it('the Project lists its Notifications; a Notification shows each attempt, is paused and resumed, and redelivers an event', async () => {
    const page = await app.newPage();
    await signInAsAdmin(page, app.url, `#/projects/${TEAM_PROJECT}`);
    const notifications = page.getByRole('region', { name: 'Notifications' });
    await notifications.getByRole('cell', { name: 'RunCreated' }).waitFor({ timeout: 15_000 });
    expect(await notifications.getByRole('row', { name: /hooks/ }).textContent()).toContain('Active');
    await notifications.getByRole('link', { name: 'hooks' }).click();

    await page.getByRole('heading', { name: 'Notification hooks' }).waitFor();
    const log = page.getByRole('region', { name: 'Delivery log' });
    const failed = log.getByRole('row', { name: /run\.created/ });
    await failed.waitFor();
    for (const shown of ['failed', '500', 'receiver down']) expect(await failed.textContent()).toContain(shown);
    await checkPage(page, 'notification');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused Notification hooks.').waitFor();
    await page.getByText('Paused: events are held until it is resumed').waitFor();
    expect(
      (
        (await asAdmin('GET', notificationPath(TEAM_PROJECT, 'hooks')).then(expectStatus(200))) as {
          spec: { suspend: boolean };
        }
      ).spec.suspend,
    ).toBe(true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('Resumed Notification hooks.').waitFor();
    expect(
      (
        (await asAdmin('GET', notificationPath(TEAM_PROJECT, 'hooks')).then(expectStatus(200))) as {
          spec: { suspend: boolean };
        }
      ).spec.suspend,
    ).toBe(false);

    receiverUp = true;
    // Team-a's run was delivered (and failed) first, before team-b's.
    const eventId = JSON.parse(receiver.received[0]!.body).id;
    await log.getByRole('button', { name: /^Redeliver run\.created of runs\// }).click();
    await page.getByText(/will be sent again at the next sweep/).waitFor();
    const before = receiver.received.length;
    await sweepUntilReceived(before + 1);
    // The same event, with the same id: the receiver de-duplicates by it.
    expect(JSON.parse(receiver.received.at(-1)!.body).id).toBe(eventId);
    await page.reload();
    await log.getByRole('row', { name: /delivered/ }).waitFor();
    expect(await log.getByRole('row', { name: /delivered/ }).textContent()).toContain('thanks');
    expectNoPageErrors(page);
  });

  it('with get and list on Notifications only, the log is shown without Pause, Resume or Redeliver', async () => {
    const page = await app.newPage();
    await signInWithOidc(page, app.url, `#/projects/${OTHER_PROJECT}/notifications/watched`);
    await page.getByRole('heading', { name: 'Notification watched' }).waitFor({ timeout: 15_000 });
    await page
      .getByRole('region', { name: 'Delivery log' })
      .getByRole('row', { name: /run\.created/ })
      .waitFor();
    // The rules review has answered (the page asks it once): still no control the rules do not allow.
    await page.waitForLoadState('networkidle');
    for (const control of ['Pause', 'Resume', /^Redeliver/])
      expect(await page.getByRole('button', { name: control }).count()).toBe(0);
    expectNoPageErrors(page);
  });
});
