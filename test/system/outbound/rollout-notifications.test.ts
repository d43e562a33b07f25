// Issue 47, items 1 and 3 through the platform: a Rollout's stage events reach a real receiver started here when
// the stage is approved or its approval withdrawn through the API, and when the controller's status write says it
// was promoted or failed. The sweep is the scheduled trigger's route; its reconciler reads the cluster, and the
// approve and withdraw routes record their events before they answer. A Notification may filter by Rollout name
// and by Rollout labels.
import { type CloudEvent, HTTP } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startReceiver, type TestReceiver } from '../../support/outbound-fixtures.ts';
import { API, GROUP, TEAM_PROJECT, callAs, expectStatus, usePlatform } from '../../support/platform-fixture.ts';

const platform = usePlatform({
  OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
  OUTBOUND_RETRY_BASE: '50ms',
  OUTBOUND_RETRY_MAX: '200ms',
  OUTBOUND_TIMEOUT: '2s',
  // The test sweeps through the route; the process's own timer stays out of the way.
  OUTBOUND_SWEEP_INTERVAL: '10m',
  // Each sweep the test asks for runs the reconciler (the fleet-wide pacing is proven in cluster-events.test.ts).
  OUTBOUND_SOURCE_INTERVAL: '0s',
  CONSOLE_URL: 'https://console.example.io',
});
const WAIT = { timeout: 60_000, interval: 50 };
const admin = () => callAs(platform, 'admin');
const STAGE_EVENTS = [
  'StageAwaitingApproval',
  'StageApproved',
  'StagePromoted',
  'StageFailed',
  'StageApprovalWithdrawn',
];
let stages: TestReceiver;
let chat: TestReceiver;

const rolloutsPath = `${API}/namespaces/${TEAM_PROJECT}/rollouts`;
const routeOf = (name: string, action: 'approve' | 'withdraw') =>
  `/api/v1alpha1/projects/${TEAM_PROJECT}/rollouts/${name}/${action}`;

async function createRollout(name: string, labels: Record<string, string>): Promise<void> {
  await admin()('POST', rolloutsPath, {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Rollout',
    metadata: { name, labels },
    spec: { revision: 'r1', stages: [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true } }] },
  }).then(expectStatus(201));
}

/** The controller's status write (a merge patch of `/status` through the API, as the development controller sends it). */
async function controllerWrites(name: string, phases: Record<string, string>): Promise<void> {
  await admin()(
    'PATCH',
    `${rolloutsPath}/${name}/status`,
    {
      status: {
        phase: Object.values(phases).includes('AwaitingApproval') ? 'AwaitingApproval' : 'Progressing',
        stages: Object.entries(phases).map(([workspace, phase]) => ({ workspace, phase })),
      },
    },
    { 'content-type': 'application/merge-patch+json' },
  ).then(expectStatus(200));
}

const sweep = () => callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));

/** Sweeps through the scheduled trigger's route until `done` holds. */
async function sweepUntil(done: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await sweep();
    done();
  }, WAIT);
}

const cloudEvents = () =>
  stages.received.map((request) => HTTP.toEvent({ headers: request.headers, body: request.body }) as CloudEvent<any>);
const typesOf = (rollout: string) =>
  cloudEvents()
    .filter((event) => event.subject === `rollouts/${TEAM_PROJECT}/${rollout}`)
    .map((event) => `${event.data.rollout.stage}:${event.data.event}`);

beforeAll(async () => {
  [stages, chat] = await Promise.all([startReceiver(), startReceiver()]);
  const create = (name: string, spec: Record<string, unknown>) =>
    admin()('POST', `${API}/namespaces/${TEAM_PROJECT}/notifications`, {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Notification',
      metadata: { name },
      spec,
    }).then(expectStatus(201));
  await create('stages', {
    events: STAGE_EVENTS,
    rollouts: ['checkout', 'payments', 'fresh'],
    receiver: { type: 'cloudevents', url: stages.url },
  });
  await create('prod-approvals', {
    events: ['StageApproved'],
    rolloutSelector: { matchLabels: { tier: 'prod' } },
    receiver: { type: 'slack', url: chat.url },
  });
  await createRollout('checkout', { tier: 'prod' });
  await createRollout('payments', { tier: 'dev' });
  await createRollout('unlisted', { tier: 'prod' });
  // The first sweep sees them as they are made: nothing to tell yet.
  await sweep();
});
afterAll(async () => Promise.all([stages?.close(), chat?.close()]));

