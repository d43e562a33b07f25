// Issue 13 at the HTTP level: what kubectl and client libraries send, each rule checked on the wire,
// authorized per request as the REST routes are, with what reaches the cluster checked through its administrator.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { TEST_NAMESPACE } from '../../support/identity-cluster.ts';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { OIDC_CLIENTS } from '../../support/oidc-provider.ts';
import { platformKubeconfig } from '../../support/kubectl-cli.ts';
import {
  API,
  GROUP,
  TEAM_PROJECT,
  expectStatus,
  send,
  usePlatform,
  workspaceObject,
} from '../../support/platform-fixture.ts';

const platform = usePlatform();
const AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const workspaces = `${API}/namespaces/${TEAM_PROJECT}/workspaces`;

function get(path: string, token: string, accept = 'application/json'): Promise<Response> {
  return fetch(`${platform().gateway.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept } });
}

const inCluster = (path: string) => platform().clusterAdmin.find<Record<string, any>>(path);

describe("Discovery and version: only the platform's kinds, legacy and aggregated", () => {
  it('answers aggregated discovery in its own media type when asked first', async () => {
    const response = await get('/apis', platform().tokens.oidcUser, AGGREGATED);
    expect(response.headers.get('content-type')).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const body = await response.json();
    expect(body.items.map((item: any) => item.metadata.name)).toEqual([GROUP]);
    const resources = body.items[0].versions[0].resources;
    const workspace = resources.find((resource: any) => resource.resource === 'workspaces');
    expect(workspace).toMatchObject({
      scope: 'Namespaced',
      singularResource: 'workspace',
      shortNames: ['ws'],
      categories: ['platform'],
      responseKind: { kind: 'Workspace' },
    });
    expect(workspace.verbs).toEqual(
      expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']),
    );
    expect(resources.find((resource: any) => resource.resource === 'projects').scope).toBe('Cluster');
  });

  it('answers the legacy documents otherwise', async () => {
    const token = platform().tokens.serviceAccount;
    expect((await get('/api', token).then(expectStatus(200))).kind).toBe('APIVersions');
    expect((await get('/apis', token).then(expectStatus(200))).groups.map((group: any) => group.name)).toEqual([GROUP]);
    expect((await get(`/apis/${GROUP}`, token).then(expectStatus(200))).preferredVersion.version).toBe('v1alpha1');
    const list = await get(`/apis/${GROUP}/v1alpha1`, token).then(expectStatus(200));
    expect(list.resources.find((resource: any) => resource.name === 'variablesets')).toMatchObject({
      singularName: 'variableset',
      namespaced: true,
      kind: 'VariableSet',
      shortNames: ['varset'],
      categories: ['platform'],
    });
    expect(list.resources.map((resource: any) => resource.name)).toContain('workspaces/status');
    expect((await get('/version', token).then(expectStatus(200))).major).toBe('1');
  });

  it('needs a valid token', async () => {
    expect((await fetch(`${platform().gateway.url}/apis`)).status).toBe(401);
    expect((await fetch(`${platform().gateway.url}/version`)).status).toBe(401);
  });
});

describe('OpenAPI v2 and v3 from the CRD schemas', () => {
  it('points the v3 root at the group document, whose PATCH takes fieldValidation and whose schemas carry the group-version-kind', async () => {
    const token = platform().tokens.oidcUser;
    const root = await get('/openapi/v3', token).then(expectStatus(200));
    const url = root.paths[`apis/${GROUP}/v1alpha1`].serverRelativeURL as string;
    expect(url).toMatch(new RegExp(`^/openapi/v3/apis/${GROUP}/v1alpha1\\?hash=[0-9A-F]+$`));
    const document = await get(url, token).then(expectStatus(200));
    const patch = document.paths[`/apis/${GROUP}/v1alpha1/namespaces/{namespace}/workspaces/{name}`].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: GROUP, version: 'v1alpha1', kind: 'Workspace' });
    expect(patch.parameters.map((parameter: any) => parameter.name)).toContain('fieldValidation');
    const schema = document.components.schemas['dev.platform.v1alpha1.Workspace'];
    expect(schema['x-kubernetes-group-version-kind']).toEqual([
      { group: GROUP, version: 'v1alpha1', kind: 'Workspace' },
    ]);
    expect(schema.properties.spec.required).toEqual(['source', 'tool']);
  });

  it('serves v2 as JSON with the definitions, or as the protobuf client-go asks for', async () => {
    const token = platform().tokens.oidcUser;
    const v2 = await get('/openapi/v2', token).then(expectStatus(200));
    expect(v2.definitions['dev.platform.v1alpha1.Project']['x-kubernetes-group-version-kind'][0].kind).toBe('Project');
    const protobuf = await get('/openapi/v2', token, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
    expect(protobuf.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(Buffer.from(await protobuf.arrayBuffer()).toString('latin1')).toContain('2.0');
  });
});

describe("GET /api/v1/namespaces/<ns> answers for Projects' namespaces, authorized as get on namespaces", () => {
  it("shows a Project's namespace to the admin and hides namespaces that are no Project's", async () => {
    const namespace = await get(`/api/v1/namespaces/${TEAM_PROJECT}`, platform().tokens.admin).then(expectStatus(200));
    expect(namespace).toMatchObject({ kind: 'Namespace', metadata: { name: TEAM_PROJECT } });
    const hidden = await get('/api/v1/namespaces/kube-system', platform().tokens.admin).then(expectStatus(404));
    expect(hidden).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('is Forbidden to a user whose Role does not cover namespaces', async () => {
    expect(
      (await get(`/api/v1/namespaces/${TEAM_PROJECT}`, platform().tokens.oidcUser).then(expectStatus(403))).kind,
    ).toBe('Status');
  });
});

describe("Table output: columns from additionalPrinterColumns, rows with their object's metadata", () => {
  it('lists Workspaces as a Table with PartialObjectMetadata rows', async () => {
    await send(platform().gateway.url, platform().tokens.admin, 'POST', workspaces, workspaceObject('tabled')).then(
      expectStatus(201),
    );
    const table = await get(`${API}/workspaces?limit=500`, platform().tokens.admin, TABLE).then(expectStatus(200));
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.columnDefinitions.map((column: any) => column.name)).toEqual([
      'Name',
      'Repository',
      'Path',
      'Tool',
      'Tool Version',
      'Phase',
      'Age',
    ]);
    const row = table.rows.find((candidate: any) => candidate.cells[0] === 'tabled');
    expect(row.cells.slice(1, 6)).toEqual(['https://git.example.com/infra.git', 'network', 'opentofu', '1.8.2', null]);
    expect(row.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'tabled', namespace: TEAM_PROJECT },
    });
    expect(row.object.spec).toBeUndefined();
  });

  it('never shows a sensitive value, even with includeObject=Object', async () => {
    const variableSet = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'tabled-secrets' },
      spec: { variables: [{ name: 'password', sensitive: true, value: 'hunter2-table' }] },
    };
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      `${API}/namespaces/${TEAM_PROJECT}/variablesets`,
      variableSet,
    ).then(expectStatus(201));
    const response = await get(
      `${API}/namespaces/${TEAM_PROJECT}/variablesets?includeObject=Object`,
      platform().tokens.admin,
      TABLE,
    );
    expect(await response.text()).not.toContain('hunter2-table');
  });
});

describe('YAML request bodies (application/yaml)', () => {
  it('creates from YAML and refuses malformed YAML, several documents and alias bombs with a 400 Status', async () => {
    const url = platform().gateway.url;
    const token = platform().tokens.admin;
    await send(url, token, 'POST', workspaces, toYaml(workspaceObject('from-yaml')), 'application/yaml').then(
      expectStatus(201),
    );
    expect((await inCluster(`${workspaces}/from-yaml`))?.spec.tool.version).toBe('1.8.2');
    const bomb = `a: &a ["x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 200 }, (_, index) => `b${index}: [*a,*a,*a,*a,*a,*a,*a,*a,*a]`).join('\n')}\n`;
    for (const body of [
      'kind: [unclosed',
      `${toYaml(workspaceObject('one'))}---\n${toYaml(workspaceObject('two'))}`,
      bomb,
    ]) {
      const refused = await send(url, token, 'POST', workspaces, body, 'application/yaml').then(expectStatus(400));
      expect(refused).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    }
    expect(await inCluster(`${workspaces}/one`)).toBeUndefined();
  });
});

