import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../shared/base/node/free-port.ts';
import { createLogger, type Logger } from '../../shared/base/logging/logger.ts';
import { startLocalGateway } from '../../infra/development/gateway/local-gateway.ts';
import type { RunningServer } from '../../knative/node-http/running-server.ts';
import type { AppContextOptions } from '../../shared/server/app/app-context.ts';
import { developmentServices } from '../../infra/development/development-services.ts';
import { loadSettings } from '../../shared/base/config/settings.ts';
import { loadDevelopmentSettings } from '../../infra/development/local/local-settings.ts';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A logger that keeps every line, so tests can assert on what reached the log. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger({ level: 'debug', write: (line) => lines.push(line) }), { lines });
}

/** A logger that drops everything. */
export const silentLogger = createLogger({ write: () => {} });

/**
 * Starts the local gateway (every function in one process) on a free loopback port; like
 * `npm start`, it is handed the emulator's starter for when the environment names no cluster.
 */
export async function startTestGateway(
  env: Record<string, string | undefined> = {},
  options: AppContextOptions = {},
): Promise<RunningServer> {
  return startLocalGateway(loadSettings({ PORT: '0', ...env }), {
    logger: silentLogger,
    host: '127.0.0.1',
    local: loadDevelopmentSettings(env),
    development: developmentServices(),
    // Audit events are read back by the tests that prove them (test/*/audit/); elsewhere they are not printed
    // (with DATABASE_URL they are still written to that database, as in production).
    auditSinks: [],
    ...options,
  });
}

/** POSTs the password to the login route and returns the response. */
export function login(baseUrl: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/v1alpha1/auth/login`, {
    method: 'POST',
    headers: { authorization: `Bearer ${password}`, ...headers },
  });
}

/** Logs in and returns the admin JWT, failing the test when login does not succeed. */
export async function loginToken(baseUrl: string, password = 'admin'): Promise<string> {
  const response = await login(baseUrl, password);
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { idToken: string }).idToken;
}

/** GET with a bearer token. */
export function getWithToken(baseUrl: string, path: string, token: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

/** A free TCP port on 127.0.0.1. */
export const freePort = findFreePort;

export interface FunctionProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<number | null>;
}

/** The container entry on the sources (`node knative/server.ts`). */
export const SOURCE_ENTRY = 'knative/server.ts';

/** Runs the container entry (the sources', or a bundle's entry.mjs) as a child process and waits until it serves. */
export function spawnFunctionProcess(
  env: Record<string, string>,
  options: { entry?: string; startTimeoutMs?: number } = {},
): Promise<FunctionProcess> {
  const { entry = SOURCE_ENTRY, ...rest } = options;
  return spawnNodeProcess(entry, env, '/healthz', rest);
}

export interface NodeProcessOptions {
  /** Arguments before the script (e.g. `--import` of a probe); the child always has an IPC channel. */
  nodeArgs?: string[];
  /** How long the process may take to answer `readyPath` (default 60 s). */
  startTimeoutMs?: number;
  /** Reads stdout without keeping it (benchmarks: a request log kept in memory would load this process). */
  discardStdout?: boolean;
  /**
   * Stdout goes into a pipe that a separate `cat > /dev/null` reads, as a container runtime's log
   * shim does, instead of this process (benchmarks: draining here would load the load generator).
   */
  drainStdoutElsewhere?: boolean;
  /** Runs the process on these CPUs only (`taskset -c`, e.g. `0`): benchmarks give the measured server a core of its own. */
  cpus?: string;
  /** Ready when its output contains this text, instead of when `readyPath` answers (an HTTPS server with its own certificate). */
  readyOutput?: string;
}

/**
 * Runs a Node script of this repo on a free port (PORT) and waits until `readyPath` answers 2xx.
 * The default bound is generous: several processes loading the sources at once on a shared machine.
 */
export async function spawnNodeProcess(
  script: string,
  env: Record<string, string>,
  readyPath: string,
  options: NodeProcessOptions = {},
): Promise<FunctionProcess> {
  // Generous by default: start-up on a loaded shared machine can take many times its usual second.
  const { nodeArgs = [], startTimeoutMs = 60_000 } = options;
  const port = await freePort();
  let output = '';
  const drain = options.drainStdoutElsewhere ? spawn('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] }) : undefined;
  const command = options.cpus ? 'taskset' : process.execPath;
  const commandArgs = [...(options.cpus ? ['-c', options.cpus, process.execPath] : []), ...nodeArgs, script];
  const child = spawn(command, commandArgs, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', PORT: String(port), ...env },
    stdio: ['ignore', drain ? drain.stdin! : 'pipe', 'pipe', 'ipc'],
  });
  // The child holds its own copy of the pipe's write end; closing ours lets `cat` end with the child.
  drain?.stdin?.destroy();
  if (options.discardStdout && !drain) child.stdout!.resume();
  else if (!drain) child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}: ${output}`);
    try {
      if (
        options.readyOutput !== undefined
          ? output.includes(options.readyOutput)
          : (await fetch(`${url}${readyPath}`)).ok
      )
        break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${script} did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
