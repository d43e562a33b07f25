// Issue 47, items 1 and 3 for what lives in the cluster: Rollout stages and a Project's approval windows and freeze
// change where no transaction of ours reaches, so a reconciler run by every outbound sweep
// (shared/domain/cluster-events/) records their events with the same guarantees as a run's: at least once, a stable
// id, in order per subject. Against a real PostgreSQL, the emulator (objects written with @kubernetes/client-node's
// KubeConfig through the server's own client) and a real receiver; the windows' clock is the test's.
import { CoreV1Api } from '@kubernetes/client-node';
import { type CloudEvent, HTTP } from 'cloudevents';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { poolDatabase } from '../../../shared/base/database/database.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { ClusterEventReconciler } from '../../../shared/domain/cluster-events/cluster-event-reconciler.ts';
import { notificationReceivers } from '../../../shared/domain/notifications/notification-receivers.ts';
import { OutboundEngine } from '../../../shared/domain/outbound/outbound-engine.ts';
import { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { useKubeEmulator } from '../../support/emulator-fixture.ts';
import { silentLogger } from '../../support/function-servers.ts';
import { startReceiver, testOutboundSettings, type TestReceiver } from '../../support/outbound-fixtures.ts';
import { useRunStore } from '../../support/run-store-fixture.ts';
import { instancePools } from '../../support/test-database.ts';

const GROUP = 'platform.dev';
const PROJECT = 'shop';
const WAIT = { timeout: 60_000, interval: 20 };
const emulator = useKubeEmulator();
const { database } = useRunStore();
const logger = createLogger({ level: 'error' });
let cluster: ClusterObjects;
let receiver: TestReceiver;
let clock = new Date('2026-03-01T09:00:00Z');
const objects = async () => cluster;

const reconciler = () => new ClusterEventReconciler(objects, () => clock);
const rolloutPath = (name = '') =>
  `/apis/${GROUP}/v1alpha1/namespaces/${PROJECT}/rollouts${name ? `/${encodeURIComponent(name)}` : ''}`;

beforeAll(async () => {
  const kubeConfig = emulator().kubeConfig();
  await installPlatformCrds(kubeConfig, GROUP);
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: PROJECT } } });
  cluster = new ClusterObjects(new KubernetesRestClient(kubeConfig, silentLogger), GROUP);
  await cluster.send({
    method: 'POST',
    path: `/apis/${GROUP}/v1alpha1/projects`,
    body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Project', metadata: { name: PROJECT }, spec: {} },
  });
  receiver = await startReceiver();
  await cluster.send({
    method: 'POST',
    path: `/apis/${GROUP}/v1alpha1/namespaces/${PROJECT}/notifications`,
    body: {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Notification',
      metadata: { name: 'everything' },
      spec: {
        events: [
          'StageAwaitingApproval',
          'StageApproved',
          'StagePromoted',
          'StageFailed',
          'StageApprovalWithdrawn',
          'ApprovalWindowOpened',
          'ApprovalWindowClosed',
          'FreezeStarted',
          'FreezeLifted',
        ],
        // Run filters narrow runs alone: a stage's or a window's event is not held back by them.
        workspaces: ['no-such-workspace'],
        receiver: { type: 'cloudevents', url: receiver.url },
      },
    },
  });
});
afterAll(async () => receiver?.close());
beforeEach(async () => {
  // Each test starts from no Rollout and nothing recorded.
  const { body } = await cluster.send<{ items: PlatformObject[] }>({ method: 'GET', path: rolloutPath() });
  for (const rollout of body.items) await cluster.send({ method: 'DELETE', path: rolloutPath(rollout.metadata.name) });
  await database().pool.query(
    'TRUNCATE outbox_events, rollout_stage_states, approval_gate_states, outbox_source_passes CASCADE',
  );
  receiver.received.length = 0;
});

