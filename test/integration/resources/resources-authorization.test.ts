// Authorization of the resource routes: the admin bypasses; an OIDC user (mapped to a ServiceAccount
// with a namespaced Role) and a ServiceAccount are checked by SubjectAccessReview on the kind, verb,
// namespace and name; changes are then written by the API server's own ServiceAccount.
import { describe, expect, it } from 'vitest';
import {
  API,
  CALLER_ACCOUNT_USER,
  OIDC_USERNAME,
  OTHER_PROJECT,
  TEAM_PROJECT,
  bindRole,
  expectStatus,
  projectObject,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const as =
  (who: 'admin' | 'oidcUser' | 'serviceAccount') =>
  (method: string, path: string, body?: unknown, contentType?: string) =>
    send(platform().gateway.url, platform().tokens[who], method, path, body, contentType);
const workspacesIn = (project: string) => `${API}/namespaces/${project}/workspaces`;
const APPLY = 'application/apply-patch+yaml';
const applied = (name: string) => `${workspacesIn(TEAM_PROJECT)}/${name}?fieldManager=tests`;
const labelOf = async (name: string) =>
  (
    await platform().clusterAdmin.find<{ metadata: { labels?: Record<string, string> } }>(
      `${workspacesIn(TEAM_PROJECT)}/${name}`,
    )
  )?.metadata.labels?.applied;

describe('Admin: bypasses every authorization check', () => {
  it('creates and deletes a Project, the cluster-scoped kind', async () => {
    await as('admin')('POST', `${API}/projects`, projectObject('admin-made')).then(expectStatus(201));
    await as('admin')('DELETE', `${API}/projects/admin-made`).then(expectStatus(200));
  });

  it('writes Workspaces in any Project', async () => {
    for (const project of [TEAM_PROJECT, OTHER_PROJECT])
      await as('admin')('POST', workspacesIn(project), workspaceObject('admin-ws')).then(expectStatus(201));
  });
});

describe('OIDC user: claims map to a ServiceAccount, whose namespaced Role decides (SubjectAccessReview)', () => {
  it('knows who it is', async () => {
    expect(await as('oidcUser')('GET', '/api/v1alpha1/auth/whoami').then(expectStatus(200))).toEqual({
      type: 'oidc',
      name: OIDC_USERNAME,
    });
  });

  it('lists, creates, updates, patches and deletes Workspaces in its own Project', async () => {
    const user = as('oidcUser');
    const created = await user('POST', workspacesIn(TEAM_PROJECT), workspaceObject('alice-ws')).then(expectStatus(201));
    await user('GET', workspacesIn(TEAM_PROJECT)).then(expectStatus(200));
    await user('PUT', `${workspacesIn(TEAM_PROJECT)}/alice-ws`, {
      ...created,
      spec: { ...created.spec, autoApply: true },
    }).then(expectStatus(200));
    await user(
      'PATCH',
      `${workspacesIn(TEAM_PROJECT)}/alice-ws`,
      { spec: { suspend: true } },
      'application/merge-patch+json',
    ).then(expectStatus(200));
    await user('DELETE', `${workspacesIn(TEAM_PROJECT)}/alice-ws`).then(expectStatus(200));
  });

  it('is refused in another Project with a 403 Status, and the denied write leaves nothing behind', async () => {
    const denied = await as('oidcUser')('POST', workspacesIn(OTHER_PROJECT), workspaceObject('sneaky')).then(
      expectStatus(403),
    );
    expect(denied).toMatchObject({
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      error: expect.stringContaining(`namespace "${OTHER_PROJECT}"`),
    });
    expect(await platform().clusterAdmin.find(`${workspacesIn(OTHER_PROJECT)}/sneaky`)).toBeUndefined();
    await as('oidcUser')('GET', workspacesIn(OTHER_PROJECT)).then(expectStatus(403));
  });

  it('may not create a Project (cluster-scoped) with a namespaced Role; neither the Project nor its namespace appears', async () => {
    await as('oidcUser')('POST', `${API}/projects`, projectObject('alice-project')).then(expectStatus(403));
    expect(await platform().clusterAdmin.find(`${API}/projects/alice-project`)).toBeUndefined();
    expect(await platform().clusterAdmin.find('/api/v1/namespaces/alice-project')).toBeUndefined();
  });

  it('may not delete what it may not touch: the object is still there', async () => {
    await as('admin')('POST', workspacesIn(OTHER_PROJECT), workspaceObject('keep-me')).then(expectStatus(201));
    await as('oidcUser')('DELETE', `${workspacesIn(OTHER_PROJECT)}/keep-me`).then(expectStatus(403));
    expect(await platform().clusterAdmin.find(`${workspacesIn(OTHER_PROJECT)}/keep-me`)).toBeDefined();
  });
});

describe('ServiceAccount: standard RBAC on its own token (TokenReview, then SubjectAccessReview)', () => {
  it('knows who it is', async () => {
    expect(await as('serviceAccount')('GET', '/api/v1alpha1/auth/whoami').then(expectStatus(200))).toEqual({
      type: 'serviceaccount',
      name: CALLER_ACCOUNT_USER,
    });
  });

  it('reads Workspaces its Role allows', async () => {
    await as('admin')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('ci-visible')).then(expectStatus(201));
    await as('serviceAccount')('GET', `${workspacesIn(TEAM_PROJECT)}/ci-visible`).then(expectStatus(200));
    await as('serviceAccount')('GET', workspacesIn(TEAM_PROJECT)).then(expectStatus(200));
  });

  it('is refused writes its Role does not grant, and nothing changes', async () => {
    await as('serviceAccount')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('ci-made')).then(expectStatus(403));
    expect(await platform().clusterAdmin.find(`${workspacesIn(TEAM_PROJECT)}/ci-made`)).toBeUndefined();
    await as('serviceAccount')(
      'PATCH',
      `${workspacesIn(TEAM_PROJECT)}/ci-visible`,
      { metadata: { labels: { touched: 'yes' } } },
      'application/merge-patch+json',
    ).then(expectStatus(403));
    const unchanged = await platform().clusterAdmin.find<{ metadata: { labels?: Record<string, string> } }>(
      `${workspacesIn(TEAM_PROJECT)}/ci-visible`,
    );
    expect(unchanged?.metadata.labels?.touched).toBeUndefined();
    await as('serviceAccount')('GET', `${API}/namespaces/${TEAM_PROJECT}/variablesets`).then(expectStatus(403));
  });
});

