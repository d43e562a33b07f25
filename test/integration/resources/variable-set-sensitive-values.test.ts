// The sensitive-value rules of VariableSets (spec: "VariableSets never store or return a sensitive
// value"), on the writes themselves against the Kubernetes emulator: what the cluster stores, what
// the Secret `variableset-<name>` holds, and what the caller gets back, for every kind of write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { variableSetWrites } from '../../../functions/resources/kinds/variable-set-writes.ts';
import { sensitiveValuesSecretName } from '../../../shared/domain/resources/variable-set-secret.ts';
import type { ObjectLocation } from '../../../shared/domain/resources/cluster-objects.ts';
import { KubernetesRestClient } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import type { KubernetesCall } from '../../../shared/base/kubernetes/kubernetes-rest-client.ts';
import { startKubeEmulator, type KubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { ClusterObjects } from '../../../shared/domain/resources/cluster-objects.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { VARIABLE_SET } from '../../../shared/contract/kinds/platform-kinds.ts';
import type { PlatformObject } from '../../../shared/contract/kinds/platform-object.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { silentLogger } from '../../support/function-servers.ts';

const GROUP = 'platform.dev';
const NAMESPACE = 'team';
const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

let emulator: KubeEmulator;
let objects: ClusterObjects;
/** The writes as a request without write options (no dryRun, fieldManager, ...) makes them. */
interface PlainRequestWrites {
  create(location: ObjectLocation, object: PlatformObject): ReturnType<ReturnType<typeof variableSetWrites>['create']>;
  replace(
    location: ObjectLocation,
    object: PlatformObject,
  ): ReturnType<ReturnType<typeof variableSetWrites>['replace']>;
  patch(
    location: ObjectLocation,
    patch: unknown,
    contentType: string,
  ): ReturnType<ReturnType<typeof variableSetWrites>['patch']>;
  delete(location: ObjectLocation): ReturnType<ReturnType<typeof variableSetWrites>['delete']>;
  present: ReturnType<typeof variableSetWrites>['present'];
}
let writes: PlainRequestWrites;
let sequence = 0;

beforeAll(async () => {
  emulator = await startKubeEmulator();
  await installPlatformCrds(emulator.kubeConfig(), GROUP);
  await emulator
    .kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespace({ body: { metadata: { name: NAMESPACE } } });
  objects = new ClusterObjects(new KubernetesRestClient(emulator.kubeConfig(), silentLogger), GROUP);
  const all = variableSetWrites(objects);
  const none = () => new URLSearchParams();
  writes = {
    create: (at, object) => all.create(at, object, none()),
    replace: (at, object) => all.replace(at, object, none()),
    patch: (at, patch, contentType) => all.patch(at, patch, contentType, none()),
    delete: (at) => all.delete(at, { kind: 'DeleteOptions', apiVersion: 'v1' }),
    present: all.present,
  };
});

afterAll(() => emulator?.close());

/** A name no other test uses, so each test sets up its own VariableSet whatever ran before. */
const uniqueName = () => `set-${++sequence}`;
const location = (name: string) => ({ namespace: NAMESPACE, name });
const variableSet = (name: string, variables: unknown): PlatformObject =>
  ({ apiVersion: `${GROUP}/v1alpha1`, kind: 'VariableSet', metadata: { name }, spec: { variables } }) as PlatformObject;
const reference = (setName: string, key: string) => ({
  secretKeyRef: { name: sensitiveValuesSecretName(setName), key },
});
/** A variable as the cluster answers it: with the VariableSet schema's defaults. */
const defaulted = (variable: Record<string, unknown>) => ({
  sensitive: false,
  category: 'terraform',
  hcl: false,
  ...variable,
});

async function stored(name: string): Promise<PlatformObject> {
  return (await objects.find<PlatformObject>(objects.platformPath(VARIABLE_SET, location(name))))!;
}

async function secretOf(
  name: string,
): Promise<{ data?: Record<string, string>; metadata: Record<string, any> } | undefined> {
  return objects.find(objects.corePath('secrets', { namespace: NAMESPACE, name: sensitiveValuesSecretName(name) }));
}

const decoded = (data: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));

