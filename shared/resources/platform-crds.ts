import { readdir, readFile } from 'node:fs/promises';
import { loadYaml } from '@kubernetes/client-node';
import type { ClusterObjects } from './cluster-objects.ts';

/** The chart's CustomResourceDefinitions: the single source of the kinds' schemas. */
const CRD_DIRECTORY = new URL('../../infra/chart/files/crds/', import.meta.url);
/** Stands for the API group in the chart's files; the chart substitutes `api.group`, and so do we. */
const API_GROUP_PLACEHOLDER = '__API_GROUP__';

/** The platform's CustomResourceDefinitions for `apiGroup`, read from the chart. */
export async function loadPlatformCrds(apiGroup: string): Promise<Record<string, unknown>[]> {
  const files = (await readdir(CRD_DIRECTORY)).filter((file) => file.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) => loadYaml<Record<string, unknown>>((await readFile(new URL(file, CRD_DIRECTORY), 'utf8')).replaceAll(API_GROUP_PLACEHOLDER, apiGroup))),
  );
}

/** Creates the platform's CustomResourceDefinitions in a cluster (the local emulator, tests); existing ones are kept. */
export async function installPlatformCrds(objects: ClusterObjects): Promise<void> {
  for (const crd of await loadPlatformCrds(objects.apiGroup)) {
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const name = (crd.metadata as { name: string }).name;
    if (!(await objects.find(`${path}/${name}`))) await objects.send({ method: 'POST', path, body: crd });
  }
}
