// Kubernetes API conventions, exercised through @kubernetes/client-node: object metadata, errors as Status,
// optimistic concurrency, patch types, selectors, pagination and namespace deletion.
import { beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions } from '@kubernetes/client-node';
import { rawRequest, statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const core = () => emulator().kubeConfig().makeApiClient(CoreV1Api);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const strategicPatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

async function createNamespace(name: string): Promise<void> {
  await core().createNamespace({ body: { metadata: { name } } });
}

describe('server-owned metadata is set on create', () => {
  it('assigns uid, creationTimestamp and a resourceVersion that grows with every write', async () => {
    const first = await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'meta-a' }, data: { a: '1' } },
    });
    const second = await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'meta-b' } },
    });
    expect(first.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(Number(second.metadata?.resourceVersion)).toBeGreaterThan(Number(first.metadata?.resourceVersion));
    expect(first.metadata?.uid).not.toBe(second.metadata?.uid);
  });

  it('generates a name from generateName', async () => {
    const created = await core().createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(created.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(created.type).toBe('Opaque');
  });

  it('folds Secret stringData into base64 data', async () => {
    const created = await core().createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'string-data' }, stringData: { password: 's3cret' } },
    });
    expect(created.data).toEqual({ password: Buffer.from('s3cret').toString('base64') });
    expect(created.stringData).toBeUndefined();
  });

  it('gives every new namespace a default ServiceAccount', async () => {
    await createNamespace('with-default-sa');
    const accounts = await core().listNamespacedServiceAccount({ namespace: 'with-default-sa' });
    expect(accounts.items.map((account) => account.metadata?.name)).toEqual(['default']);
  });
});

describe('errors are Status objects worded as kube-apiserver words them', () => {
  it('404 NotFound names the resource and object', async () => {
    const status = await statusOf(core().readNamespacedServiceAccount({ namespace: 'default', name: 'missing' }));
    expect(status).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'serviceaccounts "missing" not found',
      details: { name: 'missing', kind: 'serviceaccounts' },
    });
  });

  it('404 in a missing namespace names the namespace', async () => {
    const status = await statusOf(
      core().createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }),
    );
    expect(status).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "nowhere" not found' });
  });

  it('409 AlreadyExists on a taken name', async () => {
    await core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'taken' } } });
    const status = await statusOf(
      core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'taken' } } }),
    );
    expect(status).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      message: 'serviceaccounts "taken" already exists',
    });
  });

  it('422 Invalid for a name that is not a DNS subdomain', async () => {
    const status = await statusOf(
      core().createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'Not_Valid' } } }),
    );
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.message).toMatch(
      /^ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain/,
    );
  });

  it('400 BadRequest for malformed JSON', async () => {
    const response = await rawRequest(emulator(), '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: '{"metadata":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
  });

  it('401 Unauthorized without a bearer token or with an unknown one', async () => {
    for (const token of [null, 'not-a-known-token']) {
      const response = await rawRequest(emulator(), '/api/v1/namespaces', { token });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        kind: 'Status',
        reason: 'Unauthorized',
        message: 'Unauthorized',
        code: 401,
      });
    }
  });
});

