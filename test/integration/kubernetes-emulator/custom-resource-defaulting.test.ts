// Custom resources get their CustomResourceDefinition's schema defaults, as kube-apiserver's structural defaulting
// applies them: on the body of every write (after pruning, before validation) and on every read from storage. One
// CRD made here covers nested defaults, list items, additionalProperties and nullable; the platform's own CRDs show
// the defaults a real cluster answers for the real kinds.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';
import { useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const custom = () => emulator().kubeConfig().makeApiClient(CustomObjectsApi);
const extensions = () => emulator().kubeConfig().makeApiClient(ApiextensionsV1Api);
const GROUP = 'defaulting.test';
const PLATFORM = 'platform.dev';
const NAMESPACE = 'team-a';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

// client-node's model keys (_default, x_kubernetes_...), written to the wire as the API's names; `items` and
// `additionalProperties` are untyped in its model, so schemas under them are written with the wire names.
const GADGET_SPEC_SCHEMA: V1JSONSchemaProps = {
  type: 'object',
  required: ['mode'],
  properties: {
    mode: { type: 'string', _enum: ['auto', 'manual'], _default: 'auto' },
    tool: {
      type: 'object',
      properties: { name: { type: 'string', _default: 'opentofu' }, version: { type: 'string' } },
    },
    limits: {
      type: 'object',
      _default: {},
      properties: { cpu: { type: 'string', _default: '100m' }, memory: { type: 'string' } },
    },
    ports: {
      type: 'array',
      items: {
        type: 'object',
        properties: { number: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
      },
    },
    levels: { type: 'array', items: { type: 'string', default: 'info' } },
    env: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { value: { type: 'string' }, secret: { type: 'boolean', default: false } },
      },
    },
    labels: { type: 'object', additionalProperties: { type: 'string', default: 'unset' } },
    replicas: { type: 'integer', _default: 1 },
    note: { type: 'string', nullable: true, _default: 'none' },
    comment: { type: 'string' },
  },
};

const objectSchema = (spec: V1JSONSchemaProps): V1JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec },
});

const gadgets = { group: GROUP, version: 'v1', namespace: NAMESPACE, plural: 'gadgets' };
const gadget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gadget',
  metadata: { name },
  spec,
});
const createGadget = async (name: string, spec: Record<string, unknown>) =>
  (
    (await custom().createNamespacedCustomObject({ ...gadgets, body: gadget(name, spec) })) as {
      spec: Record<string, unknown>;
    }
  ).spec;

