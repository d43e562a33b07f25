import { connect, createServer, type Server } from 'node:net';
import { rm } from 'node:fs/promises';

/**
 * One end of a relay: `unix:<path>` or `tcp:<host>:<port>`. The image test runs its containers
 * with no network but loopback, as a pod's containers talk to a sidecar: it reaches a
 * container's port through a relay started inside the container's network namespace (like
 * Knative's queue-proxy), and the container reaches the test's PostgreSQL the same way (like a
 * database proxy sidecar). The two namespaces meet at Unix sockets, which live in the file system.
 */
type Endpoint = { path: string } | { host: string; port: number };

function endpoint(spec: string): Endpoint {
  const unix = /^unix:(.+)$/.exec(spec);
  if (unix) return { path: unix[1]! };
  const tcp = /^tcp:(.+):(\d+)$/.exec(spec);
  if (tcp) return { host: tcp[1]!, port: Number(tcp[2]) };
  throw new Error(`not an endpoint: ${spec} (unix:<path> or tcp:<host>:<port>)`);
}

/** Listens on `from` and pipes every connection to `to`; resolves once listening. */
export async function startRelay(from: string, to: string): Promise<Server> {
  const listenOn = endpoint(from);
  const target = endpoint(to);
  if ('path' in listenOn) await rm(listenOn.path, { force: true });
  const server = createServer((incoming) => {
    const outgoing = connect(target);
    incoming.pipe(outgoing).pipe(incoming);
    // A reset on either side ends both, as a broken direct connection would.
    incoming.on('error', () => outgoing.destroy());
    outgoing.on('error', () => incoming.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen('path' in listenOn ? listenOn.path : { host: listenOn.host, port: listenOn.port }, () => resolve());
  });
  return server;
}

// As a program: `node socket-relay.ts <from>=<to> ...`, printing "ready" once every relay listens.
if (import.meta.url === `file://${process.argv[1]}`) {
  await Promise.all(
    process.argv.slice(2).map((pair) => {
      const [from, to] = pair.split('=');
      return startRelay(from!, to!);
    }),
  );
  process.stdout.write('ready\n');
}
