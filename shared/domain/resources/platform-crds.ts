import {
  ApiException,
  ApiextensionsV1Api,
  loadYaml,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { readPlatformCrdFiles } from '../../contract/kinds/platform-crd-files.ts';

/**
 * Creates the platform's CustomResourceDefinitions in a cluster (the local emulator, tests);
 * existing ones are kept. Through client-node's typed API, which writes its model back to the wire form.
 */
export async function installPlatformCrds(kubeConfig: KubeConfig, apiGroup: string): Promise<void> {
  const api = kubeConfig.makeApiClient(ApiextensionsV1Api);
  for (const text of await readPlatformCrdFiles(apiGroup)) {
    const crd = loadYaml<V1CustomResourceDefinition>(text);
    try {
      await api.createCustomResourceDefinition({ body: crd });
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    }
  }
}
