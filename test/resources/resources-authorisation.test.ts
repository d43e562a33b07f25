// Authorisation of the resource routes: the admin bypasses; an OIDC user (mapped to a ServiceAccount
// with a namespaced Role) and a ServiceAccount are checked by SubjectAccessReview on the kind, verb,
// namespace and name; changes are then written by the API server's own ServiceAccount.
import { describe, expect, it } from 'vitest';
import {
  API,
  CALLER_ACCOUNT_USER,
  OIDC_USER,
  OTHER_PROJECT,
  TEAM_PROJECT,
  expectStatus,
  projectObject,
  send,
  usePlatform,
  workspaceObject,
} from './platform-fixture.ts';

const platform = usePlatform();
const as =
  (who: 'admin' | 'oidcUser' | 'serviceAccount') =>
  (method: string, path: string, body?: unknown, contentType?: string) =>
    send(platform().gateway.url, platform().tokens[who], method, path, body, contentType);
const workspacesIn = (project: string) => `${API}/namespaces/${project}/workspaces`;

describe('Admin: bypasses every authorisation check', () => {
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
      name: OIDC_USER.email,
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
