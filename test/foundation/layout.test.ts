// Issue 9, "shared/ holds the product only": the Kubernetes emulator is a development and test
// stand-in outside shared/, and no product module reaches into it, into infra/ or into test/.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/function-servers.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const importedPaths = (source: string) =>
  [...source.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((match) => match[1]!);

describe('shared/ holds the product only: nothing in it names the emulator, infra/ or test/', () => {
  const files = sourceFiles(join(REPO_ROOT, 'shared'));

  it('finds the product modules', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no module under shared/ imports from infra/, test/ or the emulator', () => {
    const offending = files.flatMap((file) =>
      importedPaths(readFileSync(file, 'utf8'))
        .filter((path) => /(^|\/)(infra|test)\/|kube-emulator/.test(path))
        .map((path) => `${relative(REPO_ROOT, file)} imports ${path}`),
    );
    expect(offending).toEqual([]);
  });
});