async function statusError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('A create whose sensitive value also stands elsewhere is refused before anything is stored, naming the object as sent', () => {
  it('refuses an object without a name with a Status that invents none', async () => {
    const nameless = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { labels: { copy: 'hunter2' } },
      spec: { variables: [{ name: 'k', sensitive: true, value: 'hunter2' }] },
    } as unknown as PlatformObject;
    const error = await statusError(writes.create(location('nameless'), nameless));
    expect([error.status, error.reason]).toEqual([422, 'Invalid']);
    expect(error.message).toBe(
      'VariableSet "" is invalid: spec.variables: a sensitive value may not appear anywhere else in the VariableSet (found at /metadata/labels/copy)',
    );
    expect(error.details).toMatchObject({ name: '', kind: 'VariableSet' });
    expect(await stored('nameless')).toBeUndefined();
  });
});

describe('A sensitive value written on create is moved into the Secret variableset-<name>; the VariableSet holds only a reference', () => {
  it('stores and answers a reference, keeps plain values, and writes the value into an owned, labelled Secret', async () => {
    const name = uniqueName();
    const answer = await writes.create(
      location(name),
      variableSet(name, [
        { name: 'region', value: 'eu' },
        { name: 'db_password', sensitive: true, value: 'hunter2' },
      ]),
    );
    const expected = [
      defaulted({ name: 'region', value: 'eu' }),
      defaulted({ name: 'db_password', sensitive: true, valueFrom: reference(name, 'db_password') }),
    ];
    expect(answer.status).toBe(201);
    expect(answer.body.spec!.variables).toEqual(expected);
    expect((await stored(name)).spec!.variables).toEqual(expected);
    const secret = (await secretOf(name))!;
    expect(decoded(secret.data)).toEqual({ db_password: 'hunter2' });
    expect(secret.metadata.labels).toEqual({ [`${GROUP}/variableset`]: name });
    expect((secret as { type?: string }).type).toBe('Opaque');
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'VariableSet', name, uid: answer.body.metadata.uid, controller: true }),
    ]);
    expect(JSON.stringify(await stored(name))).not.toContain('hunter2');
  });

  it('counts the variables in status.variableCount', async () => {
    const name = uniqueName();
    const answer = await writes.create(
      location(name),
      variableSet(name, [
        { name: 'a', value: '1' },
        { name: 'b', sensitive: true, value: '2' },
      ]),
    );
    expect(answer.body.status).toMatchObject({ variableCount: 2 });
    const none = uniqueName();
    expect((await writes.create(location(none), { ...variableSet(none, []), spec: {} })).body.status).toMatchObject({
      variableCount: 0,
    });
  });

  it('writes no Secret when no variable is sensitive, or a sensitive one carries no value', async () => {
    const name = uniqueName();
    await writes.create(
      location(name),
      variableSet(name, [
        { name: 'plain', value: 'x' },
        { name: 'later', sensitive: true },
      ]),
    );
    expect(await secretOf(name)).toBeUndefined();
    expect((await stored(name)).spec!.variables).toEqual([
      defaulted({ name: 'plain', value: 'x' }),
      defaulted({ name: 'later', sensitive: true }),
    ]);
  });

  it('writes no Secret for a reference to a key it does not hold, and keeps the reference', async () => {
    const name = uniqueName();
    const answer = await writes.create(
      location(name),
      variableSet(name, [{ name: 'k', valueFrom: reference(name, 'k') }]),
    );
    expect(answer.body.spec!.variables).toEqual([defaulted({ name: 'k', valueFrom: reference(name, 'k') })]);
    expect(await secretOf(name)).toBeUndefined();
  });

  it('sends a VariableSet without a spec as it is, for the cluster to refuse (no spec is invented)', async () => {
    const name = uniqueName();
    const error = await statusError(
      writes.create(location(name), {
        apiVersion: `${GROUP}/v1alpha1`,
        kind: 'VariableSet',
        metadata: { name },
      } as PlatformObject),
    );
    expect([error.status, error.message]).toEqual([
      422,
      `VariableSet.${GROUP} "${name}" is invalid: spec: Required value`,
    ]);
    expect(await stored(name)).toBeUndefined();
  });

  it.each([
    ['a non-string value', { name: 'n', sensitive: true, value: 42 }],
    ['a non-string name', { name: 7, sensitive: true, value: 'v' }],
  ])('refuses %s with 422 Invalid and stores nothing', async (_case, variable) => {
    const name = uniqueName();
    const error = await statusError(writes.create(location(name), variableSet(name, [variable])));
    expect([error.status, error.reason]).toEqual([422, 'Invalid']);
    expect(error.message).toBe(
      `VariableSet "${name}" is invalid: spec.variables: a sensitive variable needs a string name and a string value`,
    );
    expect(error.details).toEqual({
      name,
      kind: 'VariableSet',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'a sensitive variable needs a string name and a string value',
          field: 'spec.variables',
        },
      ],
    });
    expect(await stored(name)).toBeUndefined();
  });

  it('replaces a valueFrom the caller sent beside a sensitive value with the reference to its own Secret', async () => {
    const name = uniqueName();
    const answer = await writes.create(
      location(name),
      variableSet(name, [
        { name: 'k', sensitive: true, value: 'v', valueFrom: { secretKeyRef: { name: 'someone-elses', key: 'x' } } },
      ]),
    );
    expect(answer.body.spec!.variables).toEqual([
      defaulted({ name: 'k', sensitive: true, valueFrom: reference(name, 'k') }),
    ]);
  });

  it('deletes the VariableSet again when its Secret cannot be written, so no VariableSet lacks the values it was given', async () => {
    const failingSecrets = new ClusterObjects(new KubernetesRestClient(emulator.kubeConfig(), silentLogger), GROUP);
    const send = failingSecrets.send.bind(failingSecrets);
    failingSecrets.send = (async (call: KubernetesCall) => {
      if (call.path.includes('/secrets'))
        throw new ApiError(503, 'KubernetesUnavailable', 'the Secret could not be written');
      return send(call);
    }) as typeof failingSecrets.send;
    const name = uniqueName();
    const error = (await variableSetWrites(failingSecrets)
      .create(location(name), variableSet(name, [{ name: 'k', sensitive: true, value: 'v' }]), new URLSearchParams())
      .catch((failure: unknown) => failure)) as ApiError;
    expect([error.status, error.reason]).toEqual([503, 'KubernetesUnavailable']);
    expect(await stored(name)).toBeUndefined();
  });
});

