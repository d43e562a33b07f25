// Issue 22, the PostgreSQL sink and the API that reads it: events are batched into an append-only
// table, read back by `GET /api/v1alpha1/audit/events` with filters and keyset pages (authorized by
// a SubjectAccessReview on the non-resource URL), kept for AUDIT_RETENTION, and AUDIT_MODE=blocking
// refuses a write it cannot record. Real PostgreSQL, real emulator, real OpenID Provider.
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../../shared/domain/audit/audit-event.ts';
import { AuditStore } from '../../../shared/domain/audit/audit-store.ts';
import { microTime } from '../../../shared/domain/audit/audit-event-builder.ts';
import {
  API,
  CALLER_ACCOUNT,
  CALLER_ACCOUNT_USER,
  OIDC_USERNAME,
  TEAM_PROJECT,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';

const platform = usePlatform({ AUDIT_STDOUT: 'false' });
const as = (who: 'admin' | 'oidcUser' | 'serviceAccount') => (method: string, path: string, body?: unknown) =>
  send(platform().gateway.url, platform().tokens[who], method, path, body);
const EVENTS = '/api/v1alpha1/audit/events';

interface EventList {
  kind: string;
  apiVersion: string;
  metadata: { continue?: string };
  items: AuditEvent[];
}

async function events(query: string, who: 'admin' | 'serviceAccount' = 'admin'): Promise<EventList> {
  const response = await as(who)('GET', `${EVENTS}${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as EventList;
}

/** The stored events of the request whose answer carried this Audit-Id (batched: polled until written). */
async function storedFor(response: Response): Promise<AuditEvent[]> {
  const auditId = response.headers.get('audit-id')!;
  let found: AuditEvent[] = [];
  await expect
    .poll(
      async () => (found = (await events('?limit=500')).items.filter((event) => event.auditID === auditId)).length,
      {
        timeout: 10_000,
      },
    )
    .toBeGreaterThan(0);
  return found;
}

describe('issue 22: events reach PostgreSQL and the audit API finds them', () => {
  it('a write, as kube-apiserver would record it, found by its Audit-Id', async () => {
    const response = await as('admin')(
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/workspaces`,
      workspaceObject('db-audited'),
    );
    expect(response.status).toBe(201);
    const [event] = await storedFor(response);
    expect(event).toMatchObject({
      apiVersion: 'audit.k8s.io/v1',
      stage: 'ResponseComplete',
      verb: 'create',
      user: { username: 'admin' },
      objectRef: { resource: 'workspaces', namespace: TEAM_PROJECT },
      responseStatus: { code: 201 },
    });
  });

  it('filters by user, verb, namespace, name and outcome', async () => {
    const refused = await as('oidcUser')('DELETE', `${API}/namespaces/team-b/workspaces/whatever`);
    expect(refused.status).toBe(403);
    await storedFor(refused);
    const byUser = await events(`?user=${encodeURIComponent(OIDC_USERNAME)}&outcome=refused`);
    expect(byUser.items.length).toBeGreaterThan(0);
    for (const event of byUser.items) {
      expect(event.user.username).toBe(OIDC_USERNAME);
      expect([401, 403, 429]).toContain(event.responseStatus!.code);
    }
    const byObject = await events(`?verb=create&resource=workspaces&namespace=${TEAM_PROJECT}&name=`);
    expect(
      byObject.items.every((event) => event.verb === 'create' && event.objectRef?.namespace === TEAM_PROJECT),
    ).toBe(true);
    const successes = await events('?outcome=success');
    expect(successes.items.every((event) => event.responseStatus!.code < 400)).toBe(true);
  });

  it('filters by time: nothing before the server started, nothing after now', async () => {
    expect((await events('?until=2000-01-01T00:00:00Z')).items).toEqual([]);
    expect((await events(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).items).toEqual(
      [],
    );
  });

  it('pages keyset-wise: every event once, oldest first, across pages of 2', async () => {
    const all = (await events('?limit=500')).items;
    const paged: AuditEvent[] = [];
    let token: string | undefined;
    do {
      const page = await events(`?limit=2${token ? `&continue=${token}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      paged.push(...page.items);
      token = page.metadata.continue;
    } while (token);
    const key = (event: AuditEvent) => `${event.auditID}/${event.stage}`;
    expect(paged.map(key).slice(0, all.length)).toEqual(all.map(key));
    expect(new Set(paged.map(key)).size).toBe(paged.length);
    const times = paged.map((event) => event.stageTimestamp);
    expect([...times].sort()).toEqual(times);
  });

  it('refuses a bad filter, limit or continue token with 400 naming it, never 500', async () => {
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?since=yesterday',
      '?since=2026-13-45T00:00:00Z',
      // Days and times JavaScript's Date would roll over to another day.
      '?since=2026-02-30T00:00:00Z',
      '?until=2026-01-01T24:00:00Z',
      '?until=2026-01-01T23:59:60Z',
      '?run=nope',
      '?outcome=maybe',
      '?continue=garbage',
      '?colour=blue',
    ]) {
      const response = await as('admin')('GET', `${EVENTS}${query}`);
      expect(response.status, query).toBe(400);
    }
  });
});

