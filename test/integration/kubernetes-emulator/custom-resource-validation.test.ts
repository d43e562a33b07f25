// Custom resources checked against their CustomResourceDefinition's structural schema, as kube-apiserver does:
// validation with its error wording, structural pruning, and the fieldValidation directive. One CRD made here
// exercises each keyword; the platform's own CRDs (the chart's files) show the rules on the real kinds.
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
import { rawRequest, statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const custom = () => emulator().kubeConfig().makeApiClient(CustomObjectsApi);
const GROUP = 'validation.test';
const PLATFORM = 'platform.dev';
const NAMESPACE = 'team-a';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

// client-node's model keys (x_kubernetes_..., _enum), written to the wire as the API's names.
const WIDGET_SCHEMA: V1JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
        size: { type: 'string', _enum: ['small', 'large'] },
        homepage: { type: 'string', format: 'uri' },
        port: { x_kubernetes_int_or_string: true },
        labels: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 2 },
        tags: { type: 'array', items: { type: 'string' }, x_kubernetes_list_type: 'set' },
        note: { type: 'string', nullable: true },
        comment: { type: 'string' },
        extra: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
        template: {
          type: 'object',
          x_kubernetes_embedded_resource: true,
          properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } },
        },
        either: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }] },
        exactlyOne: { type: 'string', oneOf: [{ maxLength: 3 }, { pattern: '^x' }] },
        both: { type: 'string', allOf: [{ minLength: 2 }, { pattern: '^y' }] },
        notEmpty: { type: 'string', not: { maxLength: 0 } },
      },
    },
  },
};

const widgets = { group: GROUP, version: 'v1', namespace: NAMESPACE, plural: 'widgets' };
const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
});
const workspaces = { group: PLATFORM, version: 'v1alpha1', namespace: NAMESPACE, plural: 'workspaces' };
const workspace = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${PLATFORM}/v1alpha1`,
  kind: 'Workspace',
  metadata: { name },
  spec,
});
const VALID_WORKSPACE_SPEC = {
  source: { repository: 'https://git.example.com/infra.git' },
  tool: { version: '1.9.0' },
};
/** The valid spec as the server answers it: with the Workspace schema's defaults. */
const DEFAULTED_WORKSPACE_SPEC = {
  ...VALID_WORKSPACE_SPEC,
  tool: { name: 'opentofu', ...VALID_WORKSPACE_SPEC.tool },
  autoApply: false,
  suspend: false,
  allowApplyWithoutPlan: false,
};
const rollouts = { group: PLATFORM, version: 'v1alpha1', namespace: NAMESPACE, plural: 'rollouts' };

interface InvalidStatus {
  code: number;
  reason?: string;
  message?: string;
  details?: { causes?: { reason: string; message: string; field: string }[] };
}

const createWidget = (name: string, spec: Record<string, unknown>) =>
  custom().createNamespacedCustomObject({ ...widgets, body: widget(name, spec) });
const widgetFailure = async (spec: Record<string, unknown>) =>
  (await statusOf(createWidget('w', spec))) as InvalidStatus;
const workspaceFailure = async (spec: Record<string, unknown>) =>
  (await statusOf(
    custom().createNamespacedCustomObject({ ...workspaces, body: workspace('ws', spec) }),
  )) as InvalidStatus;

beforeAll(async () => {
  const kubeConfig = emulator().kubeConfig();
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  await kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
    body: {
      metadata: { name: `widgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: WIDGET_SCHEMA } }],
      },
    },
  });
  await installPlatformCrds(kubeConfig, PLATFORM);
});

