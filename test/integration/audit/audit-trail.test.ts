// Issue 22, "an audit trail: who did what, as whom, and what the server did for them": every request
// the policy records becomes an `audit.k8s.io/v1` Event naming the real caller (the admin, an OIDC
// user with the ServiceAccount it acted as, a ServiceAccount), the verb and object that were
// authorized, the decision and its reason, and the outcome; `Audit-Id` on every answer; no secret.
import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD } from '../../support/admin-fixtures.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { kubeAuditEventErrors } from '../../support/kube-audit-event-schema.ts';
import { login } from '../../support/function-servers.ts';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import {
  API,
  CALLER_ACCOUNT_USER,
  GROUP,
  OIDC_USER,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const capture = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [capture] });
const as =
  (who: 'admin' | 'oidcUser' | 'serviceAccount' | 'controller') => (method: string, path: string, body?: unknown) =>
    send(platform().gateway.url, platform().tokens[who], method, path, body);
const workspacesIn = (project: string) => `${API}/namespaces/${project}/workspaces`;

describe('issue 22: every answer carries the Audit-Id of its event, as kube-apiserver sends it', () => {
  it('a recorded write: the header is the event auditID', async () => {
    const response = await as('admin')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('audited-ws'));
    expect(response.status).toBe(201);
    expect(response.headers.get('audit-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(capture.completed(response).auditID).toBe(response.headers.get('audit-id'));
  });

  it('a read the default policy does not record still gets an Audit-Id, and no event', async () => {
    const response = await as('admin')('GET', workspacesIn(TEAM_PROJECT));
    expect(response.status).toBe(200);
    expect(response.headers.get('audit-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(capture.byAuditId(response.headers.get('audit-id'))).toEqual([]);
  });

  it('two requests never share an id', async () => {
    const [first, second] = await Promise.all([
      as('admin')('GET', `${API}/projects`),
      as('admin')('GET', `${API}/projects`),
    ]);
    expect(first!.headers.get('audit-id')).not.toBe(second!.headers.get('audit-id'));
  });
});

describe('issue 22: who did what, as whom', () => {
  it('the admin: user admin, the bypass marked, the authorized verb and object', async () => {
    const response = await as('admin')('POST', workspacesIn(OTHER_PROJECT), workspaceObject('admin-audited'));
    expect(response.status).toBe(201);
    expect(capture.completed(response)).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      stage: 'ResponseComplete',
      verb: 'create',
      requestURI: workspacesIn(OTHER_PROJECT),
      user: { username: 'admin' },
      sourceIPs: ['127.0.0.1'],
      objectRef: { resource: 'workspaces', namespace: OTHER_PROJECT, apiGroup: GROUP, apiVersion: 'v1alpha1' },
      responseStatus: { code: 201, status: 'Success' },
      annotations: {
        'authorization.k8s.io/decision': 'allow',
        'authorization.k8s.io/reason': 'the admin account bypasses authorization',
        'platform-api/admin-bypass': 'true',
      },
    });
    expect(capture.completed(response).impersonatedUser).toBeUndefined();
  });

  it('an OIDC user: its username and groups, and the ServiceAccount it acted as (impersonatedUser)', async () => {
    const response = await send(
      platform().gateway.url,
      platform().tokens.oidcUser,
      'PATCH',
      `${workspacesIn(TEAM_PROJECT)}/audited-ws`,
      { spec: { suspend: true } },
      'application/merge-patch+json',
    );
    expect(response.status).toBe(200);
    const event = capture.completed(response);
    expect(event).toMatchObject({
      verb: 'patch',
      user: { username: OIDC_USERNAME, groups: OIDC_USER.groups.map((group) => `oidc:${group}`) },
      impersonatedUser: { username: `system:serviceaccount:${TEST_NAMESPACE}:team-a-developer` },
      objectRef: { resource: 'workspaces', namespace: TEAM_PROJECT, name: 'audited-ws' },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(event.annotations!['authorization.k8s.io/reason']).toContain('team-a-developer');
    expect(event.annotations!['platform-api/admin-bypass']).toBeUndefined();
  });

  it('an OIDC user refused: 403, decision forbid with the reason, nothing marked allowed', async () => {
    const response = await as('oidcUser')('POST', workspacesIn(OTHER_PROJECT), workspaceObject('not-mine'));
    expect(response.status).toBe(403);
    const event = capture.completed(response);
    expect(event).toMatchObject({
      verb: 'create',
      user: { username: OIDC_USERNAME },
      objectRef: { resource: 'workspaces', namespace: OTHER_PROJECT },
      responseStatus: { code: 403, status: 'Failure', reason: 'Forbidden' },
      annotations: { 'authorization.k8s.io/decision': 'forbid' },
    });
    expect(event.annotations!['authorization.k8s.io/reason']).toContain(`namespace "${OTHER_PROJECT}"`);
  });

  it('a ServiceAccount: the user TokenReview returned, with its uid and groups', async () => {
    const response = await as('serviceAccount')('DELETE', `${workspacesIn(TEAM_PROJECT)}/audited-ws`);
    expect([200, 403]).toContain(response.status);
    expect(capture.completed(response)).toMatchObject({
      verb: 'delete',
      user: {
        username: CALLER_ACCOUNT_USER,
        uid: expect.any(String),
        groups: expect.arrayContaining(['system:serviceaccounts']),
      },
      objectRef: { resource: 'workspaces', namespace: TEAM_PROJECT, name: 'audited-ws' },
    });
  });

  it('the workspace controller: recorded in the controller group, on its non-resource path', async () => {
    const response = await as('controller')('GET', '/internal/no-such-route');
    expect(response.status).toBe(404);
    expect(capture.completed(response)).toMatchObject({
      verb: 'get',
      user: { username: `system:serviceaccount:${TEST_NAMESPACE}:workspace-controller` },
      responseStatus: { code: 404 },
      annotations: { 'authorization.k8s.io/decision': 'allow' },
    });
    expect(capture.completed(response).objectRef).toBeUndefined();
  });

  it('no token: 401, recorded as the anonymous user', async () => {
    const response = await fetch(`${platform().gateway.url}${workspacesIn(TEAM_PROJECT)}`);
    expect(response.status).toBe(401);
    expect(capture.completed(response)).toMatchObject({
      user: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      responseStatus: { code: 401, status: 'Failure' },
    });
  });
});

describe('issue 22: every login attempt, with its outcome', () => {
  it('a success and a wrong password are both recorded, with the outcome and the status', async () => {
    const good = await login(platform().gateway.url, ADMIN_PASSWORD);
    const bad = await login(platform().gateway.url, 'not the password');
    expect([good.status, bad.status]).toEqual([200, 403]);
    expect(capture.completed(good)).toMatchObject({
      verb: 'post',
      requestURI: '/api/v1alpha1/auth/login',
      responseStatus: { code: 200 },
      annotations: { 'platform-api/login-outcome': 'success' },
    });
    expect(capture.completed(bad)).toMatchObject({
      responseStatus: { code: 403, reason: 'InvalidPassword' },
      annotations: {
        'platform-api/login-outcome': 'wrong-password',
        // Issue 36: the account's budget after the attempt, counted where every instance sees it.
        'platform-api/login-account-failures': expect.stringMatching(/^[1-9]\d*\/20$/),
        'platform-api/login-failure-store': 'database',
      },
    });
  });

  it('a request without the password is recorded as malformed', async () => {
    const response = await fetch(`${platform().gateway.url}/api/v1alpha1/auth/login`, { method: 'POST' });
    expect(response.status).toBe(400);
    expect(capture.completed(response)).toMatchObject({
      responseStatus: { code: 400, reason: 'MissingPassword' },
      annotations: { 'platform-api/login-outcome': 'malformed' },
    });
  });
});

describe('issue 22: dry runs are marked, whether asked in the query or in the body', () => {
  it('a delete with a DeleteOptions body asking a dry run', async () => {
    await as('admin')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('dry-audited'));
    const response = await as('admin')('DELETE', `${workspacesIn(TEAM_PROJECT)}/dry-audited`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      dryRun: ['All'],
    });
    expect(response.status).toBe(200);
    expect(capture.completed(response).annotations).toMatchObject({ 'platform-api/dry-run': 'true' });
  });

  it('a create with ?dryRun=All', async () => {
    const response = await as('admin')('POST', `${workspacesIn(TEAM_PROJECT)}?dryRun=All`, workspaceObject('dry-made'));
    expect(response.status).toBe(201);
    expect(capture.completed(response)).toMatchObject({
      requestURI: `${workspacesIn(TEAM_PROJECT)}?dryRun=All`,
      annotations: { 'platform-api/dry-run': 'true' },
    });
  });
});

describe('issue 22: a watch is recorded when it opens and when it ends, and how', () => {
  it('ResponseStarted, then ResponseComplete with stream-end once the client leaves', async () => {
    const stop = new AbortController();
    const response = await fetch(`${platform().gateway.url}${workspacesIn(TEAM_PROJECT)}?watch=1`, {
      headers: { authorization: `Bearer ${platform().tokens.admin}` },
      signal: stop.signal,
    });
    expect(response.status).toBe(200);
    const auditId = response.headers.get('audit-id');
    expect(capture.byAuditId(auditId).map((event) => event.stage)).toEqual(['ResponseStarted']);
    stop.abort();
    await expect
      .poll(() => capture.byAuditId(auditId).map((event) => event.stage))
      .toEqual(['ResponseStarted', 'ResponseComplete']);
    expect(capture.byAuditId(auditId)[1]).toMatchObject({
      verb: 'watch',
      annotations: { 'platform-api/stream-end': 'closed' },
    });
  });
});

describe('issue 22: the events are valid audit.k8s.io/v1 Events, and hold no secret', () => {
  it('every event recorded by this file validates against the Event schema', () => {
    expect(capture.events.length).toBeGreaterThan(10);
    for (const event of capture.events) expect(kubeAuditEventErrors(event), JSON.stringify(event)).toEqual([]);
  });

  it('no password, token or Authorization value appears in any event', () => {
    const recorded = JSON.stringify(capture.events);
    const { admin, oidcUser, serviceAccount, controller } = platform().tokens;
    for (const secret of [ADMIN_PASSWORD, admin, oidcUser, serviceAccount, controller, 'Bearer ']) {
      expect(recorded).not.toContain(secret);
    }
  });
});
