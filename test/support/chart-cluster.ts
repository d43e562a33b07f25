import { generateTlsCertificate } from '../../infra/kube-emulator/self-signed-certificate.ts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { startKubeEmulator, type KubeEmulator } from '../../infra/kube-emulator/index.ts';

/** The CRDs a cluster with Knative Serving and the Gateway API has, without which helm cannot map the chart's kinds. */
const PLATFORM_DEPENDENCY_KINDS = [
  { group: 'serving.knative.dev', version: 'v1', kind: 'Service', plural: 'services' },
  { group: 'gateway.networking.k8s.io', version: 'v1', kind: 'HTTPRoute', plural: 'httproutes' },
  { group: 'gateway.networking.k8s.io', version: 'v1beta1', kind: 'ReferenceGrant', plural: 'referencegrants' },
];

export interface ChartCluster {
  emulator: KubeEmulator;
  core: CoreV1Api;
  /** A kubeconfig file for helm, pointing at the emulator over TLS with the admin token. */
  kubeConfigFile: string;
  close(): Promise<void>;
}

/** Starts the Kubernetes emulator over TLS (helm sends tokens only over TLS) with the namespace and the CRDs the chart needs. */
export async function startChartCluster(namespace: string): Promise<ChartCluster> {
  const emulator = await startKubeEmulator({ tls: await generateTlsCertificate('127.0.0.1') });
  const folder = await mkdtemp(join(tmpdir(), 'chart-cluster-'));
  const kubeConfigFile = join(folder, 'kubeconfig');
  await writeFile(kubeConfigFile, emulator.kubeConfigYaml(), { mode: 0o600 });
  const core = emulator.kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const extensions = emulator.kubeConfig().makeApiClient(ApiextensionsV1Api);
  for (const { group, version, kind, plural } of PLATFORM_DEPENDENCY_KINDS) {
    await extensions.createCustomResourceDefinition({
      body: {
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
          versions: [
            {
              name: version,
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          ],
        },
      },
    });
  }
  return {
    emulator,
    core,
    kubeConfigFile,
    async close() {
      await emulator.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** The metadata by which helm recognises an object as its release's own (as after `helm install`). */
export function helmOwnership(
  release: string,
  namespace: string,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  return {
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
  };
}
