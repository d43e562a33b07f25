// Vitest global setup: builds the function bundles once per test run (esbuild takes seconds),
// into a folder outside the repository so that nothing in them can fall back to node_modules.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildFunctionBundles } from '../../infra/tools/build-functions.ts';
import { buildConsole } from '../../infra/tools/build-console.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding entry.mjs, functions/ and chunks/ (as `npm run build` writes dist/). */
    bundleDir: string;
    /** The console's Vite build (issue 24), as `npm run build:console` writes dist/console. */
    consoleDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const folder = mkdtempSync(join(tmpdir(), 'platform-api-bundles-'));
  const bundleDir = join(folder, 'dist');
  await buildFunctionBundles(bundleDir);
  // Beside dist/ as the image has them (infra/image/Dockerfile): the kinds' schemas are read from the CRDs.
  cpSync(join(import.meta.dirname, '../../infra/chart/files/crds'), join(folder, 'infra/chart/files/crds'), {
    recursive: true,
  });
  project.provide('bundleDir', bundleDir);
  // Built after the bundles (which empty their folder) into dist/console, where the image has it: the browser tests serve it.
  project.provide('consoleDir', await buildConsole(join(bundleDir, 'console')));
  return () => rmSync(folder, { recursive: true, force: true });
}
