// The emulator's server-side apply and dry runs of custom resources, which the API server passes kubectl's
// `apply --server-side` and `--dry-run=server` on to.
import { beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { rawRequest, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const GROUP = 'platform.dev';
const collection = `/apis/${GROUP}/v1alpha1/namespaces/team/workspaces`;

function configuration(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace', metadata: { name }, spec });
}

const source = { repository: 'https://git.example.com/infra.git' };

function apply(name: string, body: string, query: string): Promise<Response> {
  return rawRequest(emulator(), `${collection}/${name}?${query}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/apply-patch+yaml' },
    body,
  });
}

async function stored(name: string): Promise<Record<string, any> | undefined> {
  const response = await rawRequest(emulator(), `${collection}/${name}`);
  return response.status === 404 ? undefined : ((await response.json()) as Record<string, any>);
}

beforeAll(async () => {
  await installPlatformCrds(emulator().kubeConfig(), GROUP);
  await emulator()
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: 'team' } } });
});

describe('Server-side apply: managers own the fields they apply', () => {
  it("creates the object, records the manager's fields, and reports a conflicting manager with 409 Conflict", async () => {
    const created = await apply(
      'one',
      configuration('one', { source, tool: { version: '1.8.2' } }),
      'fieldManager=first',
    );
    expect(created.status).toBe(201);
    const object = await stored('one');
    expect(object!.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'first',
        operation: 'Apply',
        fieldsV1: { 'f:spec': { 'f:source': { 'f:repository': {} }, 'f:tool': { 'f:version': {} } } },
      }),
    ]);
    expect(object!.spec.tool).toEqual({ version: '1.8.2', name: 'opentofu' });

    const conflict = await apply(
      'one',
      configuration('one', { source, tool: { version: '1.9.0' } }),
      'fieldManager=second',
    );
    expect(conflict.status).toBe(409);
    const status = (await conflict.json()) as {
      reason: string;
      message: string;
      details: { causes: { field: string }[] };
    };
    expect(status.reason).toBe('Conflict');
    expect(status.details.causes.map((cause) => cause.field)).toEqual(['.spec.tool.version']);
    expect((await stored('one'))!.spec.tool.version).toBe('1.8.2');

    // The same value is shared ownership, not a conflict.
    expect(
      (await apply('one', configuration('one', { source, description: 'shared' }), 'fieldManager=second')).status,
    ).toBe(200);
  });

  it('takes fields over with force and removes fields a manager stops applying', async () => {
    await apply(
      'two',
      configuration('two', { source, tool: { version: '1.8.2' }, description: 'first' }),
      'fieldManager=first',
    );
    expect(
      (
        await apply(
          'two',
          configuration('two', { source, tool: { version: '1.9.0' } }),
          'fieldManager=second&force=true',
        )
      ).status,
    ).toBe(200);
    const afterForce = await stored('two');
    expect(afterForce!.spec.tool.version).toBe('1.9.0');
    expect(
      afterForce!.metadata.managedFields.find((entry: any) => entry.manager === 'first').fieldsV1['f:spec']['f:tool'],
    ).toBeUndefined();

    await apply('two', configuration('two', { source }), 'fieldManager=first');
    expect((await stored('two'))!.spec.description).toBeUndefined();
  });

  it('needs a field manager, and a resourceVersion in the configuration is a precondition', async () => {
    expect((await apply('three', configuration('three', { source, tool: { version: '1.8.2' } }), '')).status).toBe(400);
    const withVersion = JSON.stringify({
      ...JSON.parse(configuration('three', { source, tool: { version: '1.8.2' } })),
      metadata: { name: 'three', resourceVersion: '1' },
    });
    expect((await apply('three', withVersion, 'fieldManager=first')).status).toBe(404);
    expect(await stored('three')).toBeUndefined();
  });
});

describe('dryRun=All validates a write and stores nothing', () => {
  it('answers a dry-run create, update and delete without storing them, and refuses other modes', async () => {
    const body = configuration('dry', { source, tool: { version: '1.8.2' } });
    const created = await rawRequest(emulator(), `${collection}?dryRun=All`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(created.status).toBe(201);
    expect(await stored('dry')).toBeUndefined();
    const invalid = await rawRequest(emulator(), `${collection}?dryRun=All`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: configuration('dry', { source }),
    });
    expect(invalid.status).toBe(422);
    expect(
      (
        await rawRequest(emulator(), `${collection}?dryRun=Everything`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
      ).status,
    ).toBe(400);

    await rawRequest(emulator(), collection, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const patched = await rawRequest(emulator(), `${collection}/dry?dryRun=All`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { suspend: true } }),
    });
    expect(((await patched.json()) as any).spec.suspend).toBe(true);
    expect((await stored('dry'))!.spec.suspend).toBe(false);
    expect((await rawRequest(emulator(), `${collection}/dry?dryRun=All`, { method: 'DELETE' })).status).toBe(200);
    expect(await stored('dry')).toBeDefined();
  });
});

describe("issue 20: DeleteOptions in a delete's body are read as kube-apiserver reads them", () => {
  const remove = (path: string, options?: unknown) =>
    rawRequest(emulator(), path, {
      method: 'DELETE',
      ...(options === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(options) }),
    });
  const create = (name: string) =>
    rawRequest(emulator(), collection, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: configuration(name, { source, tool: { version: '1.8.2' } }),
    });

  it("issue 20: the body's dryRun All (as kubectl 1.33 sends it) deletes nothing, for one object and a collection", async () => {
    await create('body-dry');
    const kubectlBody = { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background' };
    const answer = await remove(`${collection}/body-dry`, kubectlBody);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as any).metadata.name).toBe('body-dry');
    expect(await stored('body-dry')).toBeDefined();
    expect((await remove(collection, kubectlBody)).status).toBe(200);
    expect(await stored('body-dry')).toBeDefined();
    const namespace = await remove('/api/v1/namespaces/team', kubectlBody);
    expect(namespace.status).toBe(200);
    expect(((await rawRequest(emulator(), '/api/v1/namespaces/team').then((r) => r.json())) as any).status.phase).toBe(
      'Active',
    );
  });

  it('issue 20: with a body the query is not read (kube-apiserver decodes one or the other): a query dry run beside a body deletes', async () => {
    await create('body-wins');
    expect(
      (await remove(`${collection}/body-wins?dryRun=All`, { kind: 'DeleteOptions', apiVersion: 'v1' })).status,
    ).toBe(200);
    expect(await stored('body-wins')).toBeUndefined();
  });

  it('issue 20: DeleteOptions are validated: an unknown dryRun or propagationPolicy is a 422 of DeleteOptions, preconditions apply', async () => {
    await create('body-checked');
    for (const options of [
      { dryRun: ['Some'] },
      { propagationPolicy: 'Sideways' },
      { propagationPolicy: 'Orphan', orphanDependents: true },
    ]) {
      const refused = await remove(`${collection}/body-checked`, options);
      expect(refused.status, JSON.stringify(options)).toBe(422);
      expect(((await refused.json()) as any).message).toMatch(/^DeleteOptions\.meta\.k8s\.io "" is invalid: /);
    }
    expect((await remove(`${collection}/body-checked?propagationPolicy=Sideways`)).status).toBe(422);
    expect((await remove(`${collection}/body-checked`, { preconditions: { uid: 'other' } })).status).toBe(409);
    expect((await remove(collection, { dryRun: ['All'], preconditions: { uid: 'other' } })).status).toBe(409);
    expect(await stored('body-checked')).toBeDefined();
  });
});