describe('type', () => {
  it('refuses a value of the wrong JSON type with 422 Invalid, FieldValueTypeInvalid', async () => {
    const status = await widgetFailure({ replicas: 'three' });
    expect(status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Widget.validation.test "w" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      details: {
        causes: [
          {
            reason: 'FieldValueTypeInvalid',
            field: 'spec.replicas',
            message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
          },
        ],
      },
    });
  });

  it('takes a whole number as a number, not a fraction as an integer', async () => {
    expect((await widgetFailure({ replicas: 2.5 })).message).toContain(
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    );
    await createWidget('whole-ratio', { ratio: 0.5 });
  });

  it('x-kubernetes-int-or-string accepts both, and nothing else', async () => {
    await createWidget('port-number', { port: 8080 });
    await createWidget('port-name', { port: 'http' });
    expect((await widgetFailure({ port: true })).message).toContain(
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    );
  });
});

describe('required', () => {
  it('names each missing field: Required value', async () => {
    const status = await workspaceFailure({ source: {} });
    expect(status.message).toBe(
      'Workspace.platform.dev "ws" is invalid: [spec.source.repository: Required value, spec.tool: Required value]',
    );
    expect(status.details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.source.repository' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.tool' },
    ]);
  });
});

describe('enum', () => {
  it('answers Unsupported value with the supported ones', async () => {
    const status = await workspaceFailure({ ...VALID_WORKSPACE_SPEC, tool: { name: 'pulumi', version: '1.0.0' } });
    expect(status.message).toBe(
      'Workspace.platform.dev "ws" is invalid: spec.tool.name: Unsupported value: "pulumi": supported values: "terraform", "opentofu"',
    );
    expect(status.details?.causes?.[0]?.reason).toBe('FieldValueNotSupported');
  });
});

describe('pattern', () => {
  it('quotes the pattern the value should match', async () => {
    const status = await workspaceFailure({ ...VALID_WORKSPACE_SPEC, tool: { version: 'latest' } });
    expect(status.message).toBe(
      `Workspace.platform.dev "ws" is invalid: spec.tool.version: Invalid value: "latest": spec.tool.version in body should match '^[0-9]+\\.[0-9]+\\.[0-9]+(-[0-9A-Za-z.-]+)?$'`,
    );
  });
});

describe('format', () => {
  it('checks the string formats the API server knows (uri, date-time), in status writes too', async () => {
    expect((await widgetFailure({ homepage: 'not a uri' })).message).toContain(
      'spec.homepage: Invalid value: "not a uri": spec.homepage in body must be of type uri: "not a uri"',
    );
    await custom().createNamespacedCustomObject({ ...workspaces, body: workspace('formats', VALID_WORKSPACE_SPEC) });
    const status = (await statusOf(
      custom().patchNamespacedCustomObjectStatus(
        { ...workspaces, name: 'formats', body: { status: { lastRun: { finishedAt: 'yesterday' } } } },
        mergePatch,
      ),
    )) as InvalidStatus;
    expect(status.message).toBe(
      'Workspace.platform.dev "formats" is invalid: status.lastRun.finishedAt: Invalid value: "yesterday": status.lastRun.finishedAt in body must be of type date-time: "yesterday"',
    );
    await custom().patchNamespacedCustomObjectStatus(
      { ...workspaces, name: 'formats', body: { status: { lastRun: { finishedAt: '2025-01-02T03:04:05Z' } } } },
      mergePatch,
    );
  });
});

