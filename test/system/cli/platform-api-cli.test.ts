// Issue 43, item 8 ("One CLI"): `platform-api` is a user-facing command of cli/, read by the plugin's
// one argument parser (cli/plugin/command-line.ts), so a wrong command line gets kubectl's words
// (spf13/pflag's) and exit 2; the development commands left it for npm scripts.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/function-servers.ts';

/** Each case starts a Node (and npm): slow on a loaded machine. */
const SPAWNING_TEST_TIMEOUT_MS = 120_000;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The root package's `platform-api` bin, as npx finds it. */
async function platformApiBin(): Promise<string> {
  const { bin } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  return join(REPO_ROOT, bin['platform-api']!);
}

async function platformApi(args: string[], input = '') {
  const result = spawnSync(process.execPath, [await platformApiBin(), ...args], {
    cwd: REPO_ROOT,
    input,
    encoding: 'utf8',
    timeout: SPAWNING_TEST_TIMEOUT_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("Issue 43, item 8: platform-api reads its command line with the one parser, in kubectl's words", () => {
  it(
    'an unknown flag is exit 2: "error: unknown flag: --nope" and where the usage is',
    async () => {
      expect(await platformApi(['hash-password', '--nope'], 'password\n')).toEqual({
        status: 2,
        stdout: '',
        stderr: "error: unknown flag: --nope\nSee 'platform-api hash-password --help' for usage.\n",
      });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'a value flag without its value is exit 2: "error: flag needs an argument: --server"',
    async () => {
      expect(await platformApi(['kubeconfig', '--server'])).toEqual({
        status: 2,
        stdout: '',
        stderr: "error: flag needs an argument: --server\nSee 'platform-api kubeconfig --help' for usage.\n",
      });
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    'takes the flag forms kubectl takes: --cost=12 as well as --cost 12',
    async () => {
      for (const args of [['--cost=12'], ['--cost', '12']]) {
        const result = await platformApi(['hash-password', ...args], 'my admin password\n');
        expect(result.status, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/^\$2a\$12\$[./A-Za-z0-9]{53}\n$/);
        expect(bcrypt.compareSync('my admin password', result.stdout.trim())).toBe(true);
      }
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});

describe('Issue 43, item 8: the development commands left the user-facing bin for npm scripts', () => {
  it(
    '`platform-api reset-local` is an unknown command (exit 2), and its help names the npm scripts',
    async () => {
      const refused = await platformApi(['reset-local']);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain('error: unknown command "reset-local" for "platform-api"');
      expect((await platformApi(['--help'])).stdout).toContain('npm run local:setup | local:rotate-key | local:reset');
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it(
    '`npm run local:reset -- --data-dir DIR` deletes the local state there; a wrong flag is exit 2',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'local-reset-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      await mkdir(join(dataDir, 'kubernetes'));
      const npm = (args: string[]) =>
        spawnSync('npm', ['run', '--silent', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
      const reset = npm(['local:reset', '--', '--data-dir', dataDir]);
      expect({ status: reset.status, stdout: reset.stdout }).toEqual({
        status: 0,
        stdout: `removed ${join(dataDir, 'kubernetes')}\n`,
      });
      const wrong = npm(['local:reset', '--', '--data-folder', dataDir]);
      expect(wrong.status).toBe(2);
      expect(wrong.stderr).toContain(
        "error: unknown flag: --data-folder\nSee 'npm run local:reset -- --help' for usage.",
      );
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});
