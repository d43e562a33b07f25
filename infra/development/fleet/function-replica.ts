import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import type { Environment } from '../../../shared/base/config/environment.ts';
import type { Logger } from '../../../shared/base/logging/logger.ts';
import type { FunctionName } from '../../../shared/contract/routes/route-table.ts';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** The functions-framework's own CLI (its `functions-framework` bin), run with this Node. */
const FRAMEWORK_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@google-cloud/functions-framework')),
  'main.js',
);
/** Preloaded into each replica so the framework's server listens on 127.0.0.1 only. */
const LISTEN_ON_LOOPBACK = new URL('./listen-on-loopback.ts', import.meta.url).href;
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 10_000;

/**
 * One replica of a function: `functions-framework --target=<name> --port=<port>` in a process of
 * its own, from the checkout (package.json "main" is the entry that registers the target),
 * listening on 127.0.0.1 only (listen-on-loopback.ts), where only this machine's gateway reaches it. A
 * replica that exits on its own is started again, on a fresh port, as a platform would.
 */
export class FunctionReplica {
  readonly name: FunctionName;
  readonly index: number;
  readonly #env: Environment;
  readonly #logger: Logger;
  readonly #onOutput: (text: string) => void;
  readonly #onRestart: () => void;
  #child: ChildProcess | undefined;
  #url = '';
  #stopping = false;

  constructor(
    name: FunctionName,
    index: number,
    env: Environment,
    logger: Logger,
    hooks: { onOutput: (text: string) => void; onRestart: () => void },
  ) {
    this.name = name;
    this.index = index;
    this.#env = env;
    this.#logger = logger;
    this.#onOutput = hooks.onOutput;
    this.#onRestart = hooks.onRestart;
  }

  /** `http://127.0.0.1:<port>` of the running process. */
  get url(): string {
    return this.#url;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the process; resolves once it answers `/healthz`, rejects if it exits first. */
  async start(timeoutMs: number): Promise<void> {
    const port = await findFreePort();
    this.#url = `http://127.0.0.1:${port}`;
    const args = [`--import=${LISTEN_ON_LOOPBACK}`, FRAMEWORK_CLI, `--target=${this.name}`, `--port=${port}`];
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: this.#env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    killedWithTheFleet(child);
    child.stdout!.on('data', (chunk: Buffer) => this.#onOutput(chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => this.#onOutput(chunk.toString()));
    child.once('exit', (code, signal) => {
      if (this.#stopping || this.#child !== child) return;
      this.#logger.warn('function replica exited; starting it again', {
        function: this.name,
        replica: this.index,
        code,
        signal,
      });
      setTimeout(() => {
        if (this.#stopping) return;
        this.start(timeoutMs).then(this.#onRestart, (error: Error) =>
          this.#logger.error('function replica did not start again', {
            function: this.name,
            replica: this.index,
            error: error.message,
          }),
        );
      }, RESTART_DELAY_MS).unref();
    });
    await waitUntilServing(this.#url, child, timeoutMs);
  }

  /** Ends the process (SIGTERM, the framework drains) and keeps it ended. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const forced = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(forced);
  }
}

async function waitUntilServing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited with ${child.exitCode ?? child.signalCode} before serving`);
    try {
      const response = await fetch(`${url}/healthz`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`did not answer ${url}/healthz within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Replicas running now: a fleet that exits without stopping them (an uncaught error) takes them along. */
const RUNNING_CHILDREN = new Set<ChildProcess>();

/**
 * One `exit` listener for every replica, not one each: ten replicas would pass Node's default of
 * ten listeners and print a MaxListenersExceededWarning at every fleet start.
 */
function killedWithTheFleet(child: ChildProcess): void {
  if (RUNNING_CHILDREN.size === 0) process.once('exit', killRunningChildren);
  RUNNING_CHILDREN.add(child);
  child.once('exit', () => {
    RUNNING_CHILDREN.delete(child);
    if (RUNNING_CHILDREN.size === 0) process.off('exit', killRunningChildren);
  });
}

function killRunningChildren(): void {
  for (const child of RUNNING_CHILDREN) child.kill('SIGKILL');
}