describe('minimum, maximum, exclusiveMinimum, exclusiveMaximum', () => {
  it('words inclusive and exclusive bounds as kube-openapi does', async () => {
    expect((await widgetFailure({ replicas: 0 })).message).toContain(
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    );
    expect((await widgetFailure({ replicas: 11 })).message).toContain(
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
    expect((await widgetFailure({ ratio: 0 })).message).toContain(
      'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
    );
    expect((await widgetFailure({ ratio: 1 })).message).toContain(
      'spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1',
    );
  });

  it('applies to status through the status subresource (Rollout status.currentStage)', async () => {
    await custom().createNamespacedCustomObject({
      ...rollouts,
      body: {
        apiVersion: `${PLATFORM}/v1alpha1`,
        kind: 'Rollout',
        metadata: { name: 'r' },
        spec: { revision: 'abc', stages: [{ workspace: 'a' }] },
      },
    });
    const status = (await statusOf(
      custom().patchNamespacedCustomObjectStatus(
        { ...rollouts, name: 'r', body: { status: { currentStage: -1 } } },
        mergePatch,
      ),
    )) as InvalidStatus;
    expect(status.message).toBe(
      'Rollout.platform.dev "r" is invalid: status.currentStage: Invalid value: -1: status.currentStage in body should be greater than or equal to 0',
    );
  });
});

describe('minLength, maxLength', () => {
  it('a short string is an Invalid value, a long one Too long', async () => {
    const rollout = (revision: string) => ({
      apiVersion: `${PLATFORM}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'len' },
      spec: { revision, stages: [{ workspace: 'a' }] },
    });
    expect(
      ((await statusOf(custom().createNamespacedCustomObject({ ...rollouts, body: rollout('') }))) as InvalidStatus)
        .message,
    ).toBe(
      'Rollout.platform.dev "len" is invalid: spec.revision: Invalid value: "": spec.revision in body should be at least 1 chars long',
    );
    const status = (await statusOf(
      custom().createNamespacedCustomObject({ ...rollouts, body: rollout('x'.repeat(257)) }),
    )) as InvalidStatus;
    expect(status.message).toBe(
      'Rollout.platform.dev "len" is invalid: spec.revision: Too long: may not be more than 256 bytes',
    );
    expect(status.details?.causes?.[0]).toEqual({
      reason: 'FieldValueTooLong',
      message: 'Too long: may not be more than 256 bytes',
      field: 'spec.revision',
    });
  });
});

describe('minItems, maxItems', () => {
  it('too few items is an Invalid value, too many is Too many', async () => {
    const rollout = (stages: unknown[]) => ({
      apiVersion: `${PLATFORM}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'items' },
      spec: { revision: 'abc', stages },
    });
    expect(
      ((await statusOf(custom().createNamespacedCustomObject({ ...rollouts, body: rollout([]) }))) as InvalidStatus)
        .message,
    ).toBe(
      'Rollout.platform.dev "items" is invalid: spec.stages: Invalid value: 0: spec.stages in body should have at least 1 items',
    );
    const many = Array.from({ length: 65 }, (_, i) => ({ workspace: `w${i}` }));
    const status = (await statusOf(
      custom().createNamespacedCustomObject({ ...rollouts, body: rollout(many) }),
    )) as InvalidStatus;
    expect(status.message).toBe(
      'Rollout.platform.dev "items" is invalid: spec.stages: Too many: 65: must have at most 64 items',
    );
    expect(status.details?.causes?.[0]?.reason).toBe('FieldValueTooMany');
  });
});

describe('minProperties, maxProperties', () => {
  it('counts the properties of an object', async () => {
    expect((await widgetFailure({ labels: {} })).message).toContain(
      'spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties',
    );
    expect((await widgetFailure({ labels: { a: '1', b: '2', c: '3' } })).message).toContain(
      'spec.labels: Too many: 3: must have at most 2 items',
    );
  });

  it('validates additionalProperties values against their schema', async () => {
    expect((await widgetFailure({ labels: { a: 1 } })).message).toContain(
      'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
    );
  });
});

describe('nullable', () => {
  it('keeps null where nullable, drops it where not (as the server prunes non-nullable nulls)', async () => {
    const created = (await createWidget('nulls', { note: null, comment: null })) as { spec: Record<string, unknown> };
    expect(created.spec).toEqual({ note: null });
  });

  it('refuses null as a list item', async () => {
    expect((await widgetFailure({ tags: [null] })).message).toContain(
      'spec.tags[0]: Invalid value: "null": spec.tags[0] in body must be of type string: "null"',
    );
  });
});