describe("Watch (?watch=1) is authorized as watch and streams the cluster's events", () => {
  it('refuses a caller allowed to list but not to watch', async () => {
    const token = platform().tokens.serviceAccount;
    await get(workspaces, token).then(expectStatus(200));
    const refused = await get(`${workspaces}?watch=1`, token).then(expectStatus(403));
    expect(refused).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
  });

  it('streams an event of a change, as a Table when asked', async () => {
    const abort = new AbortController();
    const response = await fetch(`${platform().gateway.url}${workspaces}?watch=true&resourceVersion=0`, {
      headers: { authorization: `Bearer ${platform().tokens.oidcUser}`, accept: TABLE },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'POST',
      workspaces,
      workspaceObject('watched-http'),
    ).then(expectStatus(201));
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"watched-http"')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    const event = text
      .split('\n')
      .map((line) => (line ? JSON.parse(line) : undefined))
      .find((candidate) => candidate?.object?.rows?.[0]?.cells[0] === 'watched-http');
    expect(event).toMatchObject({
      type: 'ADDED',
      object: {
        kind: 'Table',
        rows: [{ object: { kind: 'PartialObjectMetadata', metadata: { namespace: TEAM_PROJECT } } }],
      },
    });
  });
});

describe('Write options: dryRun=All stores nothing, the others are checked before they reach the cluster', () => {
  it('answers a dry-run create and a dry-run delete without changing anything', async () => {
    const url = platform().gateway.url;
    const token = platform().tokens.admin;
    await send(url, token, 'POST', `${workspaces}?dryRun=All`, workspaceObject('dry-only')).then(expectStatus(201));
    expect(await inCluster(`${workspaces}/dry-only`)).toBeUndefined();
    await send(url, token, 'POST', workspaces, workspaceObject('kept')).then(expectStatus(201));
    await send(url, token, 'DELETE', `${workspaces}/kept?dryRun=All`, { propagationPolicy: 'Background' }).then(
      expectStatus(200),
    );
    expect(await inCluster(`${workspaces}/kept`)).toBeDefined();
    await send(url, token, 'DELETE', `${workspaces}/kept`, { propagationPolicy: 'Background' }).then(expectStatus(200));
    expect(await inCluster(`${workspaces}/kept`)).toBeUndefined();
  });

  it('refuses unknown dry-run modes, bad field validation, force outside apply and apply without a field manager', async () => {
    const url = platform().gateway.url;
    const token = platform().tokens.admin;
    await send(url, token, 'POST', `${workspaces}?dryRun=Some`, workspaceObject('bad-dry')).then(expectStatus(400));
    await send(url, token, 'POST', `${workspaces}?fieldValidation=Loose`, workspaceObject('bad-validation')).then(
      expectStatus(400),
    );
    await send(url, token, 'POST', workspaces, workspaceObject('patched')).then(expectStatus(201));
    await send(
      url,
      token,
      'PATCH',
      `${workspaces}/patched?force=true`,
      { spec: { suspend: true } },
      'application/merge-patch+json',
    ).then(expectStatus(400));
    await send(
      url,
      token,
      'PATCH',
      `${workspaces}/patched`,
      workspaceObject('patched'),
      'application/apply-patch+yaml',
    ).then(expectStatus(400));
    expect((await inCluster(`${workspaces}/patched`))?.spec.suspend).toBe(false);
    for (const name of ['bad-dry', 'bad-validation']) expect(await inCluster(`${workspaces}/${name}`)).toBeUndefined();
  });
});

describe("Server-side apply goes through the kind's writes: a VariableSet's sensitive value still lands in its Secret", () => {
  it('moves the applied sensitive value into the Secret and never answers it', async () => {
    const variableSet = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'applied' },
      spec: { variables: [{ name: 'token', sensitive: true, value: 'applied-secret-value' }] },
    };
    const path = `${API}/namespaces/${TEAM_PROJECT}/variablesets/applied?fieldManager=tests`;
    const response = await send(
      platform().gateway.url,
      platform().tokens.admin,
      'PATCH',
      path,
      toYaml(variableSet),
      'application/apply-patch+yaml',
    );
    const text = await response.text();
    expect(response.status, text).toBe(201);
    expect(text).not.toContain('applied-secret-value');
    const stored = await inCluster(`${API}/namespaces/${TEAM_PROJECT}/variablesets/applied`);
    expect(JSON.stringify(stored)).not.toContain('applied-secret-value');
    const secret = await inCluster(`/api/v1/namespaces/${TEAM_PROJECT}/secrets/variableset-applied`);
    expect(Buffer.from(secret!.data.token, 'base64').toString()).toBe('applied-secret-value');
  });

  it('creates a Project (with its namespace) only for a caller allowed to create Projects', async () => {
    const project = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'Project',
      metadata: { name: 'applied-project' },
      spec: { displayName: 'Applied' },
    };
    const path = `${API}/projects/applied-project?fieldManager=tests`;
    await send(
      platform().gateway.url,
      platform().tokens.oidcUser,
      'PATCH',
      path,
      JSON.stringify(project),
      'application/apply-patch+yaml',
    ).then(expectStatus(403));
    expect(await inCluster('/api/v1/namespaces/applied-project')).toBeUndefined();
    await send(
      platform().gateway.url,
      platform().tokens.admin,
      'PATCH',
      path,
      JSON.stringify(project),
      'application/apply-patch+yaml',
    ).then(expectStatus(200));
    expect(await inCluster('/api/v1/namespaces/applied-project')).toBeDefined();
  });
});

