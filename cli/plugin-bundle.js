// The kubectl plugin as one esbuild bundle (CommonJS: Node 22's single executables run only a
// CommonJS script). `npm run build:plugin` makes it into dist/plugin/ (infra/tools/build-plugin.ts);
// `npx kubectl-platform` makes it once into node_modules/.cache and runs it from there (issue 44,
// item 13: loading the TypeScript sources took 6-9 s per command). Plain JavaScript, so the bin
// that imports it runs on any Node.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout's root, where esbuild resolves the plugin's entry and its imports. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Bundles the plugin into `outfile` (executable), returning the files it was made of, relative to the checkout. */
export async function bundlePlugin(outfile) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['cli/kubectl-platform.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    // The entry's own `#!` line stays: esbuild keeps an entry's hashbang at the top of the bundle.
  });
  chmodSync(outfile, 0o755);
  return Object.keys(result.metafile.inputs).filter((input) => !input.includes(':'));
}

/** Where `npx kubectl-platform` keeps its bundle, and the list of the sources it was made of. */
export const CACHED_BUNDLE = join(ROOT, 'node_modules/.cache/kubectl-platform/kubectl-platform.cjs');
const CACHED_INPUTS = `${CACHED_BUNDLE}.inputs.json`;

/**
 * The cached bundle, made again when it is missing or any source it was made of (this file included)
 * changed since: a checkout's edits show at the next command, as with the sources.
 */
export async function cachedPluginBundle() {
  if (isFresh()) return CACHED_BUNDLE;
  mkdirSync(dirname(CACHED_BUNDLE), { recursive: true });
  // Written aside and renamed: two first commands at once each see a whole bundle.
  const partial = `${CACHED_BUNDLE}.${process.pid}`;
  const inputs = await bundlePlugin(partial);
  writeFileSync(`${CACHED_INPUTS}.${process.pid}`, JSON.stringify(inputs));
  renameSync(`${CACHED_INPUTS}.${process.pid}`, CACHED_INPUTS);
  renameSync(partial, CACHED_BUNDLE);
  return CACHED_BUNDLE;
}

function isFresh() {
  try {
    const built = statSync(CACHED_BUNDLE).mtimeMs;
    const inputs = [...JSON.parse(readFileSync(CACHED_INPUTS, 'utf8')), 'cli/plugin-bundle.js'];
    return inputs.every((input) => statSync(join(ROOT, input)).mtimeMs <= built);
  } catch {
    return false;
  }
}
