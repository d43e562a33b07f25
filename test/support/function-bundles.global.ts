// Vitest global setup: builds the function bundles and the console once per test run (esbuild and
// Vite take seconds each; on a busy two-core machine, tens), into a folder outside the repository so
// that nothing in them can fall back to node_modules. Vitest runs a global setup once per project
// (integration, browser and system each name this one), in the one main process: the first project's
// call builds, the others share its build, and the last project's teardown removes it.
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

interface Bundles {
  folder: string;
  bundleDir: string;
  consoleDir: string;
}

/** The run's one build and how many projects use it. On globalThis: each project imports this module anew. */
interface SharedBuild {
  bundles: Promise<Bundles>;
  users: number;
}
const SHARED_BUILD = Symbol.for('platform-api.test.function-bundles');
const shared = globalThis as typeof globalThis & { [SHARED_BUILD]?: SharedBuild };

async function buildBundles(): Promise<Bundles> {
  const started = performance.now();
  const folder = mkdtempSync(join(tmpdir(), 'platform-api-bundles-'));
  const bundleDir = join(folder, 'dist');
  await buildFunctionBundles(bundleDir);
  // Beside dist/ as the image has them (infra/image/Dockerfile): the kinds' schemas are read from the CRDs.
  cpSync(join(import.meta.dirname, '../../infra/chart/files/crds'), join(folder, 'infra/chart/files/crds'), {
    recursive: true,
  });
  // Built after the bundles (which empty their folder) into dist/console, where the image has it: the browser tests serve it.
  const consoleDir = await buildConsole(join(bundleDir, 'console'));
  process.stderr.write(`function bundles and console built in ${Math.round(performance.now() - started)} ms\n`);
  return { folder, bundleDir, consoleDir };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const build = (shared[SHARED_BUILD] ??= { bundles: buildBundles(), users: 0 });
  build.users++;
  const { folder, bundleDir, consoleDir } = await build.bundles.catch((error: unknown) => {
    // A failed build is not kept for a later run in the same process (watch mode).
    if (--build.users === 0) delete shared[SHARED_BUILD];
    throw error;
  });
  project.provide('bundleDir', bundleDir);
  project.provide('consoleDir', consoleDir);
  return () => {
    if (--build.users > 0) return;
    // A later run in the same process (watch mode) builds the sources as they are then.
    delete shared[SHARED_BUILD];
    rmSync(folder, { recursive: true, force: true });
  };
}
