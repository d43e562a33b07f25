import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingMessage, type RequestOptions } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const RELAY = fileURLToPath(new URL('./socket-relay.ts', import.meta.url));
/** The port every container listens on, as Knative sets PORT. */
export const CONTAINER_PORT = 8080;
/** Where, inside a container's network namespace, the relay to the test's PostgreSQL listens. */
export const CONTAINER_DATABASE_PORT = 5432;

/** The image under test, built by infra/image/build.sh (npm run test:image). */
export function imageUnderTest(): string {
  const image = process.env.PLATFORM_API_IMAGE;
  if (!image) throw new Error('PLATFORM_API_IMAGE is not set: run the image test with `npm run test:image`');
  return image;
}

/** The Node base the image was built on (its NODE_IMAGE build argument). */
export function nodeImage(): string {
  const image = process.env.PLATFORM_API_NODE_IMAGE;
  if (!image) throw new Error('PLATFORM_API_NODE_IMAGE is not set: run the image test with `npm run test:image`');
  return image;
}

/** An image's size in bytes, as podman reports it (uncompressed). */
export async function imageSize(image: string): Promise<number> {
  return Number(await podman('image', 'inspect', '--format', '{{.Size}}', image));
}

export async function podman(...args: string[]): Promise<string> {
  const { stdout } = await run('podman', args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim();
}

export interface HttpAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * One function's container, run as Knative runs it: PORT, FUNCTION_TARGET and K_SERVICE set, the
 * image's own non-root user, a read-only root file system, every capability dropped, and no
 * network but loopback. The test reaches it through relays in its network namespace, which a holder
 * container keeps from before the function starts.
 */
export class FunctionContainer {
  /** The function's container (the holder's until it runs). */
  id: string;
  /** The container holding the network namespace the function's container joins. */
  readonly holder: string;
  readonly socketDir: string;
  /** Milliseconds from `podman run` to the first 200 of /healthz. */
  coldStartMs = 0;
  private relay?: ChildProcess;

  private constructor(holder: string, socketDir: string) {
    this.holder = holder;
    this.id = holder;
    this.socketDir = socketDir;
  }

  /** Starts the container and waits (generously) until /healthz answers 200. */
  static async start(
    functionName: string,
    env: Record<string, string>,
    options: { databaseSocket?: string } = {},
  ): Promise<FunctionContainer> {
    const socketDir = await mkdtemp(join(tmpdir(), `platform-api-${functionName}-`));
    const environment = {
      PORT: String(CONTAINER_PORT),
      FUNCTION_TARGET: functionName,
      K_SERVICE: `platform-api-${functionName}`,
      K_REVISION: `platform-api-${functionName}-00001`,
      ...env,
    };
    const confined = ['--read-only', '--cap-drop=all', '--security-opt=no-new-privileges'];
    // The network namespace is a holder's, as a Kubernetes pod's is its sandbox's: the relays are in
    // it before the function starts, so the database is there when the function checks it at start
    // (as a proxy sidecar's would be), and the function's container is the one it runs in.
    const holder = await podman(
      'run',
      '--detach',
      '--network=none',
      ...confined,
      imageUnderTest(),
      'node',
      '--eval',
      'setInterval(() => {}, 2 ** 30)',
    );
    const container = new FunctionContainer(holder, socketDir);
    try {
      const relays = [`unix:${container.httpSocket}=tcp:127.0.0.1:${CONTAINER_PORT}`];
      if (options.databaseSocket)
        relays.push(`tcp:127.0.0.1:${CONTAINER_DATABASE_PORT}=unix:${options.databaseSocket}`);
      await container.startRelay(await podman('inspect', '--format', '{{.State.Pid}}', holder), relays);
      const started = performance.now();
      container.id = await podman(
        'run',
        '--detach',
        `--network=container:${holder}`,
        ...confined,
        '--memory=256m',
        '--pids-limit=256',
        ...Object.entries(environment).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
        imageUnderTest(),
      );
      await container.untilHealthy(functionName);
      container.coldStartMs = performance.now() - started;
    } catch (error) {
      await container.remove();
      throw error;
    }
    return container;
  }

  private async untilHealthy(functionName: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while ((await this.get('/healthz').catch(() => undefined))?.status !== 200) {
      if (Date.now() > deadline)
        throw new Error(`${functionName} did not answer /healthz within 60 s:\n${await this.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  get httpSocket(): string {
    return join(this.socketDir, 'http.sock');
  }

  private async startRelay(pid: string, relays: string[]): Promise<void> {
    const relay = spawn('nsenter', [`--net=/proc/${pid}/ns/net`, process.execPath, RELAY, ...relays], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.relay = relay;
    await new Promise<void>((resolve, reject) => {
      relay.once('exit', (code) => reject(new Error(`the relay into container ${this.id} exited with ${code}`)));
      relay.stdout!.once('data', () => resolve());
    });
  }

  /** Sends one request to the container's port; `body` undefined sends none. */
  send(path: string, options: RequestOptions & { body?: string } = {}): Promise<HttpAnswer> {
    const { body, ...requestOptions } = options;
    return new Promise((resolve, reject) => {
      const outgoing = request({ socketPath: this.httpSocket, path, ...requestOptions }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  get(path: string, token?: string): Promise<HttpAnswer> {
    return this.send(path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  }

  /** Starts a request that the server acknowledges (100 Continue) and that waits for its body. */
  openRequest(path: string, headers: Record<string, string>): Promise<{ finish(body: string): Promise<HttpAnswer> }> {
    return new Promise((resolve, reject) => {
      let answered: (answer: HttpAnswer) => void;
      let failed: (error: Error) => void;
      const answer = new Promise<HttpAnswer>((resolveAnswer, rejectAnswer) => {
        answered = resolveAnswer;
        failed = rejectAnswer;
      });
      const outgoing = request(
        {
          socketPath: this.httpSocket,
          path,
          method: 'POST',
          headers: {
            ...headers,
            expect: '100-continue',
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => answered({ status: response.statusCode!, headers: response.headers, body: text }));
        },
      );
      outgoing.on('error', (error) => {
        reject(error);
        failed(error);
      });
      outgoing.once('continue', () =>
        resolve({
          finish: (body) => {
            outgoing.end(body);
            return answer;
          },
        }),
      );
      outgoing.flushHeaders();
    });
  }

  /** Sends a signal to the container's main process (Node, PID 1). */
  async signal(name: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    await podman('kill', `--signal=${name}`, this.id);
  }

  /** Waits for the container to exit and returns its exit code. */
  async exitCode(): Promise<number> {
    return Number(await podman('wait', this.id));
  }

  /** What the container wrote to stdout and stderr. */
  async logs(): Promise<string> {
    const { stdout, stderr } = await run('podman', ['logs', this.id], { maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  }

  async inspect(format: string): Promise<string> {
    return podman('inspect', '--format', format, this.id);
  }

  async remove(): Promise<void> {
    this.relay?.kill();
    await podman('rm', '--force', '--time=0', this.id).catch(() => undefined);
    if (this.holder !== this.id) await podman('rm', '--force', '--time=0', this.holder).catch(() => undefined);
    await rm(this.socketDir, { recursive: true, force: true });
  }
}