describe('Issue 47, item 1: Rollout stage events (awaiting approval, approved, promoted, failed, withdrawn)', () => {
  it('a stage the controller holds for approval is delivered as awaiting approval', async () => {
    await controllerWrites('checkout', { staging: 'Applied', prod: 'AwaitingApproval' });
    await sweepUntil(() =>
      expect(typesOf('checkout')).toEqual(['staging:StagePromoted', 'prod:StageAwaitingApproval']),
    );
  });

  it('approving the stage through the API records its event before the answer, and the next sweep delivers it', async () => {
    await admin()('POST', routeOf('checkout', 'approve'), { stage: 'prod' }).then(expectStatus(200));
    const { rows } = await platform().database.pool.query(
      'SELECT type, data FROM outbox_events WHERE subject = $1 ORDER BY created_at, id',
      [`rollouts/${TEAM_PROJECT}/checkout`],
    );
    expect(rows.at(-1)).toMatchObject({
      type: 'rollout.stage_approved',
      data: { stage: 'prod', approvedBy: ['admin'] },
    });
    await sweepUntil(() => expect(typesOf('checkout').at(-1)).toBe('prod:StageApproved'));
    const approved = cloudEvents().at(-1)!;
    expect(approved).toMatchObject({
      type: 'dev.platform.StageApproved',
      source: `/apis/${GROUP}/v1alpha1/namespaces/${TEAM_PROJECT}/rollouts/checkout`,
    });
    expect(approved.data).toMatchObject({
      project: TEAM_PROJECT,
      link: `https://console.example.io/#/projects/${TEAM_PROJECT}/rollouts/checkout`,
      rollout: { rollout: 'checkout', stage: 'prod', revision: 'r1', state: 'approved', labels: { tier: 'prod' } },
    });
  });

  it('a chat receiver filtered by Rollout labels gets the approval with a link to the Rollout in the console', async () => {
    await sweepUntil(() => expect(chat.received).toHaveLength(1));
    expect(JSON.parse(chat.received[0]!.body)).toEqual({
      text: `Stage prod of rollout <https://console.example.io/#/projects/${TEAM_PROJECT}/rollouts/checkout|${TEAM_PROJECT}/checkout> (revision r1) was approved by admin`,
    });
  });

  it('withdrawing the approval through the API delivers withdrawn', async () => {
    await admin()('POST', routeOf('checkout', 'withdraw'), { stage: 'prod' }).then(expectStatus(200));
    await sweepUntil(() => expect(typesOf('checkout').at(-1)).toBe('prod:StageApprovalWithdrawn'));
  });

  it("the controller's status write of an approved stage as applied delivers promoted; of a failed one, failed", async () => {
    await admin()('POST', routeOf('checkout', 'approve'), { stage: 'prod' }).then(expectStatus(200));
    await controllerWrites('checkout', { staging: 'Applied', prod: 'Applied' });
    await controllerWrites('payments', { staging: 'Failed' });
    await sweepUntil(() => {
      expect(typesOf('checkout').slice(-2)).toEqual(['prod:StageApproved', 'prod:StagePromoted']);
      expect(typesOf('payments')).toEqual(['staging:StageFailed']);
    });
  });

  it('a Rollout the Notification does not name is not sent to it, nor one whose labels do not match the selector', async () => {
    await controllerWrites('unlisted', { staging: 'Applied', prod: 'AwaitingApproval' });
    await admin()('POST', routeOf('unlisted', 'approve'), { stage: 'prod' }).then(expectStatus(200));
    await admin()('POST', routeOf('payments', 'approve'), { stage: 'prod' }).then(expectStatus(200));
    // The unlisted Rollout's approval reaches the chat (labels tier=prod), and is the last it gets.
    await sweepUntil(() => expect(chat.received.length).toBeGreaterThanOrEqual(3));
    await sweep();
    const texts = chat.received.map((request) => JSON.parse(request.body).text as string);
    expect(texts.filter((text) => text.includes('/unlisted|'))).toHaveLength(1);
    expect(texts.some((text) => text.includes('/payments|'))).toBe(false);
    expect(typesOf('unlisted')).toEqual([]);
  });
});

describe('Issue 47, item 3: nothing lost when the approval comes before any sweep has seen the Rollout', () => {
  it('a Rollout made and approved between two sweeps delivers its approval (the route records it before answering)', async () => {
    await createRollout('fresh', { tier: 'dev' });
    await controllerWrites('fresh', { staging: 'Applied', prod: 'AwaitingApproval' });
    await admin()('POST', routeOf('fresh', 'approve'), { stage: 'prod' }).then(expectStatus(200));
    await sweepUntil(() => expect(typesOf('fresh')).toEqual(['prod:StageApproved']));
  });
});

describe('Issue 47, item 3: each event delivered once however many sweeps run at once', () => {
  it('concurrent calls of the sweep route record and deliver a change once', async () => {
    const before = stages.received.length;
    await controllerWrites('payments', { staging: 'Failed', prod: 'Failed' });
    await Promise.all(Array.from({ length: 4 }, () => sweep()));
    await sweepUntil(() => expect(stages.received.length).toBeGreaterThan(before));
    await Promise.all(Array.from({ length: 4 }, () => sweep()));
    expect(typesOf('payments').filter((type) => type === 'prod:StageFailed')).toHaveLength(1);
    const ids = cloudEvents().map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
