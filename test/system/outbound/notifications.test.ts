// Issue 47, items 1, 2 and 5 through the platform: Notifications are a kind of a Project (kubectl-style
// REST, RBAC), and the run events they ask for reach real receivers started here, in formats that
// existing receivers understand: CloudEvents parsed by the `cloudevents` SDK, webhooks verified by the
// `standardwebhooks` package, Slack-compatible chat with a link to the run. Secrets come from labelled
// Kubernetes Secrets and appear in no answer or log. The sweep is the scheduled trigger's route.
import { type CloudEvent, HTTP } from 'cloudevents';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { usePluginUser } from '../../support/plugin-cli.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import {
  API,
  TEAM_PROJECT,
  callAs,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { startReceiver, type TestReceiver } from '../../support/outbound-fixtures.ts';

const logger = capturingLogger();
const platform = usePlatform(
  {
    OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32',
    OUTBOUND_RETRY_BASE: '50ms',
    OUTBOUND_RETRY_MAX: '200ms',
    OUTBOUND_MAX_ATTEMPTS: '3',
    OUTBOUND_TIMEOUT: '2s',
    // The test sweeps through the route; the process's own timer stays out of the way.
    OUTBOUND_SWEEP_INTERVAL: '10m',
    CONSOLE_URL: 'https://console.example.io',
    LOG_LEVEL: 'debug',
  },
  { logger, tls: true },
);
const pluginUser = usePluginUser(platform);
const WAIT = { timeout: 60_000, interval: 50 };
const SIGNING_KEY = `whsec_${Buffer.from('a signing key of thirty-two bytes!').toString('base64')}`;
const CHAT_PATH_SECRET = 'T000/B000/chat-path-secret';
const HEADER_SECRET = 'header-secret-value-42';
const receivers: Record<'cloudevents' | 'webhook' | 'slack' | 'unlabelled', TestReceiver> = {} as never;

const admin = () => callAs(platform, 'admin');
const notificationsPath = `${API}/namespaces/${TEAM_PROJECT}/notifications`;

async function secret(name: string, data: Record<string, string>, labelled = true): Promise<void> {
  await platform().clusterAdmin.send({
    method: 'POST',
    path: platform().clusterAdmin.corePath('secrets', { namespace: TEAM_PROJECT }),
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, ...(labelled ? { labels: { 'platform.dev/notification-secret': 'true' } } : {}) },
      data: Object.fromEntries(
        Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
      ),
    },
  });
}

function notification(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'platform.dev/v1alpha1', kind: 'Notification', metadata: { name }, spec };
}

async function startRun(workspace: string): Promise<{ id: string }> {
  return admin()('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/${workspace}/runs`, {
    type: 'plan',
    message: 'notify me',
  }).then(expectStatus(201));
}

/** Sweeps through the scheduled trigger's route, as the controller's ServiceAccount, until `done` holds. */
async function sweepUntil(done: () => boolean): Promise<void> {
  await vi.waitFor(async () => {
    await callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
    if (!done()) throw new Error('not yet');
  }, WAIT);
}

beforeAll(async () => {
  for (const name of ['cloudevents', 'webhook', 'slack', 'unlabelled'] as const)
    receivers[name] = await startReceiver();
  await secret('webhook-signing', { key: SIGNING_KEY });
  await secret('chat', { url: `${receivers.slack.url}/${CHAT_PATH_SECRET}` });
  await secret('webhook-headers', { authorization: `Bearer ${HEADER_SECRET}` });
  await secret('not-for-notifications', { key: SIGNING_KEY }, false);
  await send(platform().gateway.url, platform().tokens.admin, 'POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, {
    ...workspaceObject('notified', { tier: 'prod' }),
  }).then(expectStatus(201));
  await send(platform().gateway.url, platform().tokens.admin, 'POST', `${API}/namespaces/${TEAM_PROJECT}/workspaces`, {
    ...workspaceObject('quiet'),
  }).then(expectStatus(201));
  const create = (body: unknown) => admin()('POST', notificationsPath, body).then(expectStatus(201));
  await create(
    notification('cloud', {
      events: ['RunCreated', 'RunCancelled'],
      workspaces: ['notified'],
      receiver: { type: 'cloudevents', url: receivers.cloudevents.url },
    }),
  );
  await create(
    notification('signed', {
      events: ['RunCreated'],
      workspaceSelector: { matchLabels: { tier: 'prod' } },
      receiver: {
        type: 'webhook',
        url: receivers.webhook.url,
        signingKeySecretRef: { name: 'webhook-signing', key: 'key' },
        headersSecretRef: { name: 'webhook-headers' },
      },
    }),
  );
  await create(
    notification('chat', {
      events: ['RunCreated'],
      workspaces: ['notified'],
      receiver: { type: 'slack', urlSecretRef: { name: 'chat', key: 'url' } },
    }),
  );
  await create(
    notification('borrowing', {
      events: ['RunCreated'],
      workspaces: ['notified'],
      receiver: {
        type: 'webhook',
        url: receivers.unlabelled.url,
        signingKeySecretRef: { name: 'not-for-notifications', key: 'key' },
      },
    }),
  );
});
afterAll(async () => Promise.all(Object.values(receivers).map((receiver) => receiver.close())));

