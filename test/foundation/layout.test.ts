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

describe("README's layout table matches the folders (issue 9)", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('\n## ', readme.indexOf('## Layout') + 1));
  const rows = new Map([...layout.matchAll(/^\| `([^`]+)\/` \| (.*) \|$/gm)].map((match) => [match[1]!, match[2]!]));
  const folders = (path: string) =>
    readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  const versioned = (name: string) =>
    !['node_modules', '.git', '.tools', '.data', 'dist', 'coverage', '.scratch', '.stryker-tmp'].includes(name);

  it('has a row for each top-level folder of the checkout, and each row is a folder', () => {
    expect([...rows.keys()].sort()).toEqual(folders(REPO_ROOT).filter(versioned).sort());
  });

  it('names each folder of shared/ in the shared/ row', () => {
    const row = rows.get('shared')!;
    expect(folders(join(REPO_ROOT, 'shared')).filter((name) => !row.includes(`\`${name}/\``))).toEqual([]);
  });
});