describe('platform-api kubeconfig writes a context for kubectl users', () => {
  it("writes kubelogin's exec-credential entry with the server's public OIDC settings", async () => {
    const home = await mkdtemp(join(tmpdir(), 'kubeconfig-cli-'));
    try {
      const file = join(home, 'config');
      const result = await platformKubeconfig(
        ['--server', platform().gateway.url, '--kubeconfig', file, '--exec-kubelogin', '--namespace', TEAM_PROJECT],
        { home },
      );
      expect(result.code, result.stderr).toBe(0);
      const config = parseYaml(await readFile(file, 'utf8'));
      const context = config.contexts.find((entry: any) => entry.name === config['current-context']).context;
      expect(context.namespace).toBe(TEAM_PROJECT);
      const user = config.users.find((entry: any) => entry.name === context.user).user;
      expect(user.exec.command).toBe('kubectl');
      expect(user.exec.args).toEqual([
        'oidc-login',
        'get-token',
        `--oidc-issuer-url=${platform().oidcIssuer}`,
        `--oidc-client-id=${OIDC_CLIENTS.web}`,
        '--oidc-extra-scope=profile',
        '--oidc-extra-scope=email',
        '--oidc-extra-scope=groups',
      ]);
      expect(config.clusters[0].cluster.server).toBe(platform().gateway.url);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('writes nothing when the admin password is wrong', async () => {
    const home = await mkdtemp(join(tmpdir(), 'kubeconfig-cli-'));
    try {
      const file = join(home, 'config');
      const result = await platformKubeconfig(['--server', platform().gateway.url, '--kubeconfig', file], {
        home,
        input: 'not-the-password\n',
      });
      expect(result.code).toBe(1);
      // The plugin's error reader (issue 43, item 8): kubectl's words with the catalogue's reason.
      expect(result.stderr).toMatch(/^Error from server \(InvalidPassword\): /m);
      await expect(readFile(file)).rejects.toThrow();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('Server-side apply is authorized as patch, and as create when the object does not exist', () => {
  it('lets a caller who may patch but not create change an existing Workspace, and creates nothing for it', async () => {
    const { cluster, gateway, tokens } = platform();
    await cluster.createServiceAccount('patch-only');
    const rbac = cluster.emulator.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: TEAM_PROJECT,
      body: {
        metadata: { name: 'patch-only' },
        rules: [{ apiGroups: [GROUP], resources: ['workspaces'], verbs: ['get', 'patch'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: TEAM_PROJECT,
      body: {
        metadata: { name: 'patch-only' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'patch-only' },
        subjects: [{ kind: 'ServiceAccount', namespace: TEST_NAMESPACE, name: 'patch-only' }],
      },
    });
    const token = await cluster.mintToken('patch-only');
    const applyAs = (name: string, version: string) => {
      const object = workspaceObject(name) as { spec: { tool: { version: string } } };
      object.spec.tool.version = version;
      return send(
        gateway.url,
        token,
        'PATCH',
        `${workspaces}/${name}?fieldManager=patcher`,
        JSON.stringify(object),
        'application/apply-patch+yaml',
      );
    };

    const refused = await applyAs('not-yet-there', '1.8.2').then(expectStatus(403));
    expect(refused).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(refused.message).toContain('create');
    expect(await inCluster(`${workspaces}/not-yet-there`)).toBeUndefined();

    await send(gateway.url, tokens.admin, 'POST', workspaces, workspaceObject('patchable')).then(expectStatus(201));
    const applied = await applyAs('patchable', '1.9.1').then(expectStatus(200));
    expect(applied.spec.tool.version).toBe('1.9.1');
    expect(
      (await inCluster(`${workspaces}/patchable`))?.metadata.managedFields.map((entry: any) => entry.manager),
    ).toEqual(['patcher']);
  });
});

describe('issue 20: every list, watch, patch and status option kubectl sends takes effect', () => {
  const admin = () => platform().tokens.admin;
  const names = (list: { items: Array<{ metadata: { name: string } }> }) =>
    list.items.map((item) => item.metadata.name);
  const labelled = async () => {
    const url = platform().gateway.url;
    for (const [name, labels] of [
      ['opt-a', { tier: 'one' }],
      ['opt-b', { tier: 'one' }],
      ['opt-c', {}],
    ] as const)
      if (!(await inCluster(`${workspaces}/${name}`)))
        await send(url, admin(), 'POST', workspaces, workspaceObject(name, labels)).then(expectStatus(201));
  };
  /** The whole watch stream, which the cluster ends after `timeoutSeconds`, with its headers. */
  const watched = async (query: string) => {
    const response = await get(`${workspaces}?watch=1&timeoutSeconds=1&${query}`, admin());
    expect(response.status).toBe(200);
    return { headers: response.headers, text: await response.text() };
  };

  it('a list passes labelSelector, fieldSelector, limit and continue on', async () => {
    await labelled();
    const byLabel = await get(`${workspaces}?labelSelector=tier%3Done`, admin()).then(expectStatus(200));
    expect(names(byLabel)).toEqual(expect.arrayContaining(['opt-a', 'opt-b']));
    expect(names(byLabel)).not.toContain('opt-c');
    const byField = await get(`${workspaces}?fieldSelector=metadata.name%3Dopt-c`, admin()).then(expectStatus(200));
    expect(names(byField)).toEqual(['opt-c']);
    const first = await get(`${workspaces}?labelSelector=tier%3Done&limit=1`, admin()).then(expectStatus(200));
    expect(names(first)).toHaveLength(1);
    const rest = await get(
      `${workspaces}?labelSelector=tier%3Done&limit=1&continue=${encodeURIComponent(first.metadata.continue)}`,
      admin(),
    ).then(expectStatus(200));
    expect([...names(first), ...names(rest)].sort()).toEqual(['opt-a', 'opt-b']);
  });

  it('a watch passes timeoutSeconds, labelSelector, fieldSelector and resourceVersion on, and is answered unbuffered', async () => {
    await labelled();
    const byLabel = await watched('labelSelector=tier%3Done');
    expect(byLabel.headers.get('content-type')).toBe('application/json');
    expect(byLabel.headers.get('cache-control')).toBe('no-store');
    expect(byLabel.headers.get('x-accel-buffering')).toBe('no');
    expect(byLabel.text).toContain('"opt-a"');
    expect(byLabel.text).not.toContain('"opt-c"');
    const byField = await watched('fieldSelector=metadata.name%3Dopt-c');
    expect(byField.text).toContain('"opt-c"');
    expect(byField.text).not.toContain('"opt-a"');
    // From the list's resourceVersion on, nothing has happened: the objects that exist are not sent again.
    const { metadata } = await get(workspaces, admin()).then(expectStatus(200));
    expect((await watched(`resourceVersion=${metadata.resourceVersion}`)).text).toBe('');
  });

  it('a JSON patch is applied; a patch or an object in a media type it does not take is 415 naming those it takes', async () => {
    await labelled();
    const url = platform().gateway.url;
    const patched = await send(
      url,
      admin(),
      'PATCH',
      `${workspaces}/opt-c`,
      [{ op: 'add', path: '/metadata/labels', value: { patched: 'json' } }],
      'application/json-patch+json',
    ).then(expectStatus(200));
    expect(patched.metadata.labels).toEqual({ patched: 'json' });
    const patchRefused = await send(url, admin(), 'PATCH', `${workspaces}/opt-c`, '{}', 'text/plain').then(
      expectStatus(415),
    );
    expect(patchRefused).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });
    for (const type of ['application/merge-patch+json', 'application/json-patch+json', 'application/apply-patch+yaml'])
      expect(patchRefused.error ?? patchRefused.message).toContain(type);
    const createRefused = await send(url, admin(), 'POST', workspaces, workspaceObject('opt-text'), 'text/plain').then(
      expectStatus(415),
    );
    expect(createRefused.error ?? createRefused.message).toContain('application/json, application/yaml');
    expect(await inCluster(`${workspaces}/opt-text`)).toBeUndefined();
    const current = await inCluster(`${workspaces}/opt-c`);
    const replaceRefused = await send(
      url,
      admin(),
      'PUT',
      `${workspaces}/opt-c`,
      { ...current, metadata: { ...current!.metadata, labels: { replaced: 'text' } } },
      'text/plain',
    ).then(expectStatus(415));
    expect(replaceRefused).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });
    expect((await inCluster(`${workspaces}/opt-c`))?.metadata.labels).toEqual({ patched: 'json' });
  });

  it('the status subresource is read, replaced and merge-patched; server-side apply to it is 415', async () => {
    await labelled();
    const url = platform().gateway.url;
    const status = `${workspaces}/opt-b/status`;
    const current = await get(status, admin()).then(expectStatus(200));
    expect(current.metadata.name).toBe('opt-b');
    await send(url, admin(), 'PUT', status, { ...current, status: { phase: 'Planning' } }).then(expectStatus(200));
    expect((await inCluster(`${workspaces}/opt-b`))?.status.phase).toBe('Planning');
    await send(url, admin(), 'PATCH', status, { status: { phase: 'Planned' } }, 'application/merge-patch+json').then(
      expectStatus(200),
    );
    expect((await inCluster(`${workspaces}/opt-b`))?.status.phase).toBe('Planned');
    const applied = await send(
      url,
      admin(),
      'PATCH',
      `${status}?fieldManager=tests`,
      toYaml({ ...workspaceObject('opt-b'), status: { phase: 'Applied' } }),
      'application/apply-patch+yaml',
    ).then(expectStatus(415));
    expect(applied).toMatchObject({ kind: 'Status', reason: 'UnsupportedMediaType' });
    expect(applied.error ?? applied.message).toContain('server-side apply of the status subresource is not supported');
    expect((await inCluster(`${workspaces}/opt-b`))?.status.phase).toBe('Planned');
  });

  it('a watch as Tables: the first event carries the column definitions, later ones only their rows', async () => {
    await labelled();
    const response = await get(`${workspaces}?watch=1&timeoutSeconds=1&labelSelector=tier%3Done`, admin(), TABLE);
    const events = (await response.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(events.map((event) => [event.type, event.object.kind])).toEqual([
      ['ADDED', 'Table'],
      ['ADDED', 'Table'],
    ]);
    expect(events[0].object.columnDefinitions.map((column: { name: string }) => column.name)).toContain('Repository');
    expect(events[1].object).not.toHaveProperty('columnDefinitions');
    expect(events[1].object.rows).toHaveLength(1);
  });

  it("a create takes the path's namespace: a body naming the same one is created there, another one is 400", async () => {
    const url = platform().gateway.url;
    const inNamespace = (name: string, namespace: string) => {
      const object = workspaceObject(name) as { metadata: Record<string, unknown> };
      return { ...object, metadata: { ...object.metadata, namespace } };
    };
    await send(url, admin(), 'POST', workspaces, inNamespace('opt-same-ns', TEAM_PROJECT)).then(expectStatus(201));
    const refused = await send(url, admin(), 'POST', workspaces, inNamespace('opt-other-ns', 'team-b')).then(
      expectStatus(400),
    );
    expect(refused.error ?? refused.message).toContain('does not match the namespace sent on the request');
    expect(await inCluster(`${workspaces}/opt-same-ns`)).toBeDefined();
  });

  it('a create without a Content-Type is read as JSON', async () => {
    const response = await fetch(`${platform().gateway.url}${workspaces}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin()}` },
      body: new TextEncoder().encode(JSON.stringify(workspaceObject('opt-untyped'))),
    });
    expect(response.status, await response.text()).toBe(201);
  });

  it('a watch ends by itself when the token that opened it expires', { timeout: 45_000 }, async () => {
    const token = await platform().oidcLogin(4);
    const openedAt = Date.now();
    const response = await get(`${workspaces}?watch=1`, token);
    expect(response.status).toBe(200);
    await response.text();
    expect(Date.now() - openedAt).toBeLessThan(40_000);
  });

  it("a list as a Table keeps the list's metadata (resourceVersion, continue, remainingItemCount)", async () => {
    await labelled();
    const table = await get(`${workspaces}?labelSelector=tier%3Done&limit=1`, admin(), TABLE).then(expectStatus(200));
    expect(table.rows).toHaveLength(1);
    expect(table.metadata).toEqual({
      resourceVersion: expect.any(String),
      continue: expect.any(String),
      remainingItemCount: 1,
    });
  });

  it('force=true goes on with a server-side apply (the conflict is the cluster to decide), and apply takes ownership', async () => {
    await labelled();
    const applied = await send(
      platform().gateway.url,
      admin(),
      'PATCH',
      `${workspaces}/opt-a?fieldManager=forced&force=true`,
      toYaml(workspaceObject('opt-a', { tier: 'one', forced: 'yes' })),
      'application/apply-patch+yaml',
    ).then(expectStatus(200));
    expect(applied.metadata.labels.forced).toBe('yes');
  });

  it('a get answers a one-row Table of the version asked, with the row object includeObject asks for', async () => {
    await labelled();
    const v1beta1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
    const table = await get(`${workspaces}/opt-a`, admin(), v1beta1).then(expectStatus(200));
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(table.rows).toHaveLength(1);
    expect(table.rows[0].cells[0]).toBe('opt-a');
    expect(table.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'opt-a' } });
    const bare = await get(`${workspaces}/opt-a?includeObject=None`, admin(), v1beta1).then(expectStatus(200));
    expect(bare.rows[0]).not.toHaveProperty('object');
  });
});