describe('Issue 47, item 1: subscriptions are resources of a Project (a custom resource kind, so kubectl apply and RBAC work)', () => {
  it('a Notification is listed in its Project with its receiver, and one its schema refuses is not stored', async () => {
    const list = await admin()('GET', notificationsPath).then(expectStatus(200));
    expect(list.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort()).toEqual([
      'borrowing',
      'chat',
      'cloud',
      'signed',
    ]);
    const refused = await admin()(
      'POST',
      notificationsPath,
      notification('by-mail', { events: ['RunFailed'], receiver: { type: 'email', url: 'https://example.com/x' } }),
    );
    expect(refused.status).toBe(422);
  });

  it('an OIDC user without a grant on notifications may not read them', async () => {
    expect((await callAs(platform, 'oidcUser')('GET', notificationsPath)).status).toBe(403);
  });
});

describe('Issue 47, item 2: formats that existing receivers understand, secrets from Kubernetes Secrets', () => {
  let run: { id: string };
  beforeAll(async () => {
    run = await startRun('notified');
    await sweepUntil(
      () =>
        receivers.cloudevents.received.length >= 1 &&
        receivers.webhook.received.length >= 1 &&
        receivers.slack.received.length >= 1,
    );
  });

  it('CloudEvents 1.0, structured: the SDK parses it, with the outbox event id, the run as subject and the data', () => {
    const [received] = receivers.cloudevents.received;
    expect(received!.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
    const event = HTTP.toEvent({ headers: received!.headers, body: received!.body }) as CloudEvent<{
      event: string;
      link: string;
      run: { id: string };
    }>;
    expect(event.validate()).toBe(true);
    expect(event).toMatchObject({
      specversion: '1.0',
      type: 'dev.platform.RunCreated',
      source: `/apis/platform.dev/v1alpha1/namespaces/${TEAM_PROJECT}/workspaces/notified`,
      subject: `runs/${run.id}`,
    });
    expect(event.data).toMatchObject({
      event: 'RunCreated',
      run: { id: run.id },
      link: `https://console.example.io/#/projects/${TEAM_PROJECT}/runs/${run.id}`,
    });
  });

  it('Standard Webhooks: the standardwebhooks package verifies the signature; the headers from the Secret are sent', async () => {
    const [received] = receivers.webhook.received;
    const verified = new Webhook(SIGNING_KEY).verify(received!.body, received!.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: 'RunCreated', data: { run: { id: run.id } } });
    expect(received!.headers.authorization).toBe(`Bearer ${HEADER_SECRET}`);
    const { rows } = await platform().database.pool.query(
      `SELECT e.id FROM outbox_events e WHERE e.type = 'run.created' AND e.subject = $1`,
      [`runs/${run.id}`],
    );
    expect(received!.headers['webhook-id']).toBe(rows[0].id);
    const forged = { ...(received!.headers as Record<string, string>), 'webhook-signature': 'v1,AAAA' };
    expect(() => new Webhook(SIGNING_KEY).verify(received!.body, forged)).toThrow();
  });

  it("Slack-compatible chat: a message linking to the run's console page, posted to the URL from the Secret", () => {
    const [received] = receivers.slack.received;
    const { text } = JSON.parse(received!.body);
    expect(text).toBe(
      `Plan <https://console.example.io/#/projects/${TEAM_PROJECT}/runs/${run.id}|${run.id.slice(0, 8)}> of ${TEAM_PROJECT}/notified was started`,
    );
  });

  it('a Secret not labelled for notifications is never used: the attempt fails and nothing is sent', async () => {
    await sweepUntil(() => logger.lines.some((line) => line.includes('outbound delivery given up')));
    expect(receivers.unlabelled.received).toHaveLength(0);
    const { rows } = await platform().database.pool.query(
      `SELECT error FROM outbound_attempts WHERE receiver = $1 ORDER BY attempt`,
      [`notification:${TEAM_PROJECT}/borrowing`],
    );
    expect(rows.map((row) => row.error)).toEqual(
      Array(3).fill(
        `Secret ${TEAM_PROJECT}/not-for-notifications is not labelled platform.dev/notification-secret=true, so no Notification may use it`,
      ),
    );
  });

  it('filters by Workspace and label: a run of another Workspace reaches no receiver', async () => {
    const before = Object.values(receivers).map((receiver) => receiver.received.length);
    const other = await startRun('quiet');
    await callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
    const { rows } = await platform().database.pool.query(
      `SELECT count(*)::int AS n FROM outbound_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.subject = $1`,
      [`runs/${other.id}`],
    );
    expect(rows[0].n).toBe(0);
    expect(Object.values(receivers).map((receiver) => receiver.received.length)).toEqual(before);
  });

  it('no secret value reaches an answer or the log', async () => {
    const answers = JSON.stringify(await admin()('GET', notificationsPath).then(expectStatus(200)));
    const log = logger.lines.join('\n');
    for (const value of [SIGNING_KEY, CHAT_PATH_SECRET, HEADER_SECRET]) {
      expect(answers).not.toContain(value);
      expect(log).not.toContain(value);
    }
  });
});

