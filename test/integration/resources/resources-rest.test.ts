// The resources function through HTTP as the admin: Kubernetes-style REST for every kind, Status
// errors, a Project's namespace, and VariableSets' sensitive values.
import { describe, expect, it } from 'vitest';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  projectObject,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const asAdmin = (method: string, path: string, body?: unknown, contentType?: string) =>
  send(platform().gateway.url, platform().tokens.admin, method, path, body, contentType);
const MERGE_PATCH = 'application/merge-patch+json';

interface KindCase {
  kind: string;
  collection: string;
  object: (name: string, labels?: Record<string, string>) => Record<string, unknown>;
  specChange: Record<string, unknown>;
}

const inTeam = `${API}/namespaces/${TEAM_PROJECT}`;
const typed = (kind: string, name: string, labels: Record<string, string>, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind,
  metadata: { name, labels },
  spec,
});
const KINDS: KindCase[] = [
  {
    kind: 'Project',
    collection: `${API}/projects`,
    object: (name, labels = {}) => ({ ...projectObject(name), metadata: { name, labels } }),
    specChange: { description: 'changed' },
  },
  { kind: 'Workspace', collection: `${inTeam}/workspaces`, object: workspaceObject, specChange: { autoApply: true } },
  {
    kind: 'Rollout',
    collection: `${inTeam}/rollouts`,
    object: (name, labels = {}) =>
      typed('Rollout', name, labels, { revision: 'abc123', stages: [{ workspace: 'network' }] }),
    specChange: { revision: 'def456' },
  },
  {
    kind: 'VariableSet',
    collection: `${inTeam}/variablesets`,
    object: (name, labels = {}) =>
      typed('VariableSet', name, labels, { variables: [{ name: 'region', value: 'eu-west-1' }] }),
    specChange: { description: 'changed' },
  },
];