describe('issue 20: server-side apply is authorized as exactly `patch`, plus `create` when the object is new', () => {
  it('a caller with only get and list is refused 403, for an existing Workspace and a new one, and nothing changes', async () => {
    await as('admin')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('apply-existing')).then(expectStatus(201));
    const ci = as('serviceAccount');
    const body = (name: string) => workspaceObject(name, { applied: 'by-ci' });
    await ci('PATCH', applied('apply-existing'), body('apply-existing'), APPLY).then(expectStatus(403));
    await ci('PATCH', applied('apply-new-ci'), body('apply-new-ci'), APPLY).then(expectStatus(403));
    expect(await labelOf('apply-existing')).toBeUndefined();
    expect(await platform().clusterAdmin.find(`${workspacesIn(TEAM_PROJECT)}/apply-new-ci`)).toBeUndefined();
  });

  it('a caller with patch but not create applies to an existing Workspace, and cannot create one by apply (403, nothing created)', async () => {
    const { cluster } = platform();
    await cluster.createServiceAccount('team-a-patcher');
    await bindRole(
      cluster,
      TEAM_PROJECT,
      'patcher',
      [{ apiGroups: ['platform.dev'], resources: ['workspaces'], verbs: ['get', 'patch'] }],
      'team-a-patcher',
    );
    const token = await cluster.mintToken('team-a-patcher');
    const patcher = (path: string, body: unknown) => send(platform().gateway.url, token, 'PATCH', path, body, APPLY);
    await as('admin')('POST', workspacesIn(TEAM_PROJECT), workspaceObject('apply-patchable')).then(expectStatus(201));
    await patcher(applied('apply-patchable'), workspaceObject('apply-patchable', { applied: 'yes' })).then(
      expectStatus(200),
    );
    expect(await labelOf('apply-patchable')).toBe('yes');
    const refused = await patcher(applied('apply-new'), workspaceObject('apply-new')).then(expectStatus(403));
    expect(refused).toMatchObject({ kind: 'Status', reason: 'Forbidden', error: expect.stringContaining('create') });
    expect(await platform().clusterAdmin.find(`${workspacesIn(TEAM_PROJECT)}/apply-new`)).toBeUndefined();
  });

  it('a caller with patch and create creates by apply (201)', async () => {
    await as('oidcUser')('PATCH', applied('apply-created'), workspaceObject('apply-created'), APPLY).then(
      expectStatus(201),
    );
    expect(await platform().clusterAdmin.find(`${workspacesIn(TEAM_PROJECT)}/apply-created`)).toBeDefined();
  });
});

describe('issue 20: a watch is authorized as `watch`', () => {
  it('a caller with list but not watch lists the Workspaces and is refused their watch (403 Status)', async () => {
    await as('serviceAccount')('GET', workspacesIn(TEAM_PROJECT)).then(expectStatus(200));
    for (const watch of ['1', 'true']) {
      const refused = await as('serviceAccount')('GET', `${workspacesIn(TEAM_PROJECT)}?watch=${watch}`).then(
        expectStatus(403),
      );
      expect(refused).toMatchObject({ kind: 'Status', error: expect.stringContaining('may not watch') });
    }
  });

  it('a caller allowed to watch gets the stream', async () => {
    const stop = new AbortController();
    const response = await fetch(`${platform().gateway.url}${workspacesIn(TEAM_PROJECT)}?watch=1`, {
      headers: { authorization: `Bearer ${platform().tokens.oidcUser}` },
      signal: stop.signal,
    });
    expect(response.status).toBe(200);
    stop.abort();
  });
});
