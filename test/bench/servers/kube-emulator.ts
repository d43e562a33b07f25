// A cluster for the benchmarks that write (issue 22's audit of authorized writes): the Kubernetes
// emulator in a process of its own (as the API server is another host in production), with the
// platform's CRDs and one Project and Workspace to write to. It answers its URL and a kubeconfig
// for the functions over IPC once they exist.
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { startKubeEmulator } from '../../../infra/kube-emulator/index.ts';
import { installPlatformCrds } from '../../../shared/domain/resources/platform-crds.ts';

const BENCH_GROUP = 'platform.dev';
const BENCH_PROJECT = 'bench';
const BENCH_WORKSPACE = 'network';

/** What the process tells its parent once the objects exist. */
export interface BenchClusterReady {
  url: string;
  kubeConfigYaml: string;
  /** The Workspace's path on the platform API (the default API_GROUP). */
  workspacePath: string;
}

async function createObjects(kubeConfig: KubeConfig): Promise<void> {
  await installPlatformCrds(kubeConfig, BENCH_GROUP);
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const group = BENCH_GROUP;
  const version = 'v1alpha1';
  // The namespace the API server's create of a Project would have made with it.
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: BENCH_PROJECT } } });
  await api.createClusterCustomObject({
    group,
    version,
    plural: 'projects',
    body: { apiVersion: `${group}/${version}`, kind: 'Project', metadata: { name: BENCH_PROJECT }, spec: {} },
  });
  await api.createNamespacedCustomObject({
    group,
    version,
    namespace: BENCH_PROJECT,
    plural: 'workspaces',
    body: {
      apiVersion: `${group}/${version}`,
      kind: 'Workspace',
      metadata: { name: BENCH_WORKSPACE },
      spec: { source: { repository: 'https://git.example.com/infra.git' }, tool: { version: '1.8.2' } },
    },
  });
}

const emulator = await startKubeEmulator({ port: Number(process.env.PORT ?? 0) });
await createObjects(emulator.kubeConfig());
process.send?.({
  url: emulator.url,
  kubeConfigYaml: emulator.kubeConfigYaml(),
  workspacePath: `/apis/${BENCH_GROUP}/v1alpha1/namespaces/${BENCH_PROJECT}/workspaces/${BENCH_WORKSPACE}`,
} satisfies BenchClusterReady);
process.on('SIGTERM', () => void emulator.close().then(() => process.exit(0)));