describe('updates are guarded by resourceVersion', () => {
  it('409 Conflict when the resourceVersion is stale; success with the current one', async () => {
    const created = await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'occ' }, data: { v: '1' } },
    });
    const updated = await core().replaceNamespacedConfigMap({
      namespace: 'default',
      name: 'occ',
      body: { ...created, data: { v: '2' } },
    });
    expect(updated.data).toEqual({ v: '2' });
    const status = await statusOf(
      core().replaceNamespacedConfigMap({ namespace: 'default', name: 'occ', body: { ...created, data: { v: '3' } } }),
    );
    expect(status).toMatchObject({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('a no-op update keeps the resourceVersion', async () => {
    const created = await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'noop' }, data: { v: '1' } },
    });
    const same = await core().replaceNamespacedConfigMap({ namespace: 'default', name: 'noop', body: created });
    expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
  });

  it('400 when the body names another object than the URL', async () => {
    const status = await statusOf(
      core().replaceNamespacedConfigMap({ namespace: 'default', name: 'noop', body: { metadata: { name: 'other' } } }),
    );
    expect(status).toMatchObject({
      code: 400,
      message: 'the name of the object (other) does not match the name on the URL (noop)',
    });
  });

  it('roleRef of a RoleBinding cannot change', async () => {
    const rbac = emulator().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    const binding = await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: {
        metadata: { name: 'fixed-ref' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'a' },
        subjects: [],
      },
    });
    const status = await statusOf(
      rbac.replaceNamespacedRoleBinding({
        namespace: 'default',
        name: 'fixed-ref',
        body: { ...binding, roleRef: { ...binding.roleRef, name: 'b' } },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain('roleRef: Invalid value');
  });

  it("a binding's roleRef names a kind it may bind: a RoleBinding a Role or a ClusterRole, a ClusterRoleBinding a ClusterRole", async () => {
    const rbac = emulator().kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    const roleRef = (kind: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: 'a' });
    const namespaced = await statusOf(
      rbac.createNamespacedRoleBinding({
        namespace: 'default',
        body: { metadata: { name: 'bad-kind' }, roleRef: roleRef('Group'), subjects: [] },
      }),
    );
    expect(namespaced.code).toBe(422);
    expect(namespaced.message).toContain(
      'roleRef.kind: Unsupported value: "Group": supported values: "Role", "ClusterRole"',
    );
    const clusterWide = await statusOf(
      rbac.createClusterRoleBinding({
        body: { metadata: { name: 'bad-kind' }, roleRef: roleRef('Role'), subjects: [] },
      }),
    );
    expect(clusterWide.code).toBe(422);
    expect(clusterWide.message).toContain('roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"');
  });
});

describe('PATCH accepts JSON patch, merge patch and (for built-in types) strategic merge patch', () => {
  it('JSON patch is the client default and applies operations in order', async () => {
    await core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'json-patched' } } });
    const patched = await core().patchNamespacedServiceAccount({
      namespace: 'default',
      name: 'json-patched',
      body: [
        { op: 'add', path: '/metadata/annotations', value: { 'platform.dev/claims': '{}' } },
        { op: 'add', path: '/metadata/labels', value: { team: 'a' } },
        { op: 'replace', path: '/metadata/labels/team', value: 'b' },
      ],
    });
    expect(patched.metadata?.annotations).toEqual({ 'platform.dev/claims': '{}' });
    expect(patched.metadata?.labels).toEqual({ team: 'b' });
  });

  it('a failing JSON patch test operation is a 422 and changes nothing', async () => {
    await core().createNamespacedServiceAccount({
      namespace: 'default',
      body: { metadata: { name: 'json-tested', labels: { team: 'b' } } },
    });
    const status = await statusOf(
      core().patchNamespacedServiceAccount({
        namespace: 'default',
        name: 'json-tested',
        body: [
          { op: 'test', path: '/metadata/labels/team', value: 'zzz' },
          { op: 'remove', path: '/metadata/labels' },
        ],
      }),
    );
    expect(status.code).toBe(422);
    const current = await core().readNamespacedServiceAccount({ namespace: 'default', name: 'json-tested' });
    expect(current.metadata?.labels).toEqual({ team: 'b' });
  });

  it('merge patch merges maps and removes keys set to null', async () => {
    await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'merged' }, data: { keep: '1', drop: '2' } },
    });
    const patched = await core().patchNamespacedConfigMap(
      { namespace: 'default', name: 'merged', body: { data: { drop: null, add: '3' } } },
      mergePatch,
    );
    expect(patched.data).toEqual({ keep: '1', add: '3' });
  });

  it('strategic merge patch works on built-in types', async () => {
    await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'strategic' }, data: { keep: '1' } },
    });
    const patched = await core().patchNamespacedConfigMap(
      { namespace: 'default', name: 'strategic', body: { data: { more: '4' } } },
      strategicPatch,
    );
    expect(patched.data).toEqual({ keep: '1', more: '4' });
  });

  it('a patch carrying a stale resourceVersion is a 409 Conflict', async () => {
    await core().createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'stale' }, data: { keep: '1' } },
    });
    await core().patchNamespacedConfigMap(
      { namespace: 'default', name: 'stale', body: { data: { keep: '2' } } },
      mergePatch,
    );
    const status = await statusOf(
      core().patchNamespacedConfigMap(
        { namespace: 'default', name: 'stale', body: { metadata: { resourceVersion: '1' }, data: { x: 'y' } } },
        mergePatch,
      ),
    );
    expect(status).toMatchObject({ code: 409, reason: 'Conflict' });
  });
});