describe('issue 22: reading the trail is authorized by RBAC (list events.audit.k8s.io), not open to every user', () => {
  it("a ServiceAccount with only the cluster's default grants (system:discovery: get /api/*) is refused 403; granted list on events.audit.k8s.io, it reads", async () => {
    const refused = await as('serviceAccount')('GET', EVENTS);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('list events.audit.k8s.io');
    await grantAuditReading(CALLER_ACCOUNT);
    // The SubjectAccessReview cache keeps a denial for 30 s; a new token is a new principal to review.
    await expect
      .poll(async () => (await as('serviceAccount')('GET', EVENTS)).status, { timeout: 40_000, interval: 2_000 })
      .toBe(200);
    const mine = await events(`?user=${encodeURIComponent(CALLER_ACCOUNT_USER)}`, 'serviceAccount');
    expect(mine.items.some((event) => event.requestURI === EVENTS && event.responseStatus?.code === 403)).toBe(true);
  }, 60_000);
});

/** A ClusterRole allowing `list` on `events` of `audit.k8s.io`, bound to the ServiceAccount (as a platform team would). */
async function grantAuditReading(account: string): Promise<void> {
  const rbac = platform().cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name: 'audit-reader' },
      rules: [{ apiGroups: ['audit.k8s.io'], resources: ['events'], verbs: ['list'] }],
    },
  });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: 'audit-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'audit-reader' },
      subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: account }],
    },
  });
}

describe("issue 22: the table is append-only for the server's own role", () => {
  it('UPDATE, DELETE and TRUNCATE are refused; INSERT and SELECT work', async () => {
    const client = new pg.Client({ connectionString: platform().database.connectionString });
    await client.connect();
    try {
      expect(Number((await client.query('SELECT count(*) FROM audit_events')).rows[0].count)).toBeGreaterThan(0);
      await expect(client.query("UPDATE audit_events SET username = 'someone-else'")).rejects.toThrow(
        /permission denied|append-only/,
      );
      await expect(client.query('DELETE FROM audit_events')).rejects.toThrow(/permission denied|append-only/);
      await expect(client.query('TRUNCATE audit_events')).rejects.toThrow(/permission denied|append-only/);
    } finally {
      await client.end();
    }
  });
});

describe('issue 22: AUDIT_RETENTION drops whole past days, without locking writers', () => {
  const event = (at: Date, auditID: string): AuditEvent => ({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage: 'ResponseComplete',
    requestURI: '/retention-test',
    verb: 'get',
    user: { username: 'retention-test' },
    sourceIPs: [],
    requestReceivedTimestamp: microTime(at),
    stageTimestamp: microTime(at),
  });

  it('an event holding a NUL (an OIDC claim may) is stored, the NUL replaced, never refused or lost', async () => {
    const store = new AuditStore(platform().database.pool);
    const withNul = {
      ...event(new Date(), '00000000-0000-4000-8000-0000000000aa'),
      user: { username: 'nul\u0000user' },
    };
    await store.insert([withNul]);
    const found = (await events('?user=nul%EF%BF%BDuser')).items;
    expect(found.map((stored) => stored.user.username)).toEqual(['nul\uFFFDuser']);
  });

  it('the text of an escaped NUL (a backslash, then u0000) is kept as it was written, not taken for a NUL', async () => {
    const store = new AuditStore(platform().database.pool);
    const username = 'text\\u0000user\\';
    await store.insert([{ ...event(new Date(), '00000000-0000-4000-8000-0000000000ab'), user: { username } }]);
    const found = (await events(`?user=${encodeURIComponent(username)}`)).items;
    expect(found.map((stored) => stored.user.username)).toEqual([username]);
  });

  it('days older than the retention go, younger days stay; a writer is not held up meanwhile', async () => {
    const store = new AuditStore(platform().database.pool);
    const day = 86_400_000;
    const now = Date.now();
    await store.insert([
      event(new Date(now - 100 * day), '00000000-0000-4000-8000-000000000100'),
      event(new Date(now - 95 * day), '00000000-0000-4000-8000-000000000095'),
      event(new Date(now - 10 * day), '00000000-0000-4000-8000-000000000010'),
    ]);
    // A writer's transaction open on today's partition while retention runs.
    const writer = new pg.Client({ connectionString: platform().database.connectionString });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await new AuditStore(writer).insert([event(new Date(), '00000000-0000-4000-8000-000000000001')]);
      const dropping = store.dropDaysBefore(new Date(now - 90 * day));
      // Another writer inserts while the detach is under way: it is not blocked.
      const started = Date.now();
      await new AuditStore(platform().database.pool).insert([
        event(new Date(), '00000000-0000-4000-8000-000000000002'),
      ]);
      expect(Date.now() - started).toBeLessThan(2_000);
      await writer.query('COMMIT');
      const dropped = await dropping;
      expect(dropped).toHaveLength(2);
    } finally {
      await writer.end();
    }
    const left = (await events('?user=retention-test&limit=500')).items.map((kept) => kept.auditID);
    expect(left).toEqual(
      expect.arrayContaining(['00000000-0000-4000-8000-000000000010', '00000000-0000-4000-8000-000000000002']),
    );
    expect(left).not.toContain('00000000-0000-4000-8000-000000000100');
    expect(left).not.toContain('00000000-0000-4000-8000-000000000095');
  });
});