describe.each(KINDS)(
  'Resources function: list, get, create, update, patch and delete a $kind under /apis/<api_group>/v1alpha1/',
  ({ kind, collection, object, specChange }) => {
    const prefix = `rest-${kind.toLowerCase()}`;

    it('creates (201), reads, lists, replaces, patches and deletes', async () => {
      const created = await asAdmin('POST', collection, object(`${prefix}-a`)).then(expectStatus(201));
      expect(created).toMatchObject({
        apiVersion: `${GROUP}/v1alpha1`,
        kind,
        metadata: { name: `${prefix}-a`, resourceVersion: expect.any(String) },
      });
      const item = `${collection}/${prefix}-a`;
      expect(await asAdmin('GET', item).then(expectStatus(200))).toMatchObject({
        metadata: { uid: created.metadata.uid },
      });
      const list = await asAdmin('GET', collection).then(expectStatus(200));
      expect(list).toMatchObject({ kind: `${kind}List`, apiVersion: `${GROUP}/v1alpha1` });
      expect(list.items.map((entry: { metadata: { name: string } }) => entry.metadata.name)).toContain(`${prefix}-a`);

      const replaced = await asAdmin('PUT', item, { ...created, spec: { ...created.spec, ...specChange } }).then(
        expectStatus(200),
      );
      expect(replaced.spec).toMatchObject(specChange);
      const patched = await asAdmin('PATCH', item, { metadata: { labels: { patched: 'yes' } } }, MERGE_PATCH).then(
        expectStatus(200),
      );
      expect(patched.metadata.labels).toMatchObject({ patched: 'yes' });
      const jsonPatched = await asAdmin(
        'PATCH',
        item,
        [{ op: 'add', path: '/metadata/annotations', value: { note: 'json-patch' } }],
        'application/json-patch+json',
      ).then(expectStatus(200));
      expect(jsonPatched.metadata.annotations).toEqual({ note: 'json-patch' });

      await asAdmin('DELETE', item).then(expectStatus(200));
      const gone = await asAdmin('GET', item).then(expectStatus(404));
      expect(gone).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        error: gone.message,
      });
    });

    it('passes resourceVersion conflicts through as 409 Conflict', async () => {
      const created = await asAdmin('POST', collection, object(`${prefix}-conflict`)).then(expectStatus(201));
      await asAdmin(
        'PATCH',
        `${collection}/${prefix}-conflict`,
        { metadata: { labels: { bump: '1' } } },
        MERGE_PATCH,
      ).then(expectStatus(200));
      const stale = await asAdmin('PUT', `${collection}/${prefix}-conflict`, created).then(expectStatus(409));
      expect(stale).toMatchObject({
        kind: 'Status',
        code: 409,
        reason: 'Conflict',
        error: expect.stringContaining('the object has been modified'),
      });
      const taken = await asAdmin('POST', collection, object(`${prefix}-conflict`)).then(expectStatus(409));
      expect(taken).toMatchObject({ reason: 'AlreadyExists' });
    });

    it('filters lists by label selector and pages them with limit and continue', async () => {
      for (const suffix of ['p1', 'p2', 'p3'])
        await asAdmin('POST', collection, object(`${prefix}-${suffix}`, { page: prefix })).then(expectStatus(201));
      const selector = `labelSelector=${encodeURIComponent(`page=${prefix}`)}`;
      const first = await asAdmin('GET', `${collection}?${selector}&limit=2`).then(expectStatus(200));
      expect(first.items).toHaveLength(2);
      expect(first.metadata.continue).toEqual(expect.any(String));
      const second = await asAdmin(
        'GET',
        `${collection}?${selector}&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`,
      ).then(expectStatus(200));
      const names = [...first.items, ...second.items].map(
        (entry: { metadata: { name: string } }) => entry.metadata.name,
      );
      expect(names.sort()).toEqual([`${prefix}-p1`, `${prefix}-p2`, `${prefix}-p3`]);
      expect(second.metadata.continue).toBeUndefined();
    });

    it('serves the status subresource: a status write changes only the status', async () => {
      await asAdmin('POST', collection, object(`${prefix}-status`)).then(expectStatus(201));
      const item = `${collection}/${prefix}-status`;
      const written = await asAdmin(
        'PATCH',
        `${item}/status`,
        { status: { observedGeneration: 1 }, spec: specChange },
        MERGE_PATCH,
      ).then(expectStatus(200));
      expect(written.status).toMatchObject({ observedGeneration: 1 });
      expect(written.spec).not.toMatchObject(specChange);
      expect((await asAdmin('GET', `${item}/status`).then(expectStatus(200))).status).toMatchObject({
        observedGeneration: 1,
      });
    });
  },
);

describe('Namespaced kinds can be listed across every namespace', () => {
  it('lists Workspaces of all Projects at /apis/<api_group>/v1alpha1/workspaces', async () => {
    await asAdmin('POST', `${inTeam}/workspaces`, workspaceObject('everywhere')).then(expectStatus(201));
    const list = await asAdmin('GET', `${API}/workspaces`).then(expectStatus(200));
    expect(list.items).toContainEqual(
      expect.objectContaining({ metadata: expect.objectContaining({ name: 'everywhere', namespace: TEAM_PROJECT }) }),
    );
  });
});

