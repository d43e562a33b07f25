// The real kubectl binary and the `platform-api kubeconfig` command, run as child processes against the platform.
import { spawn } from 'node:child_process';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ADMIN_PASSWORD } from './admin-fixtures.ts';
import { REPO_ROOT } from './function-servers.ts';

export const KUBECTL = join(REPO_ROOT, '.tools/bin/kubectl');

export async function requireKubectl(): Promise<void> {
  await access(KUBECTL, constants.X_OK).catch(() => {
    throw new Error(`${KUBECTL} is missing: run \`bash infra/tools/install-tools.sh\` (npm test does it first)`);
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; resolves with its exit code and output whatever the code. */
export async function runCli(
  command: string,
  args: string[],
  options: { input?: string; home: string; timeoutMs?: number; env?: Record<string, string> },
): Promise<CliResult> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: options.home, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  const code = await new Promise<number>((resolve) => child.once('close', (exitCode) => resolve(exitCode ?? -1)));
  return { code, stdout, stderr };
}

/** kubectl with one kubeconfig; `kubectl(...)` rejects with stderr on a non-zero exit. `env` adds to its environment (`KUBE_EDITOR`). */
export function kubectlWith(kubeconfig: string, home: string) {
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', join(home, 'kube-cache')];
  const result = (args: string[], input?: string, env?: Record<string, string>) =>
    runCli(KUBECTL, [...base, ...args], { home, input, ...(env ? { env } : {}) });
  const ok = async (args: string[], input?: string) => {
    const answer = await result(args, input);
    if (answer.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${answer.code}: ${answer.stderr}`);
    return answer.stdout;
  };
  /** Starts a long-running kubectl (a watch): its output so far, and its exit. */
  const start = (args: string[]) => {
    const child = spawn(KUBECTL, [...base, ...args], {
      env: { PATH: process.env.PATH, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? -1)));
    return { output: () => output, exited, kill: () => child.kill() };
  };
  return { ok, result, start };
}

/** `platform-api kubeconfig` writing `kubeconfig` for the server. */
export function platformKubeconfig(args: string[], options: { input?: string; home: string }): Promise<CliResult> {
  return runCli(
    process.execPath,
    [join(REPO_ROOT, 'cli/platform-api/platform-api.js'), 'kubeconfig', ...args],
    options,
  );
}

/**
 * kubectl as the admin for a test file, against a platform serving HTTPS (`usePlatform(env, { tls: true })`): the
 * kubeconfig `platform-api kubeconfig` writes, in a home of its own removed after the file.
 */
export function useAdminKubectl(
  platform: () => { gateway: { url: string }; caCertificate?: string },
): () => ReturnType<typeof kubectlWith> {
  let home = '';
  let admin: ReturnType<typeof kubectlWith> | undefined;
  beforeAll(async () => {
    await requireKubectl();
    home = await mkdtemp(join(tmpdir(), 'kubectl-admin-'));
    const ca = join(home, 'ca.crt');
    await writeFile(ca, platform().caCertificate!);
    const config = join(home, 'admin.kubeconfig');
    const written = await platformKubeconfig(
      ['--server', platform().gateway.url, '--certificate-authority', ca, '--kubeconfig', config],
      { input: `${ADMIN_PASSWORD}\n`, home },
    );
    if (written.code !== 0) throw new Error(`platform-api kubeconfig exited ${written.code}: ${written.stderr}`);
    admin = kubectlWith(config, home);
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });
  return () => admin!;
}

/** Waits until `check` holds, polling; fails after `timeoutMs` with `describe()` in the message. */
export async function eventually(check: () => boolean, describe: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