describe('anyOf, oneOf, allOf, not', () => {
  it('reports the composition that fails and the closest alternative', async () => {
    expect((await widgetFailure({ either: 'c' })).message).toContain(
      'spec.either: Invalid value: "": spec.either must validate at least one schema (anyOf)',
    );
    expect((await widgetFailure({ exactlyOne: 'xyz' })).message).toContain(
      'spec.exactlyOne: Invalid value: "": spec.exactlyOne must validate one and only one schema (oneOf). Found 2 valid alternatives',
    );
    expect((await widgetFailure({ both: 'z' })).message).toContain(
      'spec.both: Invalid value: "": spec.both must validate all the schemas (allOf). None validated',
    );
    expect((await widgetFailure({ notEmpty: '' })).message).toContain(
      'spec.notEmpty: Invalid value: "": spec.notEmpty must not validate the schema (not)',
    );
    await createWidget('compositions', { either: 'b', exactlyOne: 'xyzw', both: 'yy', notEmpty: 'x' });
  });
});

describe('x-kubernetes-list-type', () => {
  it('set: a repeated item is a Duplicate value', async () => {
    const status = await widgetFailure({ tags: ['a', 'b', 'a'] });
    expect(status.message).toBe('Widget.validation.test "w" is invalid: spec.tags[2]: Duplicate value: "a"');
    expect(status.details?.causes?.[0]?.reason).toBe('FieldValueDuplicate');
  });

  it('map: a repeated key is a Duplicate value naming the key (Rollout stages by workspace)', async () => {
    const body = {
      apiVersion: `${PLATFORM}/v1alpha1`,
      kind: 'Rollout',
      metadata: { name: 'dup' },
      spec: { revision: 'abc', stages: [{ workspace: 'a' }, { workspace: 'a', requireApproval: true }] },
    };
    const status = (await statusOf(custom().createNamespacedCustomObject({ ...rollouts, body }))) as InvalidStatus;
    expect(status.message).toBe(
      'Rollout.platform.dev "dup" is invalid: spec.stages[1]: Duplicate value: map[string]interface {}{"workspace":"a"}',
    );
  });
});

describe('x-kubernetes-validations (CEL)', () => {
  it('is not evaluated: a VariableSet variable with both value and valueFrom is stored', async () => {
    const variables = [{ name: 'a', value: '1', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }];
    const body = {
      apiVersion: `${PLATFORM}/v1alpha1`,
      kind: 'VariableSet',
      metadata: { name: 'cel' },
      spec: { variables },
    };
    await custom().createNamespacedCustomObject({
      group: PLATFORM,
      version: 'v1alpha1',
      namespace: NAMESPACE,
      plural: 'variablesets',
      body,
    });
  });
});

describe('Issue 44, item 15: the emulator enforces the CRD schema and skips only its CEL rules, as docs/resources.md says', () => {
  const sourced = (name: string, path: unknown) =>
    workspace(name, { ...VALID_WORKSPACE_SPEC, source: { ...VALID_WORKSPACE_SPEC.source, path } });

  it('stores a Workspace whose spec.source.path only the CEL rule refuses ("../up"), as the docs say of local mode', async () => {
    const created = (await custom().createNamespacedCustomObject({
      ...workspaces,
      body: sourced('cel-gap', '../up'),
    })) as {
      spec: { source: { path: string } };
    };
    expect(created.spec.source.path).toBe('../up');
  });

  it('refuses the same field where the OpenAPI schema itself refuses it: a 422 Invalid naming spec.source.path', async () => {
    for (const [name, path] of [
      ['schema-type', 7],
      ['schema-length', 'a'.repeat(1025)],
    ] as const) {
      const status = (await statusOf(
        custom().createNamespacedCustomObject({ ...workspaces, body: sourced(name, path) }),
      )) as InvalidStatus;
      expect([status.code, status.reason, status.details?.causes?.[0]?.field], name).toEqual([
        422,
        'Invalid',
        'spec.source.path',
      ]);
    }
  });
});

