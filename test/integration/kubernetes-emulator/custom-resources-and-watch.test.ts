// CustomResourceDefinitions served dynamically, discovery, and watch semantics (event order, resume from a
// resourceVersion, selectors, informers).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiextensionsV1Api,
  ApisApi,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { V1ConfigMap, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { statusOf, useKubeEmulator } from '../../support/emulator-fixture.ts';

const emulator = useKubeEmulator();
const custom = () => emulator().kubeConfig().makeApiClient(CustomObjectsApi);
const core = () => emulator().kubeConfig().makeApiClient(CoreV1Api);
const GROUP = 'platform.dev';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function crd(plural: string, kind: string, scope: 'Cluster' | 'Namespaced'): V1CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

beforeAll(async () => {
  const extensions = emulator().kubeConfig().makeApiClient(ApiextensionsV1Api);
  await extensions.createCustomResourceDefinition({ body: crd('projects', 'Project', 'Cluster') });
  await extensions.createCustomResourceDefinition({ body: crd('workspaces', 'Workspace', 'Namespaced') });
  await core().createNamespace({ body: { metadata: { name: 'proj-a' } } });
});

function createWorkspace(namespace: string, name: string): Promise<unknown> {
  return custom().createNamespacedCustomObject({
    group: GROUP,
    version: 'v1alpha1',
    namespace,
    plural: 'workspaces',
    body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace', metadata: { name }, spec: { size: 1 } },
  });
}

describe('creating a CustomResourceDefinition serves its resource', () => {
  it('shows the group in discovery', async () => {
    const groups = await emulator().kubeConfig().makeApiClient(ApisApi).getAPIVersions();
    expect(groups.groups.find((group) => group.name === GROUP)?.preferredVersion?.groupVersion).toBe(
      `${GROUP}/v1alpha1`,
    );
  });

  it('serves cluster-scoped and namespaced custom resources with generation', async () => {
    const project = (await custom().createClusterCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      plural: 'projects',
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Project', metadata: { name: 'proj-a' }, spec: { owner: 'x' } },
    })) as { metadata: { generation: number } };
    expect(project.metadata.generation).toBe(1);
    const workspace = (await custom().createNamespacedCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      namespace: 'proj-a',
      plural: 'workspaces',
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace', metadata: { name: 'ws' }, spec: { size: 1 } },
    })) as { apiVersion: string; kind: string };
    expect(workspace).toMatchObject({ apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace' });
    const status = await statusOf(
      custom().getClusterCustomObject({ group: GROUP, version: 'v1alpha1', plural: 'projects', name: 'missing' }),
    );
    expect(status).toMatchObject({
      code: 404,
      message: 'projects.platform.dev "missing" not found',
      details: { group: GROUP, kind: 'projects' },
    });
  });

  it('bumps generation on spec changes only, and keeps status out of main-resource writes', async () => {
    const path = {
      group: GROUP,
      version: 'v1alpha1',
      namespace: 'proj-a',
      plural: 'workspaces',
      name: 'ws-generation',
    };
    await createWorkspace('proj-a', 'ws-generation');
    const specChanged = (await custom().patchNamespacedCustomObject(
      { ...path, body: { spec: { size: 2 }, status: { phase: 'ignored' } } },
      mergePatch,
    )) as { metadata: { generation: number }; status?: unknown };
    expect(specChanged.metadata.generation).toBe(2);
    expect(specChanged.status).toBeUndefined();
    const withStatus = (await custom().patchNamespacedCustomObjectStatus(
      { ...path, body: { status: { phase: 'Ready' }, spec: { size: 99 } } },
      mergePatch,
    )) as { metadata: { generation: number }; status: unknown; spec: unknown };
    expect(withStatus).toMatchObject({ status: { phase: 'Ready' }, spec: { size: 2 }, metadata: { generation: 2 } });
  });

  it('requires a resourceVersion on update and refuses strategic merge patch, as for real custom resources', async () => {
    const path = { group: GROUP, version: 'v1alpha1', namespace: 'proj-a', plural: 'workspaces', name: 'ws-versioned' };
    await createWorkspace('proj-a', 'ws-versioned');
    const update = await statusOf(
      custom().replaceNamespacedCustomObject({
        ...path,
        body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Workspace', metadata: { name: 'ws-versioned' }, spec: {} },
      }),
    );
    expect(update.code).toBe(422);
    expect(update.message).toContain('metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    const patch = await statusOf(
      custom().patchNamespacedCustomObject(
        { ...path, body: { spec: {} } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(patch.code).toBe(415);
  });

  it('422 when the definition name is not plural.group', async () => {
    const extensions = emulator().kubeConfig().makeApiClient(ApiextensionsV1Api);
    const status = await statusOf(
      extensions.createCustomResourceDefinition({
        body: { ...crd('things', 'Thing', 'Cluster'), metadata: { name: 'wrong' } },
      }),
    );
    expect(status.code).toBe(422);
    expect(status.message).toContain('must be spec.names.plural+"."+spec.group');
  });

  it('deleting the definition removes its custom resources and stops serving them', async () => {
    const extensions = emulator().kubeConfig().makeApiClient(ApiextensionsV1Api);
    await extensions.createCustomResourceDefinition({ body: crd('rollouts', 'Rollout', 'Namespaced') });
    await custom().createNamespacedCustomObject({
      group: GROUP,
      version: 'v1alpha1',
      namespace: 'proj-a',
      plural: 'rollouts',
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Rollout', metadata: { name: 'r' } },
    });
    await extensions.deleteCustomResourceDefinition({ name: `rollouts.${GROUP}` });
    expect((await statusOf(extensions.readCustomResourceDefinition({ name: `rollouts.${GROUP}` }))).code).toBe(404);
    const listed = await statusOf(
      custom().listNamespacedCustomObject({
        group: GROUP,
        version: 'v1alpha1',
        namespace: 'proj-a',
        plural: 'rollouts',
      }),
    );
    expect(listed).toMatchObject({ code: 404, message: 'the server could not find the requested resource' });
  });
});

interface Seen {
  type: string;
  name: string;
  resourceVersion: string;
}

/** Collects watch events until `count` arrived. */
async function watchEvents(
  path: string,
  query: Record<string, string>,
  count: number,
  act: () => Promise<void>,
): Promise<Seen[]> {
  const seen: Seen[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const controller = await new Watch(emulator().kubeConfig()).watch(
    path,
    query,
    (type, object: V1ConfigMap) => {
      seen.push({ type, name: object.metadata!.name!, resourceVersion: object.metadata!.resourceVersion! });
      if (seen.length === count) resolveDone();
    },
    () => {},
  );
  await act();
  await done;
  controller.abort();
  return seen;
}

describe('watch streams ADDED, MODIFIED and DELETED in resourceVersion order', () => {
  it('follows one object through its life', async () => {
    const start = (await core().listNamespacedConfigMap({ namespace: 'proj-a' })).metadata!.resourceVersion!;
    const events = await watchEvents(
      '/api/v1/namespaces/proj-a/configmaps',
      { resourceVersion: start },
      3,
      async () => {
        await core().createNamespacedConfigMap({ namespace: 'proj-a', body: { metadata: { name: 'life' } } });
        await core().patchNamespacedConfigMap(
          { namespace: 'proj-a', name: 'life', body: { data: { a: '1' } } },
          mergePatch,
        );
        await core().deleteNamespacedConfigMap({ namespace: 'proj-a', name: 'life' });
      },
    );
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const versions = events.map((event) => Number(event.resourceVersion));
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  });

  it('resumes after a resourceVersion, replaying what happened since', async () => {
    const created = await core().createNamespacedConfigMap({
      namespace: 'proj-a',
      body: { metadata: { name: 'before' } },
    });
    await core().createNamespacedConfigMap({ namespace: 'proj-a', body: { metadata: { name: 'after' } } });
    const events = await watchEvents(
      '/api/v1/namespaces/proj-a/configmaps',
      { resourceVersion: created.metadata!.resourceVersion! },
      1,
      async () => {},
    );
    expect(events).toMatchObject([{ type: 'ADDED', name: 'after' }]);
  });

  it('without a resourceVersion starts with the current objects as ADDED', async () => {
    await core().createNamespacedConfigMap({ namespace: 'proj-a', body: { metadata: { name: 'present' } } });
    const events = await watchEvents(
      '/api/v1/namespaces/proj-a/configmaps',
      { fieldSelector: 'metadata.name=present' },
      1,
      async () => {},
    );
    expect(events).toMatchObject([{ type: 'ADDED', name: 'present' }]);
  });

  it('across namespaces with a label selector: an object entering the selection is ADDED, leaving it DELETED', async () => {
    const start = String((await core().listConfigMapForAllNamespaces()).metadata!.resourceVersion);
    const events = await watchEvents(
      '/api/v1/configmaps',
      { resourceVersion: start, labelSelector: 'watched=yes' },
      3,
      async () => {
        await core().createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: 'ignored', labels: { watched: 'no' } } },
        });
        await core().createNamespacedConfigMap({
          namespace: 'proj-a',
          body: { metadata: { name: 'hop', labels: { watched: 'no' } } },
        });
        await core().patchNamespacedConfigMap(
          { namespace: 'proj-a', name: 'hop', body: { metadata: { labels: { watched: 'yes' } } } },
          mergePatch,
        );
        await core().patchNamespacedConfigMap(
          { namespace: 'proj-a', name: 'hop', body: { data: { x: '1' } } },
          mergePatch,
        );
        await core().patchNamespacedConfigMap(
          { namespace: 'proj-a', name: 'hop', body: { metadata: { labels: { watched: 'no' } } } },
          mergePatch,
        );
      },
    );
    expect(events.map((event) => `${event.type} ${event.name}`)).toEqual(['ADDED hop', 'MODIFIED hop', 'DELETED hop']);
  });
});

describe('informers list then watch', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
  });

  it('sees existing objects, then changes to custom resources', async () => {
    // Its own namespace with one Workspace, whatever the other tests created.
    await core().createNamespace({ body: { metadata: { name: 'informed' } } });
    await createWorkspace('informed', 'ws');
    const path = `/apis/${GROUP}/v1alpha1/namespaces/informed/workspaces`;
    const informer = makeInformer(emulator().kubeConfig(), path, () =>
      custom().listNamespacedCustomObject({
        group: GROUP,
        version: 'v1alpha1',
        namespace: 'informed',
        plural: 'workspaces',
      }),
    );
    stop = () => informer.stop();
    const changes: string[] = [];
    const added = new Promise<void>((resolve) => {
      informer.on('add', (object: { metadata?: { name?: string } }) => {
        changes.push(`add ${object.metadata?.name}`);
        if (object.metadata?.name === 'ws-2') resolve();
      });
    });
    await informer.start();
    await createWorkspace('informed', 'ws-2');
    await added;
    expect(changes).toEqual(['add ws', 'add ws-2']);
    expect(
      informer
        .list('informed')
        .map((object) => object.metadata?.name)
        .sort(),
    ).toEqual(['ws', 'ws-2']);
  });
});
