import { readdir, readFile } from 'node:fs/promises';
import {
  ApiException,
  ApiextensionsV1Api,
  loadYaml,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';

/** The chart's CustomResourceDefinitions: the single source of the kinds' schemas. */
const CRD_DIRECTORY = new URL('../../infra/chart/files/crds/', import.meta.url);
/** Stands for the API group in the chart's files; the chart substitutes `api.group`, and so do we. */
const API_GROUP_PLACEHOLDER = '__API_GROUP__';

/** The YAML text of each of the chart's CRD files, with `apiGroup` in place of the placeholder. */
export async function readPlatformCrdFiles(apiGroup: string): Promise<string[]> {
  const files = (await readdir(CRD_DIRECTORY)).filter((file) => file.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) =>
      (await readFile(new URL(file, CRD_DIRECTORY), 'utf8')).replaceAll(API_GROUP_PLACEHOLDER, apiGroup),
    ),
  );
}

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