describe('lists filter by label and field selectors, across namespaces too', () => {
  // Every test of this block reads these ConfigMaps, in whatever order the tests run.
  beforeAll(async () => {
    await createNamespace('selectors');
    const labelled: [string, Record<string, string>][] = [
      ['one', { tier: 'web', env: 'prod' }],
      ['two', { tier: 'db', env: 'prod' }],
      ['three', { tier: 'web' }],
    ];
    for (const [name, labels] of labelled)
      await core().createNamespacedConfigMap({ namespace: 'selectors', body: { metadata: { name, labels } } });
  });

  it('supports =, ==, !=, in, notin, exists and !exists', async () => {
    const names = async (labelSelector: string) =>
      (await core().listNamespacedConfigMap({ namespace: 'selectors', labelSelector })).items
        .map((item) => item.metadata?.name)
        .sort();
    expect(await names('tier=web')).toEqual(['one', 'three']);
    expect(await names('tier==db')).toEqual(['two']);
    expect(await names('env!=prod')).toEqual(['three']);
    expect(await names('tier in (db, cache)')).toEqual(['two']);
    expect(await names('tier notin (web),env')).toEqual(['two']);
    expect(await names('!env')).toEqual(['three']);
    expect(await names('env,tier=web')).toEqual(['one']);
  });

  it('a malformed selector is a 400', async () => {
    const status = await statusOf(
      core().listNamespacedConfigMap({ namespace: 'selectors', labelSelector: 'tier in web' }),
    );
    expect(status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  it('field selectors on metadata.name and metadata.namespace, others refused', async () => {
    const byName = await core().listConfigMapForAllNamespaces({ fieldSelector: 'metadata.name=two' });
    expect(byName.items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`)).toEqual(['selectors/two']);
    const notDefault = await core().listServiceAccountForAllNamespaces({
      fieldSelector: 'metadata.namespace!=default,metadata.name=default',
    });
    expect(notDefault.items.map((item) => item.metadata?.namespace)).not.toContain('default');
    expect(notDefault.items.length).toBeGreaterThan(2);
    const status = await statusOf(core().listConfigMapForAllNamespaces({ fieldSelector: 'spec.x=y' }));
    expect(status).toMatchObject({ code: 400, message: 'field label not supported: spec.x' });
  });
});

describe('lists paginate with limit and continue', () => {
  it('returns every item once across pages, with a continue token on all but the last', async () => {
    await createNamespace('paged');
    for (let i = 0; i < 7; i++)
      await core().createNamespacedConfigMap({ namespace: 'paged', body: { metadata: { name: `item-${i}` } } });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core().listNamespacedConfigMap({ namespace: 'paged', limit: 3, _continue: token });
      seen.push(...page.items.map((item) => item.metadata!.name!));
      token = page.metadata?._continue;
      pages++;
      if (token) expect(page.metadata?.remainingItemCount).toBe(7 - seen.length);
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(['item-0', 'item-1', 'item-2', 'item-3', 'item-4', 'item-5', 'item-6']);
  });

  it('a garbage continue token is a 400', async () => {
    const status = await statusOf(
      core().listNamespacedConfigMap({ namespace: 'paged', limit: 3, _continue: 'garbage' }),
    );
    expect(status.code).toBe(400);
  });
});

describe('deleting a namespace deletes what is in it', () => {
  it('removes the namespaced objects, then the namespace', async () => {
    await createNamespace('doomed');
    await core().createNamespacedSecret({ namespace: 'doomed', body: { metadata: { name: 's' } } });
    await core().createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'c' } } });
    const deleted = (await core().deleteNamespace({ name: 'doomed' })) as unknown as { status?: { phase?: string } };
    expect(deleted.status?.phase).toBe('Terminating');
    expect((await statusOf(core().readNamespace({ name: 'doomed' }))).code).toBe(404);
    expect((await statusOf(core().readNamespacedSecret({ namespace: 'doomed', name: 's' }))).code).toBe(404);
    const everywhere = await core().listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=doomed' });
    expect(everywhere.items).toEqual([]);
  });

  it('delete answers a Status for Secrets and the object for ServiceAccounts', async () => {
    await core().createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'gone' } } });
    const status = await core().deleteNamespacedSecret({ namespace: 'default', name: 'gone' });
    expect(status).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'gone', kind: 'secrets' } });
    await core().createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'gone-sa' } } });
    const account = await core().deleteNamespacedServiceAccount({ namespace: 'default', name: 'gone-sa' });
    expect(account.metadata?.name).toBe('gone-sa');
  });
});
