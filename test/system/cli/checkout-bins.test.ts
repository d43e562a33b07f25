// Issue 44, items 12 and 13: the checkout's bins (`npx platform-api`, `npx kubectl-platform`) run on
// the Node the project installed when the machine's own is older (it cannot load the TypeScript
// sources), and `npx kubectl-platform` runs the plugin's bundle, made once into node_modules/.cache,
// instead of loading the sources on every command.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHED_BUNDLE } from '../../../cli/plugin-bundle.js';
import { REPO_ROOT } from '../../support/function-servers.ts';

/** The machine's own Node, older than the project's 22 (Debian's 20 here): OLD_NODE names another. */
const OLD_NODE = process.env.OLD_NODE ?? '/usr/bin/node';
const CLI_PACKAGE = join(REPO_ROOT, 'cli/package.json');
/** Each test runs real processes (a Node start, esbuild at a first command): slow on a loaded machine. */
const SPAWNING_TEST_TIMEOUT_MS = 300_000;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function temporaryFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'checkout-bins-'));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Runs `args` with `node` in the checkout, as npx runs a bin, to its end. */
function run(node: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(node, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The kubectl-platform package's bin, as npx finds it. */
async function pluginBin(): Promise<string> {
  const { bin } = JSON.parse(await readFile(CLI_PACKAGE, 'utf8')) as { bin: Record<string, string> };
  return join(REPO_ROOT, 'cli', bin['kubectl-platform']!);
}

describe("Issue 44, item 12: the bins run with the Node the project installed, not only the machine's", () => {
  it(`the machine's Node (${OLD_NODE}) is older than 22: the case this proves`, () => {
    const version = run(OLD_NODE, ['--version']).stdout.trim();
    expect(Number(version.replace(/^v/, '').split('.')[0]), version).toBeLessThan(22);
  });

  it(
    'the development command reset-local (`npm run local:reset`, which loads the TypeScript sources) works under it',
    async () => {
      const dataDir = await temporaryFolder();
      await mkdir(join(dataDir, 'kubernetes'));
      const result = run(OLD_NODE, [
        'infra/development/commands/local-command.js',
        'reset-local',
        '--data-dir',
        dataDir,
      ]);
      expect(result.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      expect(result).toMatchObject({ status: 0, stdout: `removed ${join(dataDir, 'kubernetes')}\n` });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    "Issue 43, item 8: platform-api's bin (cli/, TypeScript behind a JavaScript launcher) works under it",
    async () => {
      const { bin } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
        bin: Record<string, string>;
      };
      const platformApi = join(REPO_ROOT, bin['platform-api']!);
      const hashed = spawnSync(OLD_NODE, [platformApi, 'hash-password'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
        input: 'my admin password\n',
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(hashed.stderr).toBe('');
      expect(hashed).toMatchObject({ status: 0, stdout: expect.stringMatching(/^\$2a\$10\$[./A-Za-z0-9]{53}\n$/) });
      expect(run(OLD_NODE, [platformApi, 'hash-password', '--nope'])).toMatchObject({
        status: 2,
        stderr: expect.stringContaining('error: unknown flag: --nope'),
      });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    "kubectl-platform's bin works under it, and its exit status is the command's",
    async () => {
      const help = run(OLD_NODE, [await pluginBin(), '--help']);
      expect(help.stderr).toBe('');
      expect(help).toMatchObject({ status: 0, stdout: expect.stringContaining('kubectl platform') });
      const refused = run(process.execPath, [await pluginBin(), 'no-such-group']).status;
      expect(refused).not.toBe(0);
      expect(run(OLD_NODE, [await pluginBin(), 'no-such-group']).status).toBe(refused);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});

describe('Issue 44, item 13: npx kubectl-platform runs the bundle, not the TypeScript sources', () => {
  it(
    'the package\'s bin is plain JavaScript, and a command loads the cached bundle and no ".ts" module',
    async () => {
      const bin = await pluginBin();
      expect(bin).toMatch(/\.js$/);
      const log = join(await temporaryFolder(), 'modules.log');
      const result = run(
        process.execPath,
        ['--import', pathToFileURL(join(REPO_ROOT, 'test/support/module-load-log.ts')).href, bin, '--help'],
        { MODULE_LOAD_LOG: log },
      );
      expect(result).toMatchObject({ status: 0, stdout: expect.stringContaining('kubectl platform') });
      const loaded = (await readFile(log, 'utf8')).split('\n').filter((url) => url.startsWith('file:'));
      expect(loaded).toContain(pathToFileURL(CACHED_BUNDLE).href);
      expect(loaded.filter((url) => url.endsWith('.ts'))).toEqual([]);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'a bundle older than a source it was made of is made again at the next command',
    async () => {
      const bin = await pluginBin();
      expect(run(process.execPath, [bin, '--help']).status).toBe(0);
      // The bundle made a minute before the plugin's entry last changed (the sources stay as they are).
      const entryChanged = (await stat(join(REPO_ROOT, 'cli/kubectl-platform.ts'))).mtimeMs;
      const earlier = new Date(entryChanged - 60_000);
      await utimes(CACHED_BUNDLE, earlier, earlier);
      expect(run(process.execPath, [bin, '--help']).status).toBe(0);
      expect((await stat(CACHED_BUNDLE)).mtimeMs).toBeGreaterThanOrEqual(entryChanged);
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});