describe('pruning of unknown fields', () => {
  it('drops fields the schema does not declare, and metadata fields ObjectMeta does not have', async () => {
    const body = {
      ...workspace('pruned', {
        ...VALID_WORKSPACE_SPEC,
        colour: 'red',
        source: { ...VALID_WORKSPACE_SPEC.source, depth: 1 },
      }),
      metadata: { name: 'pruned', owner: 'x' },
      extra: true,
    };
    const created = (await custom().createNamespacedCustomObject({ ...workspaces, body })) as Record<
      string,
      unknown
    > & { metadata: Record<string, unknown> };
    expect(created.spec).toEqual(DEFAULTED_WORKSPACE_SPEC);
    expect(created.extra).toBeUndefined();
    expect(created.metadata.owner).toBeUndefined();
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields, and apiVersion, kind, metadata of an embedded resource', async () => {
    const template = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', bogus: 1 },
      spec: { image: 'nginx', command: ['x'] },
      other: 1,
    };
    const created = (await createWidget('preserved', { extra: { anything: { goes: [1] } }, template })) as {
      spec: Record<string, unknown>;
    };
    expect(created.spec).toEqual({
      extra: { anything: { goes: [1] } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { image: 'nginx' } },
    });
  });

  it('prunes patches too: a merge patch cannot add an undeclared field', async () => {
    await custom().createNamespacedCustomObject({
      ...workspaces,
      body: workspace('pruned-patch', VALID_WORKSPACE_SPEC),
    });
    const patched = (await custom().patchNamespacedCustomObject(
      { ...workspaces, name: 'pruned-patch', body: { spec: { colour: 'blue', suspend: true } } },
      mergePatch,
    )) as { spec: Record<string, unknown> };
    expect(patched.spec).toEqual({ ...DEFAULTED_WORKSPACE_SPEC, suspend: true });
  });
});

describe('fieldValidation', () => {
  const path = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/widgets`;
  const post = (name: string, query = '') =>
    rawRequest(emulator(), `${path}${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(widget(name, { replicas: 1, colour: 'red', size: 'small', shape: 'round' })),
    });

  it('Warn (the default) prunes and sends a Warning header per unknown field', async () => {
    const response = await post('warned');
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBe(
      '299 - "unknown field \\"spec.colour\\"", 299 - "unknown field \\"spec.shape\\""',
    );
    expect(((await response.json()) as { spec: unknown }).spec).toEqual({ replicas: 1, size: 'small' });
  });

  it('Ignore prunes silently', async () => {
    const response = await post('ignored', '?fieldValidation=Ignore');
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBeNull();
  });

  it('Strict refuses with 400 naming every unknown field, on create and on patch', async () => {
    const response = await post('strict', '?fieldValidation=Strict');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.colour", unknown field "spec.shape"',
    });
    expect((await post('strict-patched', '?fieldValidation=Ignore')).status).toBe(201);
    const patch = await rawRequest(emulator(), `${path}/strict-patched?fieldValidation=Strict`, {
      method: 'PATCH',
      headers: { 'Content-Type': PatchStrategy.MergePatch },
      body: JSON.stringify({ spec: { weight: 3 } }),
    });
    expect(patch.status).toBe(400);
    expect(((await patch.json()) as { message: string }).message).toBe(
      'strict decoding error: unknown field "spec.weight"',
    );
  });

  it('an unsupported directive is a 422 of the request options', async () => {
    const response = await post('bad-directive', '?fieldValidation=Loose');
    expect(response.status).toBe(422);
    expect(((await response.json()) as { message: string }).message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});

describe('metadata.name', () => {
  it('must be a DNS subdomain, each problem its own error', async () => {
    const status = (await statusOf(createWidget(`Bad_${'x'.repeat(250)}`, {}))) as InvalidStatus;
    expect(status.details?.causes?.map((cause) => cause.message)).toEqual([
      `Invalid value: "Bad_${'x'.repeat(250)}": must be no more than 253 characters`,
      expect.stringMatching(/: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/),
    ]);
  });

  it('of a Namespace must be a DNS label', async () => {
    const status = await statusOf(
      emulator()
        .kubeConfig()
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: 'a.b' } } }),
    );
    expect(status.message).toBe(
      `Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
  });
});
