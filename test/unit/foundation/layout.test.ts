// Issue 9, "shared/ holds the product only", and issue 21, "one folder for what ships, one for what
// helps develop it": the emulator and local development live under infra/, and no product module
// (shared/, functions/, knative/) reaches into them or into test/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/function-servers.ts';

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const importedPaths = (source: string) =>
  [...source.matchAll(/(?:from|import\()\s*'([^']+)'/g)].map((match) => match[1]!);

/** Each import of `files` whose path matches `forbidden`, as "<file> imports <path>". */
const offending = (files: string[], forbidden: RegExp) =>
  files.flatMap((file) =>
    importedPaths(readFileSync(file, 'utf8'))
      .filter((path) => forbidden.test(path))
      .map((path) => `${relative(REPO_ROOT, file)} imports ${path}`),
  );

describe('shared/ holds the product only: nothing in it names the emulator, infra/ or test/', () => {
  const files = sourceFiles(join(REPO_ROOT, 'shared'));

  it('finds the product modules', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no module under shared/ imports from infra/, test/ or the emulator', () => {
    expect(offending(files, /(^|\/)(infra|test)\/|kube-emulator/)).toEqual([]);
  });
});

describe('Issue 21: what ships (functions/, knative/) names nothing of local development', () => {
  const files = ['functions', 'knative'].flatMap((folder) => sourceFiles(join(REPO_ROOT, folder)));

  it('finds the functions and the runtime entries', () => {
    expect(files.map((file) => relative(REPO_ROOT, file))).toEqual(
      expect.arrayContaining(['knative/server.ts', 'knative/functions-framework.ts', 'knative/aws-lambda.ts']),
    );
  });

  it('no function or entry imports infra/development/, the emulator or test/', () => {
    expect(offending(files, /(^|\/)(infra\/development|test)\/|kube-emulator/)).toEqual([]);
  });

  it('the development code lives under infra/development/, no longer beside the product', () => {
    for (const moved of ['functions/fleet', 'functions/local-gateway.ts', 'shared/gateway', 'shared/local', 'bin'])
      expect(existsSync(join(REPO_ROOT, moved)), moved).toBe(false);
    for (const folder of ['cluster', 'database', 'entries', 'fleet', 'gateway', 'local', 'commands'])
      expect(existsSync(join(REPO_ROOT, 'infra/development', folder)), folder).toBe(true);
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

  it('names each folder of infra/development/ in the infra/ row', () => {
    const row = rows.get('infra')!;
    expect(folders(join(REPO_ROOT, 'infra/development')).filter((name) => !row.includes(`\`${name}/\``))).toEqual([]);
  });
});
