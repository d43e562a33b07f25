// A TCP proxy that can stall: in front of the Kubernetes emulator or PostgreSQL, it forwards both ways
// until told to stall; then what clients send is held (not forwarded) until it resumes, so a request
// sent meanwhile waits as on a cluster or a database that stopped answering.
import { connect, createServer, type Socket } from 'node:net';

export interface StallingProxy {
  /** `host:port` of the proxy on 127.0.0.1. */
  port: number;
  /** From now on, what clients send is held. */
  stall(): void;
  /** Forwards what was held, and everything after. */
  resume(): void;
  /** How many client connections closed with something held: requests their client gave up on. */
  abandoned(): number;
  close(): Promise<void>;
}

export async function startStallingProxy(target: { host: string; port: number }): Promise<StallingProxy> {
  let stalled = false;
  let abandoned = 0;
  const held = new Map<Socket, { upstream: Socket; chunks: Buffer[] }>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const connection = { upstream, chunks: [] as Buffer[] };
    held.set(client, connection);
    client.on('data', (chunk: Buffer) => {
      if (stalled || connection.chunks.length > 0) connection.chunks.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      if (!held.delete(client)) return;
      if (connection.chunks.length > 0) abandoned++;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const connection of held.values()) {
        for (const chunk of connection.chunks.splice(0)) connection.upstream.write(chunk);
      }
    },
    abandoned: () => abandoned,
    close: () =>
      new Promise((resolve) => {
        for (const client of held.keys()) client.destroy();
        server.close(() => resolve());
      }),
  };
}