describe('Replace and merge patch rewrite the variables like a create; the Secret holds exactly the keys the VariableSet refers to', () => {
  it('replace: a new value replaces the old, an unchanged reference keeps its value, an unreferenced key is dropped', async () => {
    const name = uniqueName();
    const created = await writes.create(
      location(name),
      variableSet(name, [
        { name: 'a', sensitive: true, value: 'first-a' },
        { name: 'b', sensitive: true, value: 'first-b' },
        { name: 'c', sensitive: true, value: 'first-c' },
      ]),
    );
    const [keptA] = created.body.spec!.variables as unknown[];
    const replaced = await writes.replace(location(name), {
      ...created.body,
      spec: {
        variables: [
          keptA,
          { name: 'b', sensitive: true, value: 'second-b' },
          { name: 'd', sensitive: true, value: 'first-d' },
        ],
      },
    });
    expect(replaced.status).toBe(200);
    expect(decoded((await secretOf(name))!.data)).toEqual({ a: 'first-a', b: 'second-b', d: 'first-d' });
    expect(replaced.body.status).toMatchObject({ variableCount: 3 });
  });

  it('merge patch: a sensitive value in spec.variables is moved; a patch without variables leaves the Secret alone', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'a', sensitive: true, value: 'first' }]));
    const patched = await writes.patch(
      location(name),
      {
        spec: {
          variables: [
            { name: 'a', sensitive: true, value: 'second' },
            { name: 'b', value: 'plain' },
          ],
        },
      },
      MERGE_PATCH,
    );
    expect(patched.body.spec!.variables).toEqual([
      defaulted({ name: 'a', sensitive: true, valueFrom: reference(name, 'a') }),
      defaulted({ name: 'b', value: 'plain' }),
    ]);
    expect(decoded((await secretOf(name))!.data)).toEqual({ a: 'second' });
    await writes.patch(location(name), { metadata: { labels: { tier: 'gold' } } }, MERGE_PATCH);
    await writes.patch(location(name), { spec: { description: 'no variables here' } }, MERGE_PATCH);
    expect(decoded((await secretOf(name))!.data)).toEqual({ a: 'second' });
    expect(JSON.stringify(await stored(name))).not.toContain('second');
  });

  it('deletes the Secret once no variable refers to it any more', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'a', sensitive: true, value: 'v' }]));
    await writes.patch(location(name), { spec: { variables: [{ name: 'a', value: 'now plain' }] } }, MERGE_PATCH);
    expect(await secretOf(name)).toBeUndefined();
  });

  it("keeps in the Secret only keys referring to this VariableSet's own Secret", async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'a', sensitive: true, value: 'v' }]));
    const current = await stored(name);
    await writes.replace(location(name), {
      ...current,
      spec: { variables: [{ name: 'a', valueFrom: { secretKeyRef: { name: 'another-secret', key: 'a' } } }] },
    });
    expect(await secretOf(name)).toBeUndefined();
  });
});

