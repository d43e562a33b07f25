// `npm run build:console` as a function: Vite's build of functions/console/app (issue 24), into
// dist/console or a folder of the caller's (the test global setup builds once into a temporary folder).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CONSOLE_APP = join(ROOT, 'functions/console/app');
export const CONSOLE_DIST = join(ROOT, 'dist/console');

export async function buildConsole(outDir = CONSOLE_DIST): Promise<string> {
  // Imported on use: only a build needs Vite (the image's runtime has none).
  const { build } = await import('vite');
  await build({
    configFile: join(CONSOLE_APP, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true },
  });
  return outDir;
}

/** Whether dist/console is missing or older than a source of the app (a fresh clone, or a pull since the last build). */
export function consoleBuildIsStale(outDir = CONSOLE_DIST): boolean {
  let built: number;
  try {
    built = statSync(join(outDir, 'index.html')).mtimeMs;
  } catch {
    return true;
  }
  const newest = readdirSync(CONSOLE_APP, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
  return newest > built;
}