describe('Issue 47, item 2: pause and resume (spec.suspend)', () => {
  it('a suspended Notification is sent nothing; resumed, it gets the events that come after', async () => {
    const patch = (suspend: boolean) =>
      send(
        platform().gateway.url,
        platform().tokens.admin,
        'PATCH',
        `${notificationsPath}/cloud`,
        { spec: { suspend } },
        'application/merge-patch+json',
      ).then(expectStatus(200));
    await patch(true);
    const before = receivers.cloudevents.received.length;
    const paused = await startRun('notified');
    await callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
    expect(receivers.cloudevents.received).toHaveLength(before);
    await patch(false);
    const resumed = await startRun('notified');
    await sweepUntil(() => receivers.cloudevents.received.length > before);
    const subjects = receivers.cloudevents.received.slice(before).map((request) => JSON.parse(request.body).subject);
    expect(subjects).toEqual([`runs/${resumed.id}`]);
    expect(subjects).not.toContain(`runs/${paused.id}`);
  });
});

describe('Issue 47, item 4: a delivery log per Notification, and redelivery of one event', () => {
  const deliveries = `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/signed/deliveries`;

  it("lists each attempt, newest first, with time, status code, latency and the answer's first bytes", async () => {
    const { items } = await admin()('GET', `${deliveries}?limit=5`).then(expectStatus(200));
    expect(items.length).toBeGreaterThan(0);
    expect(items[0]).toMatchObject({
      eventType: 'run.created',
      state: 'delivered',
      attempt: 1,
      statusCode: 200,
      answer: 'ok',
      latencyMs: expect.any(Number),
      startedAt: expect.stringMatching(/^\d{4}-/),
    });
    expect(items[0].error).toBeUndefined();
    const failing = await admin()(
      'GET',
      `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/borrowing/deliveries`,
    ).then(expectStatus(200));
    type Logged = { delivery: string; attempt: number; state: string; error: string; statusCode?: number };
    const oldest = (failing.items as Logged[]).filter((item) => item.delivery === failing.items.at(-1).delivery);
    expect(oldest.map((item) => item.attempt)).toEqual([3, 2, 1]);
    for (const item of oldest) {
      expect(item).toMatchObject({ state: 'failed', error: expect.stringMatching(/is not labelled/) });
      expect(item.statusCode).toBeUndefined();
    }
  });

  it('redelivers one event with the same id, as a delivery of its own', async () => {
    const { items } = await admin()('GET', `${deliveries}?limit=1`).then(expectStatus(200));
    const before = receivers.webhook.received.length;
    const again = await admin()('POST', `${deliveries}/${items[0].delivery}/redeliver`).then(expectStatus(201));
    expect(again.event).toBe(items[0].event);
    expect(again.delivery).not.toBe(items[0].delivery);
    await sweepUntil(() => receivers.webhook.received.length > before);
    expect(receivers.webhook.received.at(-1)!.headers['webhook-id']).toBe(items[0].event);
    expect((await admin()('POST', `${deliveries}/999999/redeliver`)).status).toBe(404);
  });

  it('kubectl platform notifications deliveries NOTIFICATION prints the log as a table', async () => {
    const { code, stdout } = await pluginUser().run(['notifications', 'deliveries', 'signed', '-n', TEAM_PROJECT]);
    expect(code).toBe(0);
    const [header, ...rows] = stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual([
      'TIME',
      'DELIVERY',
      'EVENT',
      'SUBJECT',
      'ATTEMPT',
      'STATE',
      'STATUS',
      'LATENCY',
      'ERROR',
    ]);
    expect(rows.some((row) => /run\.created\s+runs\/\S+\s+1\s+delivered\s+200\s+\d+ms/.test(row))).toBe(true);
  });

  it('an OIDC user without a grant on the Notification may neither read its log nor redeliver', async () => {
    expect((await callAs(platform, 'oidcUser')('GET', deliveries)).status).toBe(403);
    expect((await callAs(platform, 'oidcUser')('POST', `${deliveries}/1/redeliver`)).status).toBe(403);
  });
});

