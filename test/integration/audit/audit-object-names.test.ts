// Issue 38, item 8: audit events that can answer "who created X". A create's event had no
// `objectRef.name` (the path names only the collection), so `?name=` missed the creation;
// kube-apiserver fills the name, and the namespace, from the object in the request. A successful
// admin login was recorded as `system:anonymous`, though it established `admin`.
import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD } from '../../support/admin-fixtures.ts';
import { AuditCapture } from '../../support/audit-capture.ts';
import { login } from '../../support/function-servers.ts';
import {
  API,
  expectStatus,
  GROUP,
  OIDC_USERNAME,
  projectObject,
  send,
  TEAM_PROJECT,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const capture = new AuditCapture();
const platform = usePlatform({}, { auditSinks: [capture] });
const as = (who: 'admin' | 'oidcUser') => (method: string, path: string, body?: unknown, contentType?: string) =>
  send(platform().gateway.url, platform().tokens[who], method, path, body, contentType);
const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

describe('a create names what it created, as kube-apiserver fills objectRef from the request object', () => {
  it('a Workspace created by an OIDC user: objectRef names it and its namespace', async () => {
    const response = await as('oidcUser')('POST', workspaces, workspaceObject('named-by-oidc'));
    expect(response.status).toBe(201);
    expect(capture.completed(response)).toMatchObject({
      verb: 'create',
      user: { username: OIDC_USERNAME },
      objectRef: { resource: 'workspaces', namespace: TEAM_PROJECT, name: 'named-by-oidc', apiGroup: GROUP },
    });
  });

  it('a Project (cluster-scoped): objectRef names it, with no namespace', async () => {
    const response = await as('admin')('POST', `${API}/projects`, projectObject('named-project'));
    expect(response.status).toBe(201);
    const event = capture.completed(response);
    expect(event.objectRef).toMatchObject({ resource: 'projects', name: 'named-project' });
    expect(event.objectRef?.namespace).toBeUndefined();
  });

  it('a create the cluster refuses (the name is taken) still names the object it was for', async () => {
    await as('admin')('POST', workspaces, workspaceObject('taken-name')).then(expectStatus(201));
    const response = await as('admin')('POST', workspaces, workspaceObject('taken-name'));
    expect(response.status).toBe(409);
    expect(capture.completed(response).objectRef).toMatchObject({ name: 'taken-name', namespace: TEAM_PROJECT });
  });

  it('generateName: the event names the object the cluster created', async () => {
    const object = workspaceObject('');
    (object.metadata as Record<string, unknown>) = { generateName: 'generated-' };
    const response = await as('admin')('POST', workspaces, object);
    expect(response.status).toBe(201);
    const created = ((await response.json()) as { metadata: { name: string } }).metadata.name;
    expect(created).toMatch(/^generated-[a-z0-9]{5}$/);
    expect(capture.completed(response).objectRef).toMatchObject({ name: created, namespace: TEAM_PROJECT });
  });

  it('server-side apply creating an object names it (from the path it was authorized on)', async () => {
    const response = await as('admin')(
      'PATCH',
      `${workspaces}/applied-new?fieldManager=kubectl&force=false`,
      workspaceObject('applied-new'),
      'application/apply-patch+yaml',
    );
    expect(response.status).toBe(201);
    expect(capture.completed(response).objectRef).toMatchObject({ name: 'applied-new', namespace: TEAM_PROJECT });
  });

  it('the audit API finds the creation by `?name=`', async () => {
    await as('admin')('POST', workspaces, workspaceObject('found-by-name')).then(expectStatus(201));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const page = await as('admin')('GET', `/api/v1alpha1/audit/events?name=found-by-name&verb=create`).then(
        expectStatus(200),
      );
      if (page.items.length > 0) {
        expect(page.items[0]).toMatchObject({ user: { username: 'admin' }, objectRef: { namespace: TEAM_PROJECT } });
        break;
      }
      if (Date.now() > deadline) throw new Error('the creation was not found by ?name=');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
});

describe('a login is recorded as the user it established', () => {
  it('a successful admin login: user admin, not system:anonymous', async () => {
    const response = await login(platform().gateway.url, ADMIN_PASSWORD);
    expect(response.status).toBe(200);
    expect(capture.completed(response)).toMatchObject({
      user: { username: 'admin' },
      annotations: { 'platform-api/login-outcome': 'success' },
    });
  });

  it('a failed login stays anonymous: it established no one', async () => {
    const response = await login(platform().gateway.url, 'not the password');
    expect(response.status).toBe(403);
    expect(capture.completed(response).user).toEqual({
      username: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
  });
});