describe("Errors are Kubernetes Status objects that still carry the contract's error and reason; bad input is 4xx, never 500", () => {
  const workspaces = `${inTeam}/workspaces`;
  it.each([
    ['malformed JSON', 'POST', workspaces, '{"kind": ', 400, 'BadRequest'],
    ['an empty body', 'POST', workspaces, '', 400, 'BadRequest'],
    ['a body that is not an object', 'POST', workspaces, '[1, 2]', 400, 'BadRequest'],
    [
      'a body of another kind',
      'POST',
      workspaces,
      JSON.stringify({ ...workspaceObject('x'), kind: 'Rollout' }),
      400,
      'BadRequest',
    ],
    [
      'a body of another API group',
      'POST',
      workspaces,
      JSON.stringify({ ...workspaceObject('x'), apiVersion: 'other.dev/v1alpha1' }),
      400,
      'BadRequest',
    ],
    ['a body without kind', 'POST', workspaces, JSON.stringify({ metadata: { name: 'x' } }), 400, 'BadRequest'],
    [
      'a body for another namespace',
      'POST',
      workspaces,
      JSON.stringify({ ...workspaceObject('x'), metadata: { name: 'x', namespace: 'elsewhere' } }),
      400,
      'BadRequest',
    ],
    [
      'a name that differs from the URL',
      'PUT',
      `${workspaces}/one`,
      JSON.stringify(workspaceObject('two')),
      400,
      'BadRequest',
    ],
    [
      'a spec that is not an object',
      'POST',
      workspaces,
      JSON.stringify({ ...workspaceObject('x'), spec: 'big' }),
      422,
      'Invalid',
    ],
    [
      "an invalid name (the cluster's validation)",
      'POST',
      workspaces,
      JSON.stringify(workspaceObject('Not_A_Name')),
      422,
      'Invalid',
    ],
  ])('%s → %i %s', async (_name, method, path, body, status, reason) => {
    const answer = await send(platform().gateway.url, platform().tokens.admin, method, path, body).then(
      expectStatus(status),
    );
    expect(answer).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: status,
      reason,
      message: expect.any(String),
    });
    expect(answer.error).toBe(answer.message);
  });

  it('a patch of an unsupported type → 415 UnsupportedMediaType', async () => {
    const answer = await asAdmin(
      'PATCH',
      `${workspaces}/whatever`,
      { spec: {} },
      'application/strategic-merge-patch+json',
    ).then(expectStatus(415));
    expect(answer).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });
  });

  it('a non-numeric limit → 400', async () => {
    expect(await asAdmin('GET', `${workspaces}?limit=ten`).then(expectStatus(400))).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
    });
  });
});

describe('Creating a Project creates its namespace; the Project owns it', () => {
  it('creates the namespace of the same name, owned by the Project, and records it in the status', async () => {
    const project = await asAdmin('POST', `${API}/projects`, projectObject('owned-ns')).then(expectStatus(201));
    expect(project.status).toMatchObject({ namespace: 'owned-ns', phase: 'Active' });
    const namespace = await platform().clusterAdmin.find<{
      metadata: { ownerReferences: unknown[]; labels: Record<string, string> };
    }>('/api/v1/namespaces/owned-ns');
    expect(namespace?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Project', name: 'owned-ns', uid: project.metadata.uid, controller: true }),
    ]);
    expect(namespace?.metadata.labels).toMatchObject({ [`${GROUP}/project`]: 'owned-ns' });
  });

  it('deleting the Project deletes its namespace', async () => {
    await asAdmin('POST', `${API}/projects`, projectObject('short-lived')).then(expectStatus(201));
    await asAdmin('DELETE', `${API}/projects/short-lived`).then(expectStatus(200));
    await expect.poll(() => platform().clusterAdmin.find('/api/v1/namespaces/short-lived')).toBeUndefined();
  });

  it('refuses a name whose namespace exists and belongs to no Project (409), and leaves no Project behind', async () => {
    const answer = await asAdmin('POST', `${API}/projects`, projectObject('kube-system')).then(expectStatus(409));
    expect(answer).toMatchObject({
      kind: 'Status',
      reason: 'AlreadyExists',
      error: expect.stringContaining('does not belong to a Project'),
    });
    await asAdmin('GET', `${API}/projects/kube-system`).then(expectStatus(404));
  });
});