async function createRollout(name: string, labels: Record<string, string> = {}): Promise<PlatformObject> {
  const { body } = await cluster.send<PlatformObject>({
    method: 'POST',
    path: rolloutPath(),
    body: {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name, labels },
      spec: { revision: 'r1', stages: [{ workspace: 'staging' }, { workspace: 'prod', approval: { required: true } }] },
    },
  });
  return body;
}

/** Writes the Rollout's status as its controller (and, for `approvedFor`, the server's approval record) would. */
async function writeStatus(name: string, phases: Record<string, string>, approvedFor?: string): Promise<void> {
  await cluster.send({
    method: 'PATCH',
    path: `${rolloutPath(name)}/status`,
    contentType: 'application/merge-patch+json',
    body: {
      status: {
        phase: Object.values(phases).includes('AwaitingApproval') ? 'AwaitingApproval' : 'Progressing',
        stages: Object.entries(phases).map(([workspace, phase]) => ({
          workspace,
          phase,
          ...(approvedFor && workspace === 'prod'
            ? {
                approval: { revision: approvedFor, approvedBy: 'alice', approvedAt: '2026-03-01T09:00:00Z' },
                approvals: [{ approvedBy: 'alice', approvedAt: '2026-03-01T09:00:00Z', revision: approvedFor }],
              }
            : {}),
        })),
      },
    },
  });
}

async function eventsOf(subject: string): Promise<Array<{ id: string; type: string; data: Record<string, unknown> }>> {
  const { rows } = await database().pool.query(
    'SELECT id, type, data FROM outbox_events WHERE subject = $1 ORDER BY created_at, id',
    [subject],
  );
  return rows;
}

function engine(pool = database().pool, settings = testOutboundSettings()) {
  const receivers = notificationReceivers(objects, {
    apiGroup: GROUP,
    apiBaseUrl: 'https://api.example.io',
    consoleUrl: undefined,
  });
  return new OutboundEngine(poolDatabase(pool), [receivers], settings, logger, undefined, [reconciler()]);
}

const received = () =>
  receiver.received.map((request) => HTTP.toEvent({ headers: request.headers, body: request.body }) as CloudEvent<any>);

