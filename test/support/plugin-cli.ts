// The real kubectl (.tools/bin/kubectl) with the plugin on PATH, as a user has it: `kubectl platform ...`,
// kubectl finding the executable `kubectl-platform` and handing it the arguments and the environment
// (KUBECONFIG). The executable is the sources' entry by default, or any other build of it (the single
// executable).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { Platform } from './platform-fixture.ts';
import { ADMIN_PASSWORD } from './admin-fixtures.ts';
import { REPO_ROOT } from './function-servers.ts';
import { type CliResult, KUBECTL, platformKubeconfig, requireKubectl } from './kubectl-cli.ts';

export const SOURCE_PLUGIN = join(REPO_ROOT, 'cli/kubectl-platform.ts');

/** A started `kubectl platform ...`: its output so far and its exit. */
export interface RunningCli {
  stdout(): string;
  stderr(): string;
  exited: Promise<number>;
  kill(): void;
}

export interface PluginUser {
  home: string;
  /** The admin's kubeconfig (from `platform-api kubeconfig`). */
  adminConfig: string;
  /** `kubectl platform <args>` to its end, with KUBECONFIG=`kubeconfig` (the admin's by default). */
  run(args: string[], options?: { kubeconfig?: string; timeoutMs?: number }): Promise<CliResult>;
  /** `kubectl platform <args>` started: read its output while it runs. */
  start(args: string[], options?: { kubeconfig?: string }): RunningCli;
  /** The environment kubectl runs in (PATH with the plugin first). */
  env(kubeconfig?: string): Record<string, string>;
}

/**
 * A user's home for a test file: a bin folder with `kubectl-platform` (a link to `plugin`) first on
 * PATH, and the admin's kubeconfig, written by `platform-api kubeconfig` against the platform's HTTPS.
 */
export function usePluginUser(platform: () => Platform, plugin: () => string = () => SOURCE_PLUGIN): () => PluginUser {
  let user: PluginUser | undefined;
  let home = '';
  beforeAll(async () => {
    await requireKubectl();
    home = await mkdtemp(join(tmpdir(), 'kubectl-platform-'));
    const bin = join(home, 'bin');
    await mkdir(bin);
    await symlink(plugin(), join(bin, 'kubectl-platform'));
    const ca = join(home, 'ca.crt');
    await writeFile(ca, platform().caCertificate!);
    const adminConfig = join(home, 'admin.kubeconfig');
    const written = await platformKubeconfig(
      [
        '--server',
        platform().gateway.url,
        '--certificate-authority',
        ca,
        '--kubeconfig',
        adminConfig,
        '--namespace',
        'team-a',
      ],
      { input: `${ADMIN_PASSWORD}\n`, home },
    );
    if (written.code !== 0) throw new Error(`platform-api kubeconfig exited ${written.code}: ${written.stderr}`);
    const env = (kubeconfig = adminConfig) => ({
      PATH: `${bin}:${process.env.PATH}`,
      HOME: home,
      KUBECONFIG: kubeconfig,
    });
    const start = (args: string[], options: { kubeconfig?: string } = {}): RunningCli => {
      const child = spawn(KUBECTL, ['platform', ...args], {
        env: env(options.kubeconfig),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
      return { stdout: () => stdout, stderr: () => stderr, exited, kill: () => child.kill() };
    };
    user = {
      home,
      adminConfig,
      env,
      start,
      async run(args, options = {}) {
        const running = start(args, options);
        const timer = setTimeout(() => running.kill(), options.timeoutMs ?? 60_000);
        const code = await running.exited;
        clearTimeout(timer);
        return { code, stdout: running.stdout(), stderr: running.stderr() };
      },
    };
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });
  return () => user!;
}

/**
 * A kubeconfig whose user is an exec credential plugin, as kubelogin writes one: `command` prints an
 * ExecCredential (client.authentication.k8s.io/v1) with the next ID token of `tokensFile` (one per
 * line; the last one repeats) and its expiry, as kubelogin does with a token from the provider.
 */
export async function execCredentialKubeconfig(
  user: PluginUser,
  platform: Platform,
  name: string,
  options: { namespace: string },
): Promise<{ kubeconfig: string; tokensFile: string; callsFile: string }> {
  const script = join(user.home, `${name}-credential.mjs`);
  const tokensFile = join(user.home, `${name}-tokens`);
  const callsFile = join(user.home, `${name}-calls`);
  await writeFile(tokensFile, '');
  await writeFile(
    script,
    `#!/usr/bin/env node
import { appendFileSync, readFileSync } from 'node:fs';
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO ?? '{}');
appendFileSync(${JSON.stringify(callsFile)}, JSON.stringify({ info }) + '\\n');
const calls = readFileSync(${JSON.stringify(callsFile)}, 'utf8').trim().split('\\n').length;
const tokens = readFileSync(${JSON.stringify(tokensFile)}, 'utf8').trim().split('\\n');
const token = tokens[Math.min(calls, tokens.length) - 1];
const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
process.stdout.write(JSON.stringify({
  apiVersion: 'client.authentication.k8s.io/v1',
  kind: 'ExecCredential',
  status: { token, expirationTimestamp: new Date(exp * 1000).toISOString() },
}));
`,
    { mode: 0o755 },
  );
  const kubeconfig = join(user.home, `${name}.kubeconfig`);
  await writeFile(
    kubeconfig,
    oneContextKubeconfig({
      cluster: { server: platform.gateway.url, 'certificate-authority': join(user.home, 'ca.crt') },
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: process.execPath,
          args: [script],
          interactiveMode: 'IfAvailable',
          provideClusterInfo: false,
        },
      },
      namespace: options.namespace,
    }),
    { mode: 0o600 },
  );
  return { kubeconfig, tokensFile, callsFile };
}

/** A kubeconfig (YAML) of one cluster, one user and one context, the current one, in `namespace`. */
export function oneContextKubeconfig(entries: {
  cluster: Record<string, unknown>;
  user: Record<string, unknown>;
  namespace: string;
}): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'platform', cluster: entries.cluster }],
    users: [{ name: 'user', user: entries.user }],
    contexts: [{ name: 'platform', context: { cluster: 'platform', user: 'user', namespace: entries.namespace } }],
    'current-context': 'platform',
  });
}
