// Peers that misbehave on the wire, for the gateway's tests (issue 20): a client that abandons its
// requests and a replica whose connections never complete (one that accepts and never answers is
// a node:http server whose handler never responds).
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/**
 * Sends `count` requests, `perSecond` a second at most, each over a new connection closed
 * `abandonAfterMs` after it was written: a client that gives up before any answer. A count, not a
 * duration: on a busy machine the timers run late and the requests take longer, never fewer. Resolves
 * with the number of requests sent once the last connection is closed.
 */
export async function abandonRequests(
  baseUrl: string,
  request: { method: string; path: string },
  pace: { perSecond: number; count: number; abandonAfterMs: number },
): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  const closed: Array<Promise<void>> = [];
  while (closed.length < pace.count) {
    const socket = connect(Number(port), hostname);
    closed.push(
      new Promise((resolve) => {
        socket.once('close', () => resolve());
        socket.once('error', () => {});
      }),
    );
    socket.once('connect', () => {
      socket.write(`${request.method} ${request.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      setTimeout(() => socket.destroy(), pace.abandonAfterMs);
    });
    await new Promise((resolve) => setTimeout(resolve, 1000 / pace.perSecond));
  }
  await Promise.all(closed);
  return closed.length;
}

export interface Peer {
  url: string;
  close(): Promise<void>;
}

/**
 * A replica whose TCP connections never complete: a stopped process (SIGSTOP) listening with a
 * backlog of 0, its one queue slot taken, so the kernel leaves every further handshake unanswered.
 */
export async function unacceptingPeer(): Promise<Peer> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 0 }, function () { console.log(this.address().port) })",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (data) => resolve(Number(`${data}`))));
  child.kill('SIGSTOP');
  // Connect until one hangs: from then on the queue is full.
  const fillers: Socket[] = [];
  for (let completed = true; completed; ) {
    const socket = connect(port, '127.0.0.1').on('error', () => {});
    fillers.push(socket);
    completed = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      setTimeout(() => resolve(false), 200);
    });
  }
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