describe('Issue 47, item 1: Rollout stage events, recorded by the reconciler every sweep runs', () => {
  it('a Rollout first seen records its stages without sending their history; each later change is one event, in order', async () => {
    await createRollout('web');
    await writeStatus('web', { staging: 'Applied', prod: 'Pending' });
    const db = poolDatabase(database().pool);
    expect((await reconciler().record(db)).events).toBe(0);
    await writeStatus('web', { staging: 'Applied', prod: 'AwaitingApproval' });
    await reconciler().record(db);
    await writeStatus('web', { staging: 'Applied', prod: 'AwaitingApproval' }, 'r1');
    await reconciler().record(db);
    await writeStatus('web', { staging: 'Applied', prod: 'Applied' }, 'r1');
    await reconciler().record(db);
    await reconciler().record(db);
    const events = await eventsOf(`rollouts/${PROJECT}/web`);
    expect(events.map((event) => event.type)).toEqual([
      'rollout.stage_awaiting_approval',
      'rollout.stage_approved',
      'rollout.stage_promoted',
    ]);
    expect(events[1]!.data).toMatchObject({ rollout: 'web', stage: 'prod', revision: 'r1', approvedBy: ['alice'] });
  });

  it('a stage first seen awaiting approval is sent (someone must act), and a failure is its own event', async () => {
    await createRollout('api');
    await writeStatus('api', { staging: 'Applied', prod: 'AwaitingApproval' });
    const db = poolDatabase(database().pool);
    await reconciler().record(db);
    await writeStatus('api', { staging: 'Applied', prod: 'Failed' }, 'r1');
    await reconciler().record(db);
    expect((await eventsOf(`rollouts/${PROJECT}/api`)).map((event) => event.type)).toEqual([
      'rollout.stage_awaiting_approval',
      'rollout.stage_failed',
    ]);
  });

  it('an approval withdrawn is an event, and the same approval given again is a new one (another id)', async () => {
    await createRollout('billing');
    await writeStatus('billing', { staging: 'Applied', prod: 'AwaitingApproval' });
    const db = poolDatabase(database().pool);
    await reconciler().record(db);
    for (const approvedFor of ['r1', undefined, 'r1']) {
      await writeStatus('billing', { staging: 'Applied', prod: 'AwaitingApproval' }, approvedFor);
      await reconciler().record(db);
    }
    const events = await eventsOf(`rollouts/${PROJECT}/billing`);
    expect(events.map((event) => event.type)).toEqual([
      'rollout.stage_awaiting_approval',
      'rollout.stage_approved',
      'rollout.stage_approval_withdrawn',
      'rollout.stage_approved',
    ]);
    expect(new Set(events.map((event) => event.id)).size).toBe(4);
  });

  it('a sweep that first sees a Rollout just approved through the route records it as history; the route still sends approved, once', async () => {
    await createRollout('checkout');
    await writeStatus('checkout', { staging: 'Applied', prod: 'AwaitingApproval' }, 'r1');
    const { body: approved } = await cluster.send<PlatformObject>({ method: 'GET', path: rolloutPath('checkout') });
    const db = poolDatabase(database().pool);
    // The sweep's listing came after the route's write and before the route's own record.
    expect((await reconciler().record(db)).events).toBe(0);
    expect(await reconciler().recordRollout(db, approved, 'prod')).toBe(1);
    expect(await reconciler().recordRollout(db, approved, 'prod')).toBe(0);
    await reconciler().record(db);
    expect((await eventsOf(`rollouts/${PROJECT}/checkout`)).map((event) => event.type)).toEqual([
      'rollout.stage_approved',
    ]);
  });

  it('the route and a sweep seeing the approved Rollout first at the same moment send approved exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `cart-${round}`;
      await createRollout(name);
      await writeStatus(name, { staging: 'Applied', prod: 'AwaitingApproval' }, 'r1');
      const { body: approved } = await cluster.send<PlatformObject>({ method: 'GET', path: rolloutPath(name) });
      const db = poolDatabase(database().pool);
      await Promise.all([reconciler().record(db), reconciler().recordRollout(db, approved, 'prod')]);
      expect((await eventsOf(`rollouts/${PROJECT}/${name}`)).map((event) => event.type)).toEqual([
        'rollout.stage_approved',
      ]);
    }
  });

  it('the rows of a deleted Rollout are removed by the next pass (retention)', async () => {
    await createRollout('short-lived');
    const db = poolDatabase(database().pool);
    await reconciler().record(db);
    const rowsOf = async () =>
      (await database().pool.query("SELECT 1 FROM rollout_stage_states WHERE rollout = 'short-lived'")).rowCount;
    expect(await rowsOf()).toBe(2);
    await cluster.send({ method: 'DELETE', path: rolloutPath('short-lived') });
    const { removed } = await reconciler().record(db);
    expect(removed).toBeGreaterThanOrEqual(2);
    expect(await rowsOf()).toBe(0);
  });
});

