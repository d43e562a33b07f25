// A TCP proxy in front of the API that a test can cut, to drop the browser's stream the way a
// network does: open connections are destroyed, and until it is restored new ones are either
// reset (the network is down) or answered 503 (a gateway in front of an API that is away).
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'up' | 'reset' | 'unavailable';

export interface CuttableProxy {
  url: string;
  /** The head of every request that reached the API through the proxy, lower-cased. */
  requestHeads: string[];
  /** Connections turned away (reset or answered 503) since the proxy started. */
  readonly refused: number;
  /** Destroys every open connection and treats new ones as `mode` says until `restore`. */
  cut(mode: Exclude<ProxyMode, 'up'>): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(upstream: string): Promise<CuttableProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  const requestHeads: string[] = [];
  let mode: ProxyMode = 'up';
  let refused = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode !== 'up') refused++;
    if (mode === 'reset') return void client.resetAndDestroy();
    if (mode === 'unavailable') {
      client.once('data', () =>
        client.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'),
      );
      return;
    }
    const api = connect(Number(target.port), target.hostname);
    track(api);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (/^[A-Z]+ \//.test(text)) requestHeads.push((end === -1 ? text : text.slice(0, end)).toLowerCase());
    });
    client.pipe(api);
    api.pipe(client);
    api.once('close', () => client.destroy());
    client.once('close', () => api.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requestHeads,
    get refused() {
      return refused;
    },
    cut(next) {
      mode = next;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      mode = 'up';
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
