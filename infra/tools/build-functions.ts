// `npm run build`: one bundle per function for the container image, built by esbuild from the
// TypeScript sources (which stay the source of truth; `npm start` and the tests run them as they are).
//   dist/functions/<name>.mjs  starts that function's container server (PORT, the admin settings, ...)
//   dist/entry.mjs             picks the bundle by FUNCTION_TARGET and imports only that one
//   dist/chunks/*.mjs          code the bundles share or import on first use (and the migrations)
// The bundles need no node_modules at run time: copy dist/ as a whole. They are built from the
// product entries (knative/), which name nothing of local development (infra/development/,
// the emulator, embedded PostgreSQL; the import rules check it), so nothing of it is left to remove.
import { cpSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { FUNCTION_NAMES } from '../../shared/contract/routes/route-table.ts';
import { builtinModulesByRequire } from './builtin-modules-plugin.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where the bundles go: `dist/` of the repository unless given (tests build into a folder of their own). */
export async function buildFunctionBundles(outDir = `${ROOT}dist`, options: { minify?: boolean } = {}): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    treeShaking: true,
    // Names stay (stack traces keep function names); whitespace goes: the Kubernetes client is
    // 16 MB of source otherwise, and parsing it is most of the resources function's start.
    minifySyntax: true,
    minifyWhitespace: true,
    // The image build asks for more (--minify): identifiers too, with function and class names kept.
    ...(options.minify ? { minify: true, keepNames: true } : {}),
    legalComments: 'none',
    logLevel: 'warning',
    // pg tries its optional native binding only when asked for pg.native, which this code never
    // does, and its optional Cloudflare socket only on Cloudflare Workers.
    external: ['pg-native', 'pg-cloudflare'],
    // Node's built-ins by require(), not by ES import (see the plugin: what its ES facade costs).
    plugins: [builtinModulesByRequire],
    // CommonJS dependencies call require() for Node's built-in modules; an ES module has none.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    entryPoints: {
      entry: 'knative/server.ts',
      ...Object.fromEntries(FUNCTION_NAMES.map((name) => [`functions/${name}`, `knative/functions/${name}.ts`])),
      // The console's static server (FUNCTION_TARGET=console); the app it serves is Vite's build (dist/console).
      'functions/console': 'knative/functions/console.ts',
      // The password verifier's worker thread, loaded by path beside the shared chunk that starts it.
      'chunks/bcrypt-worker': 'shared/auth/bcrypt-worker.ts',
    },
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // What a function imports only on first use (the Kubernetes client, the AWS SDK, pg) is a
    // chunk of its own under dist/chunks/, read from disk only then.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });
  // The migration files, which the migrator reads beside its own module (a chunk).
  cpSync(`${ROOT}shared/base/database/migrations`, `${outDir}/chunks/migrations`, { recursive: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  await buildFunctionBundles(undefined, { minify: process.argv.includes('--minify') });
  process.stdout.write(
    `built ${FUNCTION_NAMES.map((name) => `dist/functions/${name}.mjs`).join(', ')} and dist/entry.mjs in ${Math.round(performance.now() - started)} ms\n`,
  );
}