describe('A JSON patch is judged on the object it produces: sensitive values it brings are moved, and one that would also stand elsewhere is refused', () => {
  it.each([
    ['add', [{ op: 'add', path: '/spec/variables/-', value: { name: 'y', sensitive: true, value: 'moved' } }]],
    [
      'replace of a whole variable',
      [{ op: 'replace', path: '/spec/variables/0', value: { name: 'x', sensitive: true, value: 'moved' } }],
    ],
  ])('%s: the value goes into the Secret and the stored object holds a reference', async (_op, patch) => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const answer = await writes.patch(location(name), patch, JSON_PATCH);
    expect(JSON.stringify(answer.body)).not.toContain('moved');
    expect(JSON.stringify(await stored(name))).not.toContain('moved');
    expect(Object.values(decoded((await secretOf(name))!.data))).toEqual(['moved']);
  });

  it.each([
    [
      'copy to the description',
      [
        { op: 'add', path: '/spec/variables/-', value: { name: 'y', sensitive: true, value: 'leak' } },
        { op: 'copy', from: '/spec/variables/1/value', path: '/spec/description' },
      ],
      '/spec/description',
    ],
    [
      'a plain variable with the same value',
      [
        { op: 'add', path: '/spec/variables/-', value: { name: 'y', sensitive: true, value: 'leak' } },
        { op: 'replace', path: '/spec/variables/0/value', value: 'leak' },
      ],
      '/spec/variables/0/value',
    ],
  ])('refuses %s with 422 naming where, and changes nothing', async (_op, patch, where) => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const error = await statusError(writes.patch(location(name), patch, JSON_PATCH));
    expect([error.status, error.reason]).toEqual([422, 'Invalid']);
    expect(error.message).toBe(
      `VariableSet "${name}" is invalid: spec.variables: a sensitive value may not appear anywhere else in the VariableSet (found at ${where})`,
    );
    expect((await stored(name)).spec!.variables).toEqual([defaulted({ name: 'x', value: '1' })]);
    expect(await secretOf(name)).toBeUndefined();
  });

  it('applies a remove of a sensitive variable and drops its key from the Secret', async () => {
    const name = uniqueName();
    await writes.create(
      location(name),
      variableSet(name, [
        { name: 'a', sensitive: true, value: 'va' },
        { name: 'b', sensitive: true, value: 'vb' },
      ]),
    );
    const answer = await writes.patch(location(name), [{ op: 'remove', path: '/spec/variables/0' }], JSON_PATCH);
    expect(answer.body.spec!.variables).toEqual([
      defaulted({ name: 'b', sensitive: true, valueFrom: reference(name, 'b') }),
    ]);
    expect(decoded((await secretOf(name))!.data)).toEqual({ b: 'vb' });
  });

  it('refuses an operation without a string path with 422, not a crash of the guard', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const error = await statusError(writes.patch(location(name), [{ op: 'add', path: 7, value: 'v' }], JSON_PATCH));
    expect([error.status, error.reason]).toEqual([422, 'Invalid']);
    expect(error.details).toMatchObject({ name, kind: 'VariableSet' });
  });

  it('applies a JSON patch elsewhere in the object', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'a', sensitive: true, value: 'va' }]));
    const answer = await writes.patch(
      location(name),
      [{ op: 'add', path: '/spec/description', value: 'described' }],
      JSON_PATCH,
    );
    expect(answer.body.spec).toMatchObject({
      description: 'described',
      variables: [defaulted({ name: 'a', sensitive: true, valueFrom: reference(name, 'a') })],
    });
    expect(decoded((await secretOf(name))!.data)).toEqual({ a: 'va' });
  });
});