describe('Issue 47, item 3: the scheduled trigger is an internal route, authorized like /internal/*', () => {
  it('an OIDC user may not sweep', async () => {
    expect((await callAs(platform, 'oidcUser')('POST', '/internal/outbound/sweep')).status).toBe(403);
  });
});

describe('Issue 47, item 2: secrets appear in no delivery log, even from a receiver that echoes the request back', () => {
  it("the delivery log keeps the echoing answer's first bytes with every secret value taken out", async () => {
    const echo: TestReceiver['answer'] = (request, response) =>
      response.end(JSON.stringify({ path: request.path, headers: request.headers }));
    receivers.webhook.answer = echo;
    receivers.slack.answer = echo;
    try {
      const [webhookBefore, slackBefore] = [receivers.webhook.received.length, receivers.slack.received.length];
      await startRun('notified');
      await sweepUntil(
        () => receivers.webhook.received.length > webhookBefore && receivers.slack.received.length > slackBefore,
      );
      for (const name of ['signed', 'chat']) {
        const { items } = await admin()(
          'GET',
          `/api/v1alpha1/projects/${TEAM_PROJECT}/notifications/${name}/deliveries?limit=1`,
        ).then(expectStatus(200));
        // The echo came back (so it was read) with the secrets' places marked.
        expect(items[0].answer, name).toContain('[redacted]');
        for (const value of [SIGNING_KEY, CHAT_PATH_SECRET, HEADER_SECRET])
          expect(JSON.stringify(items), name).not.toContain(value);
      }
      const { rows } = await platform().database.pool.query(`SELECT answer_head, error FROM outbound_attempts`);
      const stored = JSON.stringify(rows);
      for (const value of [SIGNING_KEY, CHAT_PATH_SECRET, HEADER_SECRET]) expect(stored).not.toContain(value);
    } finally {
      receivers.webhook.answer = (_request, response) => response.end('ok');
      receivers.slack.answer = (_request, response) => response.end('ok');
    }
  });

  it('a receiver URL whose scheme is not http or https is refused at the write (422 naming the field), and not stored', async () => {
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'ftp://example.com/x', 'HTTP://x']) {
      const refused = await admin()(
        'POST',
        notificationsPath,
        notification('elsewhere', { events: ['RunFailed'], receiver: { type: 'cloudevents', url } }),
      );
      const text = await refused.text();
      expect(refused.status, `${url}: ${text}`).toBe(422);
      expect(text, url).toContain('spec.receiver.url');
    }
    expect((await admin()('GET', `${notificationsPath}/elsewhere`)).status).toBe(404);
  });
});

