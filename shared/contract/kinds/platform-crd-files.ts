// The chart's CRD files as text, apart from installing them (platform-crds.ts, through the
// Kubernetes client): discovery, OpenAPI and Table output read them without loading that client.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

const CRD_FOLDER = 'infra/chart/files/crds/';

/**
 * The chart's CustomResourceDefinitions, the single source of the kinds' schemas: `infra/chart/files/crds/`
 * of the nearest folder above this module that has one. From the sources that is the checkout; from the
 * bundles (dist/chunks/) the folder beside dist/, where the image and the tests put the CRDs. The two sit at
 * different depths, so no one relative path serves both.
 */
function crdDirectory(): URL {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    const candidate = new URL(CRD_FOLDER, folder);
    if (existsSync(candidate) || folder.pathname === '/') return candidate;
  }
}
const CRD_DIRECTORY = crdDirectory();
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
