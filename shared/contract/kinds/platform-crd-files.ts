// The chart's CRD files as text, apart from installing them (platform-crds.ts, through the
// Kubernetes client): discovery, OpenAPI and Table output read them without loading that client.
import { readdir, readFile } from 'node:fs/promises';

/** The chart's CustomResourceDefinitions: the single source of the kinds' schemas. */
const CRD_DIRECTORY = new URL('../../../infra/chart/files/crds/', import.meta.url);
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