describe('Issue 47, item 1: "plan finished with changes or none" are events of their own', () => {
  const controller = () => callAs(platform, 'controller');
  /** Starts a plan in `workspace`, claims it as the controller and ends it with `body`; resolves to the answer. */
  async function finishedPlan(workspace: string, body: Record<string, unknown>): Promise<Response> {
    const run = await startRun(workspace);
    const claimed = (await controller()('POST', '/internal/runs/claim', {
      project: TEAM_PROJECT,
      workspace,
      leaseSeconds: 60,
    }).then(expectStatus(200))) as { run: { id: string }; lease: { id: string } };
    expect(claimed.run.id).toBe(run.id);
    return controller()('POST', `/internal/runs/${run.id}/phase`, { leaseId: claimed.lease.id, ...body });
  }

  it('the controller says whether a succeeded plan has changes; each Notification gets the one it asked for, the run records it', async () => {
    const [withChanges, withoutChanges] = [await startReceiver(), await startReceiver()];
    try {
      await send(
        platform().gateway.url,
        platform().tokens.admin,
        'POST',
        `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
        {
          ...workspaceObject('planned'),
        },
      ).then(expectStatus(201));
      for (const [name, event, receiver] of [
        ['changes', 'PlanFinishedWithChanges', withChanges],
        ['no-changes', 'PlanFinishedWithoutChanges', withoutChanges],
      ] as const)
        await admin()('POST', notificationsPath, {
          apiVersion: 'platform.dev/v1alpha1',
          kind: 'Notification',
          metadata: { name },
          spec: { events: [event], workspaces: ['planned'], receiver: { type: 'cloudevents', url: receiver.url } },
        }).then(expectStatus(201));

      const changed = await finishedPlan('planned', { phase: 'Succeeded', hasChanges: true }).then(expectStatus(200));
      expect(changed).toMatchObject({ phase: 'Succeeded', planHasChanges: true });
      const unchanged = await finishedPlan('planned', { phase: 'Succeeded', hasChanges: false }).then(
        expectStatus(200),
      );
      expect(unchanged).toMatchObject({ phase: 'Succeeded', planHasChanges: false });
      const unsaid = await finishedPlan('planned', { phase: 'Succeeded' }).then(expectStatus(200));
      expect(unsaid).toMatchObject({ planHasChanges: null });
      await sweepUntil(() => withChanges.received.length >= 1 && withoutChanges.received.length >= 1);
      // One more sweep: a plan whose controller did not say is neither.
      await callAs(platform, 'controller')('POST', '/internal/outbound/sweep').then(expectStatus(200));
      const events = (receiver: TestReceiver) =>
        receiver.received.map((request) => {
          const event = HTTP.toEvent({ headers: request.headers, body: request.body }) as CloudEvent<{
            run: { id: string; planHasChanges: boolean };
          }>;
          return { type: event.type, run: event.data!.run.id, planHasChanges: event.data!.run.planHasChanges };
        });
      expect(events(withChanges)).toEqual([
        { type: 'dev.platform.PlanFinishedWithChanges', run: (changed as { id: string }).id, planHasChanges: true },
      ]);
      expect(events(withoutChanges)).toEqual([
        {
          type: 'dev.platform.PlanFinishedWithoutChanges',
          run: (unchanged as { id: string }).id,
          planHasChanges: false,
        },
      ]);
    } finally {
      await Promise.all([withChanges.close(), withoutChanges.close()]);
    }
  });

  it('hasChanges other than with a succeeding plan is refused (400 InvalidPlanChanges), and the run is left as it was', async () => {
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      {
        ...workspaceObject('refusing'),
      },
    ).then(expectStatus(201));
    const refused = await finishedPlan('refusing', { phase: 'Failed', hasChanges: true });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ reason: 'InvalidPlanChanges' });
    const notBoolean = await finishedPlan('refusing', { phase: 'Succeeded', hasChanges: 'yes' });
    expect(notBoolean.status).toBe(400);
    expect(await notBoolean.json()).toMatchObject({ reason: 'InvalidPlanChanges' });
  });
});

describe('Issue 47, item 1: token created and revoked, override used (events that report no run phase)', () => {
  type Delivered = { type: string; subject: string; data: Record<string, unknown> };
  const cloudEventsOf = (receiver: TestReceiver): Delivered[] =>
    receiver.received.map((request) => {
      const event = HTTP.toEvent({ headers: request.headers, body: request.body }) as CloudEvent<
        Record<string, unknown>
      >;
      expect(event.validate()).toBe(true);
      return { type: event.type, subject: event.subject!, data: event.data! };
    });

  it('a token created and revoked through the API reaches the Notification that asks, in order, without the token; Workspace filters do not hold back a Project event', async () => {
    const receiver = await startReceiver();
    try {
      await admin()(
        'POST',
        notificationsPath,
        notification('token-watch', {
          events: ['TokenCreated', 'TokenRevoked'],
          workspaces: ['quiet'],
          receiver: { type: 'cloudevents', url: receiver.url },
        }),
      ).then(expectStatus(201));
      const tokens = `/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`;
      const created = await admin()('POST', tokens, {
        name: 'announced',
        description: 'deploy pipeline',
        role: { kind: 'Role', name: 'ci' },
        lifetime: '1h',
      }).then(expectStatus(201));
      expect((await admin()('DELETE', `${tokens}/announced`)).status).toBe(204);
      await sweepUntil(() => receiver.received.length >= 2);

      const delivered = cloudEventsOf(receiver);
      expect(delivered.map(({ type, subject }) => ({ type, subject }))).toEqual([
        { type: 'dev.platform.TokenCreated', subject: `tokens/${TEAM_PROJECT}/announced` },
        { type: 'dev.platform.TokenRevoked', subject: `tokens/${TEAM_PROJECT}/announced` },
      ]);
      expect(delivered[1]!.data).toMatchObject({
        event: 'TokenRevoked',
        project: TEAM_PROJECT,
        link: `https://console.example.io/#/projects/${TEAM_PROJECT}/tokens`,
        token: {
          name: 'announced',
          role: 'Role/ci',
          creator: 'admin',
          description: 'deploy pipeline',
          revokedAt: expect.any(String),
        },
      });
      expect(delivered[0]!.data).not.toHaveProperty('workspace');
      expect(JSON.stringify(receiver.received)).not.toContain(created.token);
      const source = JSON.parse(receiver.received[0]!.body).source;
      expect(source).toBe(`/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`);
    } finally {
      await receiver.close();
    }
  });

  it("an apply let through a freeze by an override is OverrideUsed on the run's subject, with who, why and what it overrode", async () => {
    const receiver = await startReceiver();
    const projectPath = `${API}/projects/${TEAM_PROJECT}`;
    const setPolicy = (approvalPolicy: unknown) =>
      admin()(
        'PATCH',
        projectPath,
        { spec: { approvalPolicy } },
        { 'content-type': 'application/merge-patch+json' },
      ).then(expectStatus(200));
    try {
      await admin()(
        'POST',
        notificationsPath,
        notification('override-watch', {
          events: ['OverrideUsed'],
          workspaces: ['notified'],
          receiver: { type: 'cloudevents', url: receiver.url },
        }),
      ).then(expectStatus(201));
      await setPolicy({ freeze: { active: true, reason: 'incident 4711', since: '2026-12-01T00:00:00Z' } });
      const reason = 'hotfix for incident 4711';
      const refused = await admin()('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/notified/runs`, {
        type: 'apply',
      });
      expect((await expectStatus(409)(refused)).reason).toBe('ProjectFrozen');
      const run = await admin()('POST', `/api/v1alpha1/projects/${TEAM_PROJECT}/workspaces/notified/runs`, {
        type: 'apply',
        override: { reason },
      }).then(expectStatus(201));
      await sweepUntil(() => receiver.received.length >= 1);

      const [delivered] = cloudEventsOf(receiver);
      expect(delivered).toMatchObject({
        type: 'dev.platform.OverrideUsed',
        subject: `runs/${run.id}`,
        data: {
          event: 'OverrideUsed',
          workspace: 'notified',
          run: { id: run.id, type: 'apply', override: { by: 'admin', reason, overrode: 'ProjectFrozen' } },
        },
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await setPolicy(null);
      await receiver.close();
    }
  });
});