describe('Issue 47, item 3: delivered at least once, with a stable id, each event once however many sweep', () => {
  it('changes made while nothing swept are recorded and delivered by the next sweep', async () => {
    const first = engine();
    await createRollout('offline');
    await first.sweep();
    // Nothing sweeps now: staging is applied and prod waits; the next sweep sees what the Rollout shows.
    await writeStatus('offline', { staging: 'Applied', prod: 'AwaitingApproval' });
    const next = engine();
    await vi.waitFor(async () => {
      await next.sweep();
      expect(received().map((event) => event.type)).toEqual([
        'dev.platform.StagePromoted',
        'dev.platform.StageAwaitingApproval',
      ]);
    }, WAIT);
    expect(received()[0]!.data).toMatchObject({ rollout: { stage: 'staging', state: 'promoted' } });
    const [, event] = received();
    expect(event).toMatchObject({
      subject: `rollouts/${PROJECT}/offline`,
      source: `/apis/${GROUP}/v1alpha1/namespaces/${PROJECT}/rollouts/offline`,
    });
    expect(event!.data).toMatchObject({
      event: 'StageAwaitingApproval',
      project: PROJECT,
      link: `https://api.example.io/apis/${GROUP}/v1alpha1/namespaces/${PROJECT}/rollouts/offline`,
      rollout: { rollout: 'offline', stage: 'prod', state: 'awaiting' },
    });
    expect(event!.id).toBe((await eventsOf(`rollouts/${PROJECT}/offline`))[1]!.id);
  });

  it('two instances sweeping at once, over many Rollouts changing, record and deliver each event once', async () => {
    const names = Array.from({ length: 8 }, (_, index) => `race-${index}`);
    for (const name of names) await createRollout(name);
    const pools = instancePools(database(), 2);
    try {
      const instances = pools.map((pool) => engine(pool));
      await Promise.all(instances.map((instance) => instance.sweep()));
      for (const [phases, approvedFor] of [
        [{ staging: 'Applied', prod: 'AwaitingApproval' }, undefined],
        [{ staging: 'Applied', prod: 'AwaitingApproval' }, 'r1'],
        [{ staging: 'Applied', prod: 'Applied' }, 'r1'],
      ] as const) {
        for (const name of names) await writeStatus(name, phases, approvedFor);
        await Promise.all(instances.flatMap((instance) => [instance.sweep(), instance.sweep()]));
      }
      // Each Rollout: staging promoted, prod awaiting approval, approved, promoted.
      const expected = names.length * 4;
      await vi.waitFor(async () => {
        await Promise.all(instances.map((instance) => instance.sweep()));
        expect(receiver.received.length).toBeGreaterThanOrEqual(expected);
      }, WAIT);
      await Promise.all(instances.map((instance) => instance.sweep()));
      const ids = received().map((event) => event.id);
      expect(ids).toHaveLength(expected);
      expect(new Set(ids).size).toBe(expected);
      const { rows } = await database().pool.query(
        "SELECT count(*)::int AS n FROM outbox_events WHERE subject LIKE 'rollouts/%'",
      );
      expect(rows[0].n).toBe(expected);
      // In order per subject: each Rollout's events arrive as they were recorded.
      for (const name of names)
        expect(
          received()
            .filter((event) => event.subject === `rollouts/${PROJECT}/${name}`)
            .map((event) => event.type),
        ).toEqual([
          'dev.platform.StagePromoted',
          'dev.platform.StageAwaitingApproval',
          'dev.platform.StageApproved',
          'dev.platform.StagePromoted',
        ]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('the reconciler runs once per OUTBOUND_SOURCE_INTERVAL for the whole fleet: another instance sweeping within it lists nothing, and the change is recorded once the interval has passed', async () => {
    const paced = testOutboundSettings({ OUTBOUND_SOURCE_INTERVAL: '10m' });
    const pools = instancePools(database(), 2);
    const [first, second] = pools as [(typeof pools)[0], (typeof pools)[0]];
    onTestFinished(() => Promise.all(pools.map((pool) => pool.end())).then(() => undefined));
    await createRollout('paced');
    await writeStatus('paced', { staging: 'Applied', prod: 'AwaitingApproval' });
    await engine(first, paced).sweep();
    const types = async () => (await eventsOf(`rollouts/${PROJECT}/paced`)).map((event) => event.type);
    expect(await types()).toEqual(['rollout.stage_awaiting_approval']);
    await writeStatus('paced', { staging: 'Applied', prod: 'Failed' });
    await engine(second, paced).sweep();
    await engine(first, paced).sweep();
    expect(await types()).toEqual(['rollout.stage_awaiting_approval']);
    // The interval has passed (as if twenty minutes later): the next sweep of any instance records the failure.
    await database().pool.query("UPDATE outbox_source_passes SET passed_at = passed_at - interval '20 minutes'");
    await engine(second, paced).sweep();
    expect(await types()).toEqual(['rollout.stage_awaiting_approval', 'rollout.stage_failed']);
  });

  it('a sweeper holding an older copy of a Rollout records nothing older than what another recorded', async () => {
    const stale = await createRollout('stale');
    await writeStatus('stale', { staging: 'Applied', prod: 'AwaitingApproval' });
    const db = poolDatabase(database().pool);
    await reconciler().record(db);
    const older = (await cluster.find<PlatformObject>(rolloutPath('stale')))!;
    await writeStatus('stale', { staging: 'Applied', prod: 'AwaitingApproval' }, 'r1');
    await reconciler().record(db);
    expect(await reconciler().recordRollout(db, older)).toBe(0);
    expect(await reconciler().recordRollout(db, stale)).toBe(0);
    expect((await eventsOf(`rollouts/${PROJECT}/stale`)).map((event) => event.type)).toEqual([
      'rollout.stage_awaiting_approval',
      'rollout.stage_approved',
    ]);
  });
});

describe('Issue 47, item 1: approval windows opened and closed, and the freeze, as the Project policy says at the clock', () => {
  async function setPolicy(policy: Record<string, unknown>): Promise<void> {
    await cluster.send({
      method: 'PATCH',
      path: `/apis/${GROUP}/v1alpha1/projects/${PROJECT}`,
      contentType: 'application/merge-patch+json',
      body: { spec: { approvalPolicy: policy } },
    });
  }

  it('a window opening and closing is one event each, with ids from the opening, delivered whatever the run filters', async () => {
    const window = {
      name: 'change-window',
      kind: 'allow',
      start: '2026-03-01T10:00:00Z',
      end: '2026-03-01T12:00:00Z',
      appliesTo: { rollouts: ['*'] },
    };
    await setPolicy({ windows: [window] });
    const outbound = engine();
    clock = new Date('2026-03-01T09:00:00Z');
    await outbound.sweep();
    clock = new Date('2026-03-01T10:00:00Z');
    await outbound.sweep();
    await outbound.sweep();
    clock = new Date('2026-03-01T12:00:00Z');
    await vi.waitFor(async () => {
      await outbound.sweep();
      expect(received().map((event) => event.type)).toEqual([
        'dev.platform.ApprovalWindowOpened',
        'dev.platform.ApprovalWindowClosed',
      ]);
    }, WAIT);
    const [opened, closed] = received();
    expect(opened).toMatchObject({
      subject: `windows/${PROJECT}/change-window`,
      source: `/apis/${GROUP}/v1alpha1/projects/${PROJECT}`,
    });
    expect(opened!.data).toMatchObject({
      event: 'ApprovalWindowOpened',
      window: {
        window: 'change-window',
        kind: 'allow',
        openedAt: '2026-03-01T10:00:00.000Z',
        closesAt: '2026-03-01T12:00:00.000Z',
      },
      link: `https://api.example.io/apis/${GROUP}/v1alpha1/projects/${PROJECT}`,
    });
    expect(closed!.data).toMatchObject({ window: { change: 'closed', closedAt: '2026-03-01T12:00:00.000Z' } });
    const { rows } = await database().pool.query(
      "SELECT count(*)::int AS n FROM outbox_events WHERE type LIKE 'window.%'",
    );
    expect(rows[0].n).toBe(2);
  });

  it('the freeze started and lifted are events of the Project', async () => {
    await setPolicy({ freeze: null, windows: null });
    const db = poolDatabase(database().pool);
    await reconciler().record(db);
    await setPolicy({ freeze: { active: true, reason: 'incident 42' } });
    await reconciler().record(db);
    await setPolicy({ freeze: { active: false } });
    await reconciler().record(db);
    const events = await eventsOf(`freeze/${PROJECT}`);
    expect(events.map((event) => event.type)).toEqual(['freeze.started', 'freeze.lifted']);
    expect(events[0]!.data).toMatchObject({ project: PROJECT, frozen: true, reason: 'incident 42' });
  });
});