describe("Answers never carry a sensitive variable's value, however it came to be stored", () => {
  it('hides a value stored beside sensitive: true by a direct write to the cluster, and leaves other variables whole', () => {
    const presented = writes.present(
      variableSet('direct', [
        { name: 't', sensitive: true, value: 'written-by-kubectl' },
        { name: 'p', sensitive: false, value: 'shown' },
        { name: 'q', value: 'shown too' },
      ]),
    );
    expect(presented.spec!.variables).toEqual([
      { name: 't', sensitive: true },
      { name: 'p', sensitive: false, value: 'shown' },
      { name: 'q', value: 'shown too' },
    ]);
  });

  it('leaves an object without a spec as it is', () => {
    const object = {
      apiVersion: `${GROUP}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'bare' },
    } as PlatformObject;
    expect(writes.present(object)).toBe(object);
  });

  it('leaves an object without a variables list as it is', () => {
    const object = { ...variableSet('odd', undefined), spec: { variables: 'not a list' } } as PlatformObject;
    expect(writes.present(object)).toBe(object);
  });

  it('delete answers without the value and deletes the Secret', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'k', sensitive: true, value: 'v' }]));
    await objects.send({
      method: 'PATCH',
      path: objects.platformPath(VARIABLE_SET, location(name)),
      body: [{ op: 'add', path: '/spec/variables/0/value', value: 'smuggled' }],
      contentType: JSON_PATCH,
    });
    const answer = await writes.delete(location(name));
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain('smuggled');
    expect(await secretOf(name)).toBeUndefined();
    expect(await stored(name)).toBeUndefined();
  });
});

describe('A sensitive value may not stand anywhere else in the VariableSet: in any field, at any depth, as a key; an empty value is no secret', () => {
  it.each([
    [
      'a later plain variable',
      (name: string) =>
        variableSet(name, [
          { name: 's', sensitive: true, value: 'leak' },
          { name: 'a', value: 'x' },
          { name: 'b', value: 'leak' },
        ]),
      '/spec/variables/2/value',
    ],
    [
      'an annotation key',
      (name: string) =>
        ({
          ...variableSet(name, [{ name: 's', sensitive: true, value: 'leak' }]),
          metadata: { name, annotations: { leak: 'x' } },
        }) as PlatformObject,
      '/metadata/annotations/leak',
    ],
    [
      'a label value',
      (name: string) =>
        ({
          ...variableSet(name, [{ name: 's', sensitive: true, value: 'leak' }]),
          metadata: { name, labels: { a: 'leak' } },
        }) as PlatformObject,
      '/metadata/labels/a',
    ],
  ])('refuses a create with the value in %s (422, where, nothing stored)', async (_case, object, where) => {
    const name = uniqueName();
    const error = await statusError(writes.create(location(name), object(name)));
    expect([error.status, error.message]).toEqual([
      422,
      `VariableSet "${name}" is invalid: spec.variables: a sensitive value may not appear anywhere else in the VariableSet (found at ${where})`,
    ]);
    expect(await stored(name)).toBeUndefined();
    expect(await secretOf(name)).toBeUndefined();
  });

  it('accepts an empty sensitive value beside other empty strings', async () => {
    const name = uniqueName();
    const answer = await writes.create(
      location(name),
      variableSet(name, [
        { name: 's', sensitive: true, value: '' },
        { name: 'p', value: '' },
      ]),
    );
    expect(answer.status).toBe(201);
    expect(answer.body.spec!.variables).toEqual([
      defaulted({ name: 's', sensitive: true, valueFrom: reference(name, 's') }),
      defaulted({ name: 'p', value: '' }),
    ]);
  });

  it('looks through null fields without failing', async () => {
    const name = uniqueName();
    const object = {
      ...variableSet(name, [{ name: 's', sensitive: true, value: 'v' }]),
      metadata: { name, annotations: null },
    } as unknown as PlatformObject;
    const outcome = await writes.create(location(name), object).catch((error: unknown) => error);
    expect(outcome).not.toBeInstanceOf(TypeError);
  });

  it('a JSON patch removing the spec is sent as a removal: the cluster refuses it (spec is required) and keeps the object', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const error = await statusError(writes.patch(location(name), [{ op: 'remove', path: '/spec' }], JSON_PATCH));
    expect(error.status).toBe(422);
    expect((await stored(name)).spec).toEqual({ variables: [defaulted({ name: 'x', value: '1' })] });
  });
});

/**
 * Writes whose cluster sees another writer change the VariableSet just before each of the first
 * `races` patches: the patch, pinned to the resourceVersion it was computed from, then gets a 409.
 */
function racedWrites(races: number): { writes: ReturnType<typeof variableSetWrites>; patches: () => number } {
  const racing = new ClusterObjects(new KubernetesRestClient(emulator.kubeConfig(), silentLogger), GROUP);
  const send = racing.send.bind(racing);
  let patches = 0;
  racing.send = (async (call: KubernetesCall) => {
    if (call.method === 'PATCH' && call.contentType === JSON_PATCH) {
      patches++;
      if (patches <= races)
        await send({
          method: 'PATCH',
          path: call.path,
          body: { metadata: { annotations: { race: String(patches) } } },
          contentType: MERGE_PATCH,
        });
    }
    return send(call);
  }) as typeof racing.send;
  return { writes: variableSetWrites(racing), patches: () => patches };
}

describe("A patch that loses a race with another writer is recomputed on the new object, at most 5 times; a caller's own resourceVersion is never overridden", () => {
  const addSensitive = {
    spec: {
      variables: [
        { name: 'x', value: '1' },
        { name: 's', sensitive: true, value: 'raced' },
      ],
    },
  };

  it.each([1, 4])(
    "after %d lost race(s): the other writer's change and the patch both stand, the value in the Secret",
    async (races) => {
      const name = uniqueName();
      await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
      const raced = racedWrites(races);
      const answer = await raced.writes.patch(location(name), addSensitive, MERGE_PATCH, new URLSearchParams());
      expect(raced.patches()).toBe(races + 1);
      expect(answer.body.metadata.annotations).toEqual({ race: String(races) });
      expect(answer.body.spec!.variables).toEqual([
        defaulted({ name: 'x', value: '1' }),
        defaulted({ name: 's', sensitive: true, valueFrom: reference(name, 's') }),
      ]);
      expect(decoded((await secretOf(name))!.data)).toEqual({ s: 'raced' });
    },
  );

  it('after 5 lost races: 409, and the patch is not applied', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const raced = racedWrites(5);
    const error = await statusError(
      raced.writes.patch(location(name), addSensitive, MERGE_PATCH, new URLSearchParams()),
    );
    expect(error.status).toBe(409);
    expect(raced.patches()).toBe(5);
    expect((await stored(name)).spec!.variables).toEqual([defaulted({ name: 'x', value: '1' })]);
    expect(await secretOf(name)).toBeUndefined();
  });

  it('a caller who pinned the resourceVersion gets the 409 as soon as the pin is seen to be theirs (on the object read again)', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const pinned = { ...addSensitive, metadata: { resourceVersion: (await stored(name)).metadata.resourceVersion } };
    const raced = racedWrites(1);
    const error = await statusError(raced.writes.patch(location(name), pinned, MERGE_PATCH, new URLSearchParams()));
    expect(error.status).toBe(409);
    // The first 409 could be the race's; re-read, the object's resourceVersion is no longer the caller's pin.
    expect(raced.patches()).toBe(2);
    expect((await stored(name)).spec!.variables).toEqual([defaulted({ name: 'x', value: '1' })]);
  });

  it('any other refusal of the cluster is answered at once, not retried', async () => {
    const name = uniqueName();
    await writes.create(location(name), variableSet(name, [{ name: 'x', value: '1' }]));
    const raced = racedWrites(0);
    const error = await statusError(
      raced.writes.patch(
        location(name),
        { spec: { variables: [{ name: 'x', value: '1', category: 'bogus' }] } },
        MERGE_PATCH,
        new URLSearchParams(),
      ),
    );
    expect(error.status).toBe(422);
    expect(raced.patches()).toBe(1);
  });
});