describe('VariableSet: sensitive values live in Secrets and are never returned', () => {
  const variableSets = `${inTeam}/variablesets`;
  const secretPath = (name: string) => `/api/v1/namespaces/${TEAM_PROJECT}/secrets/variableset-${name}`;
  const secretData = async (name: string) => {
    const secret = await platform().clusterAdmin.find<{ data: Record<string, string> }>(secretPath(name));
    return (
      secret &&
      Object.fromEntries(
        Object.entries(secret.data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
      )
    );
  };
  const withVariables = (name: string, variables: unknown[]) => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'VariableSet',
    metadata: { name },
    spec: { variables },
  });
  const reference = (setName: string, key: string) => ({ secretKeyRef: { name: `variableset-${setName}`, key } });
  /** A variable as the cluster answers it: with the VariableSet schema's defaults for what it leaves out. */
  const defaulted = (variable: Record<string, unknown>) => ({
    sensitive: false,
    category: 'terraform',
    hcl: false,
    ...variable,
  });

  it('moves a sensitive value into the Secret variableset-<name>, stores and returns only a reference', async () => {
    const created = await asAdmin(
      'POST',
      variableSets,
      withVariables('secrets-1', [
        { name: 'region', value: 'eu' },
        { name: 'db_password', sensitive: true, value: 'hunter2' },
      ]),
    ).then(expectStatus(201));
    expect(JSON.stringify(created)).not.toContain('hunter2');
    expect(created.spec.variables).toEqual([
      defaulted({ name: 'region', value: 'eu' }),
      defaulted({ name: 'db_password', sensitive: true, valueFrom: reference('secrets-1', 'db_password') }),
    ]);
    expect(created.status).toMatchObject({ variableCount: 2, observedGeneration: 1 });
    expect(await secretData('secrets-1')).toEqual({ db_password: 'hunter2' });
    const stored = await platform().clusterAdmin.find(`${inTeam}/variablesets/secrets-1`);
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    for (const path of [`${variableSets}/secrets-1`, variableSets, `${API}/variablesets`]) {
      expect(await (await asAdmin('GET', path)).text()).not.toContain('hunter2');
    }
  });

  it('replace and merge patch move new values too, keep untouched ones and drop keys no variable refers to', async () => {
    const created = await asAdmin(
      'POST',
      variableSets,
      withVariables('secrets-2', [
        { name: 'a', sensitive: true, value: 'first-a' },
        { name: 'b', sensitive: true, value: 'first-b' },
      ]),
    ).then(expectStatus(201));
    const replaced = await asAdmin('PUT', `${variableSets}/secrets-2`, {
      ...created,
      spec: {
        variables: [
          created.spec.variables[0],
          { name: 'b', sensitive: true, value: 'second-b' },
          { name: 'c', sensitive: true, value: 'first-c' },
        ],
      },
    }).then(expectStatus(200));
    expect(JSON.stringify(replaced)).not.toMatch(/first-|second-/);
    expect(await secretData('secrets-2')).toEqual({ a: 'first-a', b: 'second-b', c: 'first-c' });
    const patched = await asAdmin(
      'PATCH',
      `${variableSets}/secrets-2`,
      { spec: { variables: [{ name: 'c', sensitive: true, value: 'third-c' }] } },
      MERGE_PATCH,
    ).then(expectStatus(200));
    expect(patched.spec.variables).toEqual([
      defaulted({ name: 'c', sensitive: true, valueFrom: reference('secrets-2', 'c') }),
    ]);
    expect(await secretData('secrets-2')).toEqual({ c: 'third-c' });
  });

  it('a JSON patch that adds a sensitive variable has its value moved into the Secret, judged on the patched object', async () => {
    await asAdmin('POST', variableSets, withVariables('secrets-3', [{ name: 'x', value: '1' }])).then(
      expectStatus(201),
    );
    const answer = await asAdmin(
      'PATCH',
      `${variableSets}/secrets-3`,
      [{ op: 'add', path: '/spec/variables/-', value: { name: 'y', sensitive: true, value: 'leak' } }],
      'application/json-patch+json',
    ).then(expectStatus(200));
    expect(answer.spec.variables).toEqual([
      defaulted({ name: 'x', value: '1' }),
      defaulted({ name: 'y', sensitive: true, valueFrom: reference('secrets-3', 'y') }),
    ]);
    expect(JSON.stringify(await platform().clusterAdmin.find(`${inTeam}/variablesets/secrets-3`))).not.toContain(
      'leak',
    );
    expect(await secretData('secrets-3')).toEqual({ y: 'leak' });
  });

  it('refuses (422) a JSON patch that copies a sensitive value anywhere else, and stores nothing of it', async () => {
    await asAdmin('POST', variableSets, withVariables('secrets-5', [{ name: 'x', value: '1' }])).then(
      expectStatus(201),
    );
    const copy = [
      { op: 'add', path: '/spec', value: { variables: [{ name: 'k', sensitive: true, value: 's3cret' }] } },
      { op: 'copy', from: '/spec/variables/0/value', path: '/spec/description' },
    ];
    const answer = await asAdmin('PATCH', `${variableSets}/secrets-5`, copy, 'application/json-patch+json').then(
      expectStatus(422),
    );
    expect(answer).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(answer.message).not.toContain('s3cret');
    expect(JSON.stringify(await platform().clusterAdmin.find(`${inTeam}/variablesets/secrets-5`))).not.toContain(
      's3cret',
    );
    expect(await platform().clusterAdmin.find(secretPath('secrets-5'))).toBeUndefined();
  });

  it('a patch cannot test or copy a value stored in clear beside sensitive: true by a direct cluster write', async () => {
    await platform().clusterAdmin.send({
      method: 'POST',
      path: `${inTeam}/variablesets`,
      body: {
        ...withVariables('direct-2', [{ name: 'token', sensitive: true, value: 'in-clear' }]),
        metadata: { name: 'direct-2', namespace: TEAM_PROJECT },
      },
    });
    const probe = [{ op: 'test', path: '/spec/variables/0/value', value: 'in-clear' }];
    await asAdmin('PATCH', `${variableSets}/direct-2`, probe, 'application/json-patch+json').then(expectStatus(422));
    const copy = [{ op: 'copy', from: '/spec/variables/0/value', path: '/spec/description' }];
    await asAdmin('PATCH', `${variableSets}/direct-2`, copy, 'application/json-patch+json').then(expectStatus(422));
    const touched = await asAdmin(
      'PATCH',
      `${variableSets}/direct-2`,
      { spec: { description: 'moved' } },
      MERGE_PATCH,
    ).then(expectStatus(200));
    expect(touched.spec.variables).toEqual([
      defaulted({ name: 'token', sensitive: true, valueFrom: reference('direct-2', 'token') }),
    ]);
    expect(JSON.stringify(await platform().clusterAdmin.find(`${inTeam}/variablesets/direct-2`))).not.toContain(
      'in-clear',
    );
    expect(await secretData('direct-2')).toEqual({ token: 'in-clear' });
  });

  it('never returns a value stored beside sensitive: true by someone writing to the cluster directly', async () => {
    await platform().clusterAdmin.send({
      method: 'POST',
      path: `${inTeam}/variablesets`,
      body: {
        ...withVariables('direct', [{ name: 'token', sensitive: true, value: 'written-by-kubectl' }]),
        metadata: { name: 'direct', namespace: TEAM_PROJECT },
      },
    });
    const answer = await asAdmin('GET', `${variableSets}/direct`).then(expectStatus(200));
    expect(answer.spec.variables).toEqual([defaulted({ name: 'token', sensitive: true })]);
  });

  it('deleting the VariableSet deletes its Secret', async () => {
    await asAdmin('POST', variableSets, withVariables('secrets-4', [{ name: 'k', sensitive: true, value: 'v' }])).then(
      expectStatus(201),
    );
    await asAdmin('DELETE', `${variableSets}/secrets-4`).then(expectStatus(200));
    expect(await platform().clusterAdmin.find(secretPath('secrets-4'))).toBeUndefined();
  });
});
