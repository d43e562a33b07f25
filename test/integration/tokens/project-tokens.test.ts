// Issue 46: Project tokens for automation. A token is a bound, expiring ServiceAccount token in the
// Project's namespace (its own ServiceAccount, a RoleBinding of its role, a TokenRequest), verified by
// TokenReview and authorized by RBAC like any ServiceAccount; the database keeps only what the list shows.
// The platform runs as the chart deploys it (the chart's RBAC for the API server), on a real PostgreSQL.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditCapture } from '../../support/audit-capture.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import {
  API,
  CALLER_ACCOUNT,
  GROUP,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const logger = capturingLogger();
const audit = new AuditCapture();
const platform = usePlatform({}, { logger, auditSinks: [audit] });
const TOKENS = `/api/v1alpha1/projects/${TEAM_PROJECT}/tokens`;
/** Every token value a test was answered: none may appear in a log line, an audit event or a list. */
const issued: string[] = [];

const as = (token: string) => ({
  get: (path: string) => send(platform().gateway.url, token, 'GET', path),
  post: (path: string, body: unknown) => send(platform().gateway.url, token, 'POST', path, body),
  delete: (path: string) => send(platform().gateway.url, token, 'DELETE', path),
});
const admin = () => as(platform().tokens.admin);

async function createToken(
  name: string,
  role: { kind: 'Role' | 'ClusterRole'; name: string },
  by = admin(),
  lifetime = '24h',
): Promise<{ token: string } & Record<string, unknown>> {
  const body = await by.post(TOKENS, { name, description: `${name} pipeline`, role, lifetime }).then(expectStatus(201));
  issued.push(body.token);
  return body;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Issue 46, item 1: POST .../tokens answers the token once; GET lists it without its value', () => {
  it('creates a token with name, description, role and lifetime, and lists name, role, creator, created, expires, last used', async () => {
    const created = await createToken('deploy', { kind: 'Role', name: 'ci' });
    expect(created.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(created).toMatchObject({ name: 'deploy', role: 'Role/ci', creator: 'admin', lastUsedAt: null });
    const lifetimeMs = Date.parse(created.expiresAt as string) - Date.parse(created.createdAt as string);
    expect(Math.abs(lifetimeMs - 24 * 3600_000)).toBeLessThan(60_000);
    const list = await admin().get(TOKENS).then(expectStatus(200));
    const listed = list.items.find((item: { name: string }) => item.name === 'deploy');
    expect(listed).toEqual({
      name: 'deploy',
      description: 'deploy pipeline',
      role: 'Role/ci',
      creator: 'admin',
      createdAt: created.createdAt,
      expiresAt: created.expiresAt,
      lastUsedAt: null,
      lastUsedFrom: null,
    });
    expect(JSON.stringify(list)).not.toContain(created.token);
  });

  it('a second token of the same name is 409 TokenAlreadyExists, and the first still works', async () => {
    const first = await createToken('twice', { kind: 'Role', name: 'ci' });
    const again = await admin().post(TOKENS, { name: 'twice', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' });
    expect(again.status).toBe(409);
    expect((await again.json()).reason).toBe('TokenAlreadyExists');
    expect((await as(first.token).get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
  });

  it('the lifetime is required and at most 8760h (400 InvalidProjectToken); an unknown role is 404 TokenRoleNotFound', async () => {
    const refused = async (body: unknown) =>
      (
        await admin()
          .post(TOKENS, body)
          .then((r) => r.json())
      ).reason;
    const role = { kind: 'Role', name: 'ci' };
    expect(await refused({ name: 'forever', role })).toBe('InvalidProjectToken');
    expect(await refused({ name: 'forever', role, lifetime: '8761h' })).toBe('InvalidProjectToken');
    expect(await refused({ name: 'forever', role, lifetime: 'a year' })).toBe('InvalidProjectToken');
    expect(await refused({ name: 'brief', role, lifetime: '5m' })).toBe('InvalidProjectToken');
    expect(await refused({ name: 'Not_A_Label', role, lifetime: '1h' })).toBe('InvalidProjectToken');
    expect(await refused({ name: 'ghost', role: { kind: 'Role', name: 'ghost' }, lifetime: '1h' })).toBe(
      'TokenRoleNotFound',
    );
    const accounts = await platform().clusterAdmin.send<{ items: Array<{ metadata: { name: string } }> }>({
      method: 'GET',
      path: `/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts`,
    });
    expect(accounts.body.items.map((account) => account.metadata.name)).not.toContain('token-forever');
  });
});

describe('Issue 46, item 2: a token is a ServiceAccount token, authorized by RBAC like any ServiceAccount', () => {
  it('works for what its role allows and gets 403 elsewhere', async () => {
    const { token } = await createToken('reader', { kind: 'Role', name: 'ci' });
    const caller = as(token);
    expect((await caller.get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
    const write = await caller.post(`${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('by-token'));
    expect(write.status).toBe(403);
    expect((await caller.get(`${API}/namespaces/${OTHER_PROJECT}/workspaces`)).status).toBe(403);
  });

  it('is a labelled ServiceAccount token-<name> in the Project namespace, bound to the role, and ends with it', async () => {
    await createToken('cluster-side', { kind: 'Role', name: 'ci' });
    const account = await platform().clusterAdmin.send<{ metadata: { labels: Record<string, string> } }>({
      method: 'GET',
      path: `/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts/token-cluster-side`,
    });
    expect(account.body.metadata.labels).toEqual({ [`${GROUP}/project-token`]: 'cluster-side' });
    const binding = await platform().clusterAdmin.send<{ roleRef: unknown; subjects: unknown }>({
      method: 'GET',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_PROJECT}/rolebindings/token-cluster-side`,
    });
    expect(binding.body.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ci' });
    expect(binding.body.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'token-cluster-side', namespace: TEAM_PROJECT },
    ]);
  });

  it('expired is 401', async () => {
    const { token } = await createToken('short', { kind: 'Role', name: 'ci' }, admin(), '10m');
    const caller = as(token);
    expect((await caller.get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
    // Only the clock moves: past the token's `exp`, the cached verification ends and the signature check refuses it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 11 * 60_000 });
    const late = await caller.get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`);
    expect(late.status).toBe(401);
  });

  it('records its last use (time and client address) in the list, and its name in the audit events of its requests', async () => {
    const { token } = await createToken('used', { kind: 'Role', name: 'ci' });
    const response = await as(token).get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`);
    expect(response.status).toBe(200);
    let listed: { lastUsedAt: string | null; lastUsedFrom: string | null } | undefined;
    await vi.waitFor(
      async () => {
        const list = await admin().get(TOKENS).then(expectStatus(200));
        listed = list.items.find((item: { name: string }) => item.name === 'used');
        expect(listed?.lastUsedAt).not.toBeNull();
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(listed?.lastUsedFrom).toBe('127.0.0.1');
    // Reads are not recorded by the default policy; a write (here one its role refuses) is.
    const write = await as(token).post(`${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('used'));
    const event = audit.completed(write);
    expect(event.user.username).toBe(`system:serviceaccount:${TEAM_PROJECT}:token-used`);
    expect(event.user.extra?.[`${GROUP}/project-token`]).toEqual(['used']);
  });
});

describe('Review of issue 46: a name that collides with a ServiceAccount or RoleBinding the platform does not own is refused, never taken over', () => {
  const rbacPath = `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_PROJECT}/rolebindings`;
  const accountsPath = `/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts`;
  const cluster = () => platform().clusterAdmin;

  it('an existing ServiceAccount token-<name> is 409 TokenAlreadyExists and stays as it was, with no binding to it', async () => {
    await cluster().send({
      method: 'POST',
      path: accountsPath,
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'token-squat' } },
    });
    const before = await cluster().find<{ metadata: Record<string, unknown> }>(`${accountsPath}/token-squat`);
    const refused = await admin().post(TOKENS, { name: 'squat', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).reason).toBe('TokenAlreadyExists');
    expect(await cluster().find(`${accountsPath}/token-squat`)).toEqual(before);
    expect(await cluster().find(`${rbacPath}/token-squat`)).toBeUndefined();
  });

  it('an existing RoleBinding token-<name> is 409 TokenAlreadyExists and is neither deleted nor changed; no ServiceAccount is left', async () => {
    await cluster().send({
      method: 'POST',
      path: rbacPath,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'token-bound' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ci' },
        subjects: [{ kind: 'ServiceAccount', name: 'someone-else', namespace: TEAM_PROJECT }],
      },
    });
    const before = await cluster().find(`${rbacPath}/token-bound`);
    const refused = await admin().post(TOKENS, { name: 'bound', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).reason).toBe('TokenAlreadyExists');
    expect(await cluster().find(`${rbacPath}/token-bound`)).toEqual(before);
    expect(await cluster().find(`${accountsPath}/token-bound`)).toBeUndefined();
  });
});

describe('Issue 46, item 3: no escalation', () => {
  it('a caller without a right cannot mint a token with it (403), but may hand on what it holds; a token creates tokens only if its role says so', async () => {
    // The CI ServiceAccount may manage tokens in its Project, and holds the `ci` role there, not `developer`.
    await bindRole(
      platform().cluster,
      TEAM_PROJECT,
      'token-manager',
      [{ apiGroups: [GROUP], resources: ['tokens'], verbs: ['create', 'list', 'delete'] }],
      CALLER_ACCOUNT,
    );
    const ci = as(platform().tokens.serviceAccount);
    const escalating = await ci.post(TOKENS, {
      name: 'escalate',
      role: { kind: 'Role', name: 'developer' },
      lifetime: '1h',
    });
    expect(escalating.status).toBe(403);
    expect((await escalating.json()).error).toContain('Role/developer');
    const handedOn = await createToken('handed-on', { kind: 'Role', name: 'ci' }, ci);
    expect(handedOn.creator).toBe(`system:serviceaccount:${TEST_NAMESPACE}:${CALLER_ACCOUNT}`);
    // Its role (`ci`) grants nothing on `tokens`: the token cannot create more.
    const minted = await as(handedOn.token).post(TOKENS, {
      name: 'grandchild',
      role: { kind: 'Role', name: 'ci' },
      lifetime: '1h',
    });
    expect(minted.status).toBe(403);
  });

  it('a role granting more than the API server holds (wildcards) is 403 Forbidden, saying so, not a 503 to retry; nothing is left', async () => {
    await platform().clusterAdmin.send({
      method: 'POST',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_PROJECT}/roles`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'everything' },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      },
    });
    const refused = await admin().post(TOKENS, {
      name: 'wildcard',
      role: { kind: 'Role', name: 'everything' },
      lifetime: '1h',
    });
    const body = await refused.json();
    expect(refused.status, JSON.stringify(body)).toBe(403);
    expect(body).toMatchObject({
      reason: 'Forbidden',
      error: expect.stringMatching(/Role\/everything.*more than the API server/),
    });
    expect(
      await platform().clusterAdmin.find(`/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts/token-wildcard`),
    ).toBeUndefined();
    expect(
      (await admin().get(TOKENS).then(expectStatus(200))).items.map((item: { name: string }) => item.name),
    ).not.toContain('wildcard');
  });

  it('a token creates tokens only if its own role names `tokens` explicitly: rights by wildcards bound to it otherwise do not count', async () => {
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${TEAM_PROJECT}`;
    const create = (resource: string, body: Record<string, unknown>) =>
      platform().clusterAdmin.send({
        method: 'POST',
        path: `${rbac}/${resource}`,
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', ...body },
      });
    const wild = await createToken('wild', { kind: 'Role', name: 'ci' });
    // Someone with cluster rights binds a wildcard Role to the token's ServiceAccount beside its own.
    await create('roles', {
      kind: 'Role',
      metadata: { name: 'all-of-it' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    await create('rolebindings', {
      kind: 'RoleBinding',
      metadata: { name: 'wild-all-of-it' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'all-of-it' },
      subjects: [{ kind: 'ServiceAccount', name: 'token-wild', namespace: TEAM_PROJECT }],
    });
    const refused = await as(wild.token).post(TOKENS, {
      name: 'wild-child',
      role: { kind: 'Role', name: 'ci' },
      lifetime: '1h',
    });
    const body = await refused.json();
    expect(refused.status, JSON.stringify(body)).toBe(403);
    expect(body.error).toMatch(/Project token "wild".*Role\/ci.*tokens/);
    await create('roles', {
      kind: 'Role',
      metadata: { name: 'minter' },
      rules: [{ apiGroups: [GROUP], resources: ['tokens'], verbs: ['create'] }],
    });
    const minter = await createToken('minter', { kind: 'Role', name: 'minter' });
    const minted = await createToken('minted', { kind: 'Role', name: 'minter' }, as(minter.token));
    expect(minted.creator).toBe(`system:serviceaccount:${TEAM_PROJECT}:token-minter`);
  });

  it('a caller without `create` on tokens gets 403, and `kubectl auth can-i create tokens` says so', async () => {
    const oidc = as(platform().tokens.oidcUser);
    expect((await oidc.post(TOKENS, { name: 'mine', role: { kind: 'Role', name: 'ci' }, lifetime: '1h' })).status).toBe(
      403,
    );
    const review = (token: string) =>
      send(platform().gateway.url, token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { namespace: TEAM_PROJECT, verb: 'create', group: GROUP, resource: 'tokens' } },
      }).then(expectStatus(201));
    expect((await review(platform().tokens.oidcUser)).status.allowed).toBe(false);
    expect((await review(platform().tokens.serviceAccount)).status.allowed).toBe(true);
  });
});

describe('Issue 46, item 4: revocation', () => {
  it('DELETE revokes at once: 204, then 401 for the token (no cache lifetime to wait), gone from the list, 404 again', async () => {
    const { token } = await createToken('revoked', { kind: 'Role', name: 'ci' });
    const caller = as(token);
    expect((await caller.get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
    expect((await admin().delete(`${TOKENS}/revoked`)).status).toBe(204);
    expect((await caller.get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(401);
    const list = await admin().get(TOKENS).then(expectStatus(200));
    expect(list.items.map((item: { name: string }) => item.name)).not.toContain('revoked');
    const again = await admin().delete(`${TOKENS}/revoked`);
    expect(again.status).toBe(404);
    expect((await again.json()).reason).toBe('TokenNotFound');
    const account = await platform()
      .clusterAdmin.send({
        method: 'GET',
        path: `/api/v1/namespaces/${TEAM_PROJECT}/serviceaccounts/token-revoked`,
      })
      .catch((error: { status?: number }) => error.status);
    expect(account).toBe(404);
  });

  it('counts tokens created and revoked by Project in the metrics', async () => {
    const metrics = await admin().get('/metrics');
    const text = await metrics.text();
    const count = (event: string) =>
      Number(
        new RegExp(
          `^platform_api_project_tokens_total\\{project="${TEAM_PROJECT}",event="${event}"\\} (\\d+)$`,
          'm',
        ).exec(text)?.[1],
      );
    expect(count('created')).toBeGreaterThanOrEqual(5);
    expect(count('revoked')).toBe(1);
  });
});

describe('Issue 46: the value is in no log line, audit event or list answer', () => {
  it('a token created, used, refused, listed and revoked leaves its value in no log line, audit event (the sinks and the database) or list answer', async () => {
    const { token } = await createToken('unseen', { kind: 'Role', name: 'ci' });
    expect((await as(token).get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(200);
    expect(
      (await as(token).post(`${API}/namespaces/${TEAM_PROJECT}/workspaces`, workspaceObject('unseen'))).status,
    ).toBe(403);
    const list = JSON.stringify(await admin().get(TOKENS).then(expectStatus(200)));
    const revoke = await admin().delete(`${TOKENS}/unseen`);
    expect(revoke.status).toBe(204);
    expect((await as(token).get(`${API}/namespaces/${TEAM_PROJECT}/workspaces`)).status).toBe(401);
    // The database sink writes in batches: wait until it holds the revocation's event.
    const database = platform().database.pool;
    await vi.waitFor(
      async () => {
        const { rows } = await database.query(
          `SELECT count(*)::int AS n FROM audit_events WHERE verb = 'delete' AND resource = 'tokens' AND name = 'unseen'`,
        );
        expect(rows[0].n).toBeGreaterThan(0);
      },
      { timeout: 20_000, interval: 200 },
    );
    const stored = await database.query(
      `SELECT (SELECT coalesce(string_agg(e::text, ''), '') FROM audit_events e) ||
              (SELECT coalesce(string_agg(t::text, ''), '') FROM project_tokens t) AS text`,
    );
    const logs = logger.lines.join('\n');
    const events = JSON.stringify(audit.events);
    expect(logs).toContain('unseen');
    for (const value of issued) {
      expect(list).not.toContain(value);
      expect(logs).not.toContain(value);
      expect(events).not.toContain(value);
      expect(stored.rows[0].text).not.toContain(value);
    }
    // The audit trail names the tokens created and revoked, never their values.
    const created = audit.events.filter(
      (event) => event.stage === 'ResponseComplete' && event.requestURI === TOKENS && event.verb === 'create',
    );
    expect(created.map((event) => event.annotations?.['platform-api/project-token'])).toContain('unseen');
  });
});