function createCrd(kind: string, plural: string, spec: V1JSONSchemaProps): Promise<unknown> {
  return extensions().createCustomResourceDefinition({
    body: {
      metadata: { name: `${plural}.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: objectSchema(spec) } }],
      },
    },
  });
}

beforeAll(async () => {
  const kubeConfig = emulator().kubeConfig();
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await createCrd('Gadget', 'gadgets', GADGET_SPEC_SCHEMA);
  await installPlatformCrds(kubeConfig, PLATFORM);
});

describe('A default fills in a missing property, before validation', () => {
  it('fills top-level properties, and a required property satisfied by its default is not refused', async () => {
    expect(await createGadget('plain', {})).toEqual({
      mode: 'auto',
      limits: { cpu: '100m' },
      replicas: 1,
      note: 'none',
    });
  });

  it('keeps what the object sets', async () => {
    const spec = { mode: 'manual', limits: { cpu: '2', memory: '1Gi' }, replicas: 3, note: 'kept' };
    expect(await createGadget('set', spec)).toEqual(spec);
  });
});

describe("A property is defaulted only where its parent object exists; a defaulted parent gets its children's defaults", () => {
  it('leaves spec.tool out when absent, and defaults spec.tool.name once spec.tool exists', async () => {
    expect(await createGadget('no-tool', {})).not.toHaveProperty('tool');
    expect((await createGadget('tool', { tool: { version: '1.9.0' } })).tool).toEqual({
      name: 'opentofu',
      version: '1.9.0',
    });
  });

  it('creates spec.limits from its default {}, then defaults spec.limits.cpu in it', async () => {
    expect((await createGadget('limits', {})).limits).toEqual({ cpu: '100m' });
  });
});

describe('Defaults reach list items and additionalProperties values', () => {
  it('defaults a property of every object in a list', async () => {
    expect((await createGadget('ports', { ports: [{ number: 80 }, { number: 53, protocol: 'UDP' }] })).ports).toEqual([
      { number: 80, protocol: 'TCP' },
      { number: 53, protocol: 'UDP' },
    ]);
  });

  it('defaults a property of every value of a map', async () => {
    expect((await createGadget('env', { env: { A: { value: 'a' }, B: { value: 'b', secret: true } } })).env).toEqual({
      A: { value: 'a', secret: false },
      B: { value: 'b', secret: true },
    });
  });
});

describe('nullable: false turns an explicit null into the default; nullable keeps it; a null without default is pruned', () => {
  it('replaces null properties, list items and map values that have a default', async () => {
    const spec = await createGadget('nulls', {
      replicas: null,
      levels: ['debug', null],
      labels: { team: null },
      note: null,
      comment: null,
    });
    expect(spec).toEqual({
      mode: 'auto',
      limits: { cpu: '100m' },
      replicas: 1,
      levels: ['debug', 'info'],
      labels: { team: 'unset' },
      note: null,
    });
  });
});

describe('Updates and patches are defaulted like creates', () => {
  it('a merge patch removing a defaulted field gets the default back; a JSON patch adding spec.tool gets tool.name', async () => {
    await createGadget('patched', { replicas: 4 });
    const merged = (await custom().patchNamespacedCustomObject(
      { ...gadgets, name: 'patched', body: { spec: { replicas: null } } },
      mergePatch,
    )) as { spec: Record<string, unknown> };
    expect(merged.spec.replicas).toBe(1);
    const added = (await custom().patchNamespacedCustomObject(
      { ...gadgets, name: 'patched', body: [{ op: 'add', path: '/spec/tool', value: {} }] },
      jsonPatch,
    )) as { spec: Record<string, unknown> };
    expect(added.spec.tool).toEqual({ name: 'opentofu' });
  });

  it('an update without the defaulted fields stores them', async () => {
    const created = (await custom().createNamespacedCustomObject({
      ...gadgets,
      body: gadget('replaced', { mode: 'manual' }),
    })) as { metadata: { resourceVersion: string } };
    const body = {
      ...gadget('replaced', {}),
      metadata: { name: 'replaced', resourceVersion: created.metadata.resourceVersion },
    };
    const updated = (await custom().replaceNamespacedCustomObject({ ...gadgets, name: 'replaced', body })) as {
      spec: Record<string, unknown>;
    };
    expect(updated.spec).toEqual({ mode: 'auto', limits: { cpu: '100m' }, replicas: 1, note: 'none' });
  });
});

describe('An object stored before its CRD gained a default has the default when read', () => {
  it('get, list and a JSON patch see the default the CRD added later', async () => {
    await createCrd('Sprocket', 'sprockets', {
      type: 'object',
      properties: { size: { type: 'string' }, tier: { type: 'string' } },
    });
    const sprockets = { group: GROUP, version: 'v1', namespace: NAMESPACE, plural: 'sprockets' };
    await custom().createNamespacedCustomObject({
      ...sprockets,
      body: { apiVersion: `${GROUP}/v1`, kind: 'Sprocket', metadata: { name: 'old' }, spec: { size: 'small' } },
    });
    const crd = await extensions().readCustomResourceDefinition({ name: `sprockets.${GROUP}` });
    crd.spec.versions[0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.tier = {
      type: 'string',
      _default: 'standard',
    };
    await extensions().replaceCustomResourceDefinition({ name: `sprockets.${GROUP}`, body: crd });

    const read = (await custom().getNamespacedCustomObject({ ...sprockets, name: 'old' })) as {
      spec: Record<string, unknown>;
    };
    expect(read.spec).toEqual({ size: 'small', tier: 'standard' });
    const listed = (await custom().listNamespacedCustomObject(sprockets)) as {
      items: { spec: Record<string, unknown> }[];
    };
    expect(listed.items.map((item) => item.spec)).toEqual([{ size: 'small', tier: 'standard' }]);
    // The patch applies to the object as read, so the defaulted path exists for a JSON patch to replace.
    const patched = (await custom().patchNamespacedCustomObject(
      { ...sprockets, name: 'old', body: [{ op: 'replace', path: '/spec/tier', value: 'premium' }] },
      jsonPatch,
    )) as { spec: Record<string, unknown> };
    expect(patched.spec).toEqual({ size: 'small', tier: 'premium' });
  });
});

describe("The platform's CRDs answer their defaults (Workspace spec.tool.name, autoApply, suspend, allowApplyWithoutPlan; Rollout failurePolicy and stages)", () => {
  it('a Workspace created without them has tool.name opentofu, autoApply false, suspend false and allowApplyWithoutPlan false', async () => {
    const workspaces = { group: PLATFORM, version: 'v1alpha1', namespace: NAMESPACE, plural: 'workspaces' };
    const spec = { source: { repository: 'https://git.example.com/infra.git' }, tool: { version: '1.9.0' } };
    await custom().createNamespacedCustomObject({
      ...workspaces,
      body: { apiVersion: `${PLATFORM}/v1alpha1`, kind: 'Workspace', metadata: { name: 'ws' }, spec },
    });
    const read = (await custom().getNamespacedCustomObject({ ...workspaces, name: 'ws' })) as {
      spec: Record<string, unknown>;
    };
    expect(read.spec).toEqual({
      source: spec.source,
      tool: { name: 'opentofu', version: '1.9.0' },
      autoApply: false,
      suspend: false,
      allowApplyWithoutPlan: false,
    });
  });

  it('a Rollout gets failurePolicy Halt and, per stage, requireApproval false (and the approval settings false once given); approved has no default: the API server shows it from the status', async () => {
    const rollouts = { group: PLATFORM, version: 'v1alpha1', namespace: NAMESPACE, plural: 'rollouts' };
    const body = {
      apiVersion: `${PLATFORM}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'r' },
      spec: { revision: 'abc', stages: [{ workspace: 'ws' }, { workspace: 'prod', approval: {} }] },
    };
    const created = (await custom().createNamespacedCustomObject({ ...rollouts, body })) as {
      spec: Record<string, unknown>;
    };
    expect(created.spec).toMatchObject({
      failurePolicy: 'Halt',
      stages: [
        { workspace: 'ws', requireApproval: false },
        {
          workspace: 'prod',
          requireApproval: false,
          approval: { required: false, distinctFromAuthor: false },
        },
      ],
    });
    expect((created.spec.stages as Array<Record<string, unknown>>).map((stage) => 'approved' in stage)).toEqual([
      false,
      false,
    ]);
  });
});
