// Issue 11, item 5, and issue 20, item 6: the fleet's gateway behaves like a real proxy. Real
// node:http upstreams stand in for the function replicas, so each rule is seen on the wire.
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer, globalAgent, request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createBridgeProxy } from '../../../infra/development/gateway/bridge-proxy.ts';
import { createFunctionGateway } from '../../../infra/development/gateway/function-gateway.ts';
import { UpstreamPool } from '../../../infra/development/gateway/upstream-pool.ts';
import { gatewayRules } from '../../../shared/contract/routes/gateway-routing.ts';
import { FUNCTION_NAMES, routeTable } from '../../../shared/contract/routes/route-table.ts';
import { createLimitedHttpServer, listen } from '../../../knative/node-http/limited-http-server.ts';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { EventStreamReader } from '../../support/event-stream-reader.ts';
import { capturingLogger, login, startTestGateway } from '../../support/function-servers.ts';
import { adminEnv } from '../../support/admin-fixtures.ts';
import { abandonRequests, unacceptingPeer } from '../../support/misbehaving-peers.ts';
import type { ProxySettings } from '../../../infra/development/gateway/forward-request.ts';
import { loadSettings } from '../../../shared/base/config/settings.ts';
import { generateTlsCertificate } from '../../../infra/kube-emulator/self-signed-certificate.ts';
import type { ServerTls } from '../../../knative/node-http/server-tls.ts';
import { replicaEnvironment } from '../../../infra/development/fleet/replica-environment.ts';

const REPLICA_OVERRIDES = {
  adminSecretFolder: '/secrets',
  kubeconfigPath: '/kubeconfig',
  databaseUrl: 'postgres://db',
  gatewayUrl: 'http://gateway',
  corsAllowedOrigins: [],
};

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(listener: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  const port = await listen(server, 0, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}

/** A replica that answers /readyz 200 and hands every other request to `handle`. */
function replica(handle: Parameters<typeof createServer>[1]): Promise<string> {
  return serve((request, response) => {
    if (request.url === '/readyz') return void response.end('{"status":"ready"}');
    handle!(request, response);
  });
}

type ReplicaUrls = Partial<Record<'run-logs' | 'resources' | 'login', string[]>>;

/** A gateway whose pools hold the given replica URLs (checked once), with the default settings unless overridden. */
async function gateway(replicas: ReplicaUrls, settings: Partial<ProxySettings> = {}, tls?: ServerTls) {
  const logger = capturingLogger();
  const pools = new Map(FUNCTION_NAMES.map((name) => [name, new UpstreamPool(name, logger)]));
  for (const [name, urls] of Object.entries(replicas)) pools.get(name as 'resources')!.setUpstreams(urls);
  await Promise.all([...pools.values()].map((pool) => pool.checkAll()));
  const proxySettings = { ...loadSettings({}).server, ...settings };
  const server = createLimitedHttpServer(
    { maxHeaderBytes: 16_384 },
    createFunctionGateway(
      gatewayRules(routeTable('platform.dev')),
      pools,
      createBridgeProxy(undefined, proxySettings),
      proxySettings,
    ),
    tls,
  );
  servers.push(server);
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, logger, pools };
}

/**
 * POSTs `body` chunked (a Trailer header is valid only so), each part after `pauseMs`: a client
 * uploading slowly. Resolves with the answer.
 */
function sendChunked(
  baseUrl: string,
  path: string,
  body: string | string[],
  headers: Record<string, string> = {},
  pauseMs = 0,
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, method: 'POST', path, headers }, async (incoming) => {
      let text = '';
      for await (const chunk of incoming) text += chunk;
      resolve({ status: incoming.statusCode!, text });
    });
    outgoing.on('error', reject);
    const parts = [body].flat();
    const next = (index: number): void => {
      if (index === parts.length) return void outgoing.end();
      outgoing.write(parts[index]);
      setTimeout(() => next(index + 1), pauseMs);
    };
    next(0);
  });
}

/** Whether the gateway's log says a replica went out of rotation. */
const loggedNotServing = (logger: { lines: string[] }) =>
  logger.lines.some((line) => line.includes('upstream not serving'));

describe('Gateway: X-Forwarded-For is replaced by the one client address the gateway saw, X-Forwarded-Host/Proto set (issue 20)', () => {
  it('sends its peer address alone, whatever X-Forwarded-For the client wrote', async () => {
    let seen: IncomingHttpHeaders = {};
    const upstream = await replica((request, response) => {
      seen = request.headers;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(response.status).toBe(200);
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-host']).toBe(new URL(url).host);
  });

  it('X-Forwarded-Proto is https when the client came over TLS', async () => {
    let seen: IncomingHttpHeaders = {};
    const upstream = await replica((request, response) => {
      seen = request.headers;
      response.end('{}');
    });
    const certificate = await generateTlsCertificate('localhost');
    const tls = { ...certificate, fingerprint: '', certificateFile: '' };
    const { url } = await gateway({ resources: [upstream] }, {}, tls);
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(url);
      httpsRequest(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port,
          path: '/apis/platform.dev/v1alpha1/projects',
          ca: certificate.cert,
        },
        (answer) => resolve(answer.resume().statusCode!),
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(200);
    expect(seen['x-forwarded-proto']).toBe('https');
  });

  it('forwards to an https upstream over TLS (the identity bridge may be one)', async () => {
    const certificate = await generateTlsCertificate('localhost');
    const upstream = createHttpsServer(certificate, (request, response) =>
      response.end(JSON.stringify({ overTls: (request.socket as TLSSocket).encrypted === true })),
    );
    servers.push(upstream);
    const upstreamUrl = `https://127.0.0.1:${await listen(upstream, 0, '127.0.0.1')}`;
    // Short deadlines: plain HTTP sent to a TLS server would wait for an answer that never comes.
    const deadlines = { gatewayTimeouts: { connectMs: 2_000, responseHeaderMs: 2_000 } };
    const { url, pools } = await gateway({ resources: [upstreamUrl] }, deadlines);
    // The health check (fetch) does not trust the test's certificate; the forwarding agent is told to.
    pools.get('resources')!.upstreams()[0]!.state = 'ready';
    const trusted = globalAgent.options.ca;
    globalAgent.options.ca = certificate.cert;
    try {
      const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ overTls: true });
    } finally {
      globalAgent.options.ca = trusted;
    }
  });

  it('behind TRUSTED_PROXY_HOPS=1 of its own, sends the address its trusted proxy saw, and only that', async () => {
    let seen: IncomingHttpHeaders = {};
    const upstream = await replica((request, response) => {
      seen = request.headers;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] }, { trustedProxyHops: 1 });
    await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, {
      headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.9' },
    });
    expect(seen['x-forwarded-for']).toBe('198.51.100.9');
  });

  it('a client rotating the X-Forwarded-For it sends is still throttled by the login replica behind the gateway', async () => {
    // A real login function, trusting exactly the hops the fleet tells its replicas to trust.
    const hops = replicaEnvironment({ TRUSTED_PROXY_HOPS: '3' }, REPLICA_OVERRIDES).TRUSTED_PROXY_HOPS;
    expect(hops).toBe('1');
    const loginReplica = await startTestGateway(adminEnv({ TRUSTED_PROXY_HOPS: hops! }));
    try {
      const { url, pools } = await gateway({ login: [loginReplica.url] });
      pools.get('login')!.upstreams()[0]!.state = 'ready';
      const attempt = (n: number) => login(url, 'guess', { 'x-forwarded-for': `203.0.113.${n}` });
      for (let n = 1; n <= 5; n++) expect((await attempt(n)).status).toBe(403);
      const throttled = await attempt(6);
      expect(throttled.status).toBe(429);
      expect(await throttled.json()).toMatchObject({ reason: 'TooManyFailedLogins' });
    } finally {
      await loginReplica.close();
    }
  });
});

describe('Gateway: /bridge/* goes to the identity bridge proxy, not to a function', () => {
  it('answers 404 BridgeNotConfigured without a bridge, whatever replicas are ready', async () => {
    const upstream = await replica((_request, response) => response.end('{"from":"a function"}'));
    const { url } = await gateway({ resources: [upstream] });
    const response = await fetch(`${url}/bridge/.well-known/openid-configuration`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ reason: 'BridgeNotConfigured' });
  });
});

describe('Gateway: routing ignores the query string (issue 20)', () => {
  it('/api/v1alpha1/auth/login?x=1 goes to login, with its query', async () => {
    const received: Array<[string, string]> = [];
    const tagging = (name: string) =>
      replica((request, response) => {
        received.push([name, request.url ?? '']);
        response.end('{}');
      });
    const { url } = await gateway({ login: [await tagging('login')], resources: [await tagging('resources')] });
    expect((await fetch(`${url}/api/v1alpha1/auth/login?x=1`, { method: 'POST' })).status).toBe(200);
    expect(received).toEqual([['login', '/api/v1alpha1/auth/login?x=1']]);
  });
});

describe('Gateway: a client abandoning its requests never takes a replica out of rotation; only the replica failing does (issue 20)', () => {
  it('keeps answering every call while a client drops 100 requests a second, 2 ms after sending each', async () => {
    // Each answer takes 20 ms, so every dropped request is abandoned while the replica works on it.
    const upstream = await replica((_request, response) => void setTimeout(() => response.end('{}'), 20));
    const { url, pools, logger } = await gateway({ resources: [upstream], login: [upstream] });
    // 50 dropped requests per stream (half a second at this pace): far more than one, which used to be enough.
    const pace = { perSecond: 100, count: 50, abandonAfterMs: 2 };
    let finished = false;
    const dropping = Promise.all([
      abandonRequests(url, { method: 'GET', path: '/apis/platform.dev/v1alpha1/projects' }, pace),
      abandonRequests(url, { method: 'POST', path: '/api/v1alpha1/auth/login' }, pace),
    ]).finally(() => {
      finished = true;
    });
    const statuses: number[] = [];
    while (!finished) {
      const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
      await response.body?.cancel();
      statuses.push(response.status);
    }
    expect((await dropping).reduce((sum, sent) => sum + sent, 0)).toBe(100);
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(pools.get('resources')!.upstreams()[0]!.state).toBe('ready');
    expect(pools.get('login')!.upstreams()[0]!.state).toBe('ready');
    expect(loggedNotServing(logger)).toBe(false);
  });
});

describe('Gateway: connect and response-header deadlines answer JSON 504 FunctionTimeout and count the replica failed (issue 20)', () => {
  const TIMEOUT_MS = 300;
  // A generous upper bound on a shared machine: what matters is that the wait ends, near the deadline.
  const SLACK_MS = 2_000;
  const timeouts = { gatewayTimeouts: { connectMs: TIMEOUT_MS, responseHeaderMs: TIMEOUT_MS } };

  async function expectTimeout(response: Response, startedAt: number, detail: string) {
    const elapsed = Date.now() - startedAt;
    expect(response.status).toBe(504);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({
      reason: 'FunctionTimeout',
      error: `function resources ${detail} within ${TIMEOUT_MS} ms`,
    });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  }

  it('a replica that accepts and never answers: 504 after GATEWAY_RESPONSE_HEADER_TIMEOUT, then out of rotation', async () => {
    const frozen = await replica(() => {});
    const { url, pools, logger } = await gateway({ resources: [frozen] }, timeouts);
    const startedAt = Date.now();
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, { method: 'POST', body: '{}' });
    await expectTimeout(response, startedAt, 'did not answer');
    expect(pools.get('resources')!.upstreams()[0]).toMatchObject({
      state: 'unreachable',
      detail: `did not answer within ${TIMEOUT_MS} ms`,
    });
    expect(loggedNotServing(logger)).toBe(true);
    expect((await fetch(`${url}/apis/platform.dev/v1alpha1/projects`)).status).toBe(503);
  });

  it('the response-header deadline holds on a kept-alive connection too', async () => {
    const connections = new Set<Socket>();
    const freezesLater = await replica((request, response) => {
      connections.add(request.socket);
      if (!request.url?.endsWith('/freeze')) response.end('{}');
    });
    const { url } = await gateway({ resources: [freezesLater] }, timeouts);
    expect((await fetch(`${url}/apis/platform.dev/v1alpha1/projects`)).status).toBe(200);
    const startedAt = Date.now();
    await expectTimeout(await fetch(`${url}/apis/platform.dev/v1alpha1/projects/freeze`), startedAt, 'did not answer');
    expect(connections.size).toBe(1);
  });

  it('a replica whose connection never completes: 504 after GATEWAY_CONNECT_TIMEOUT, then out of rotation', async () => {
    const peer = await unacceptingPeer();
    try {
      const { url, pools } = await gateway({ resources: [peer.url] }, timeouts);
      pools.get('resources')!.upstreams()[0]!.state = 'ready';
      const startedAt = Date.now();
      const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
      await expectTimeout(response, startedAt, 'did not accept the connection');
      expect(pools.get('resources')!.upstreams()[0]).toMatchObject({
        state: 'unreachable',
        detail: `did not accept the connection within ${TIMEOUT_MS} ms`,
      });
    } finally {
      await peer.close();
    }
  });

  it('no deadline after the headers: an event stream silent for longer than both timeouts stays open', async () => {
    let sendNext: (text: string) => void = () => {};
    const upstream = await replica((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      sendNext = (text) => response.write(text);
    });
    const { url } = await gateway({ 'run-logs': [upstream] }, timeouts);
    const reader = new EventStreamReader(await fetch(`${url}/api/v1alpha1/run-logs/demo/r1`));
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMEOUT_MS));
    sendNext('id: 1\ndata: late\n\n');
    expect(await reader.until((events) => events.length >= 1)).toBe(true);
    await reader.cancel();
  });
});

describe('Gateway: server-sent events pass through unbuffered', () => {
  it('delivers each event while the upstream keeps the stream open', async () => {
    let sendNext: (text: string) => void = () => {};
    const upstream = await replica((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      sendNext = (text) => response.write(text);
    });
    const { url } = await gateway({ 'run-logs': [upstream] });
    const reader = new EventStreamReader(await fetch(`${url}/api/v1alpha1/run-logs/demo/r1`));
    for (let seq = 1; seq <= 3; seq++) {
      // The next event is written only once the previous one arrived: nothing can wait for the end.
      sendNext(`id: ${seq}\ndata: line ${seq}\n\n`);
      expect(await reader.until((events) => events.length >= seq)).toBe(true);
    }
    await reader.cancel();
    expect(reader.events.map((event) => event.data)).toEqual(['line 1', 'line 2', 'line 3']);
  });
});

describe('Gateway: JSON 503 when a function has no ready replica, JSON 502 when the replica fails before answering; a GET tries the next replica', () => {
  it("503 FunctionUnavailable naming each replica's state, with Retry-After", async () => {
    const notReady = await serve((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":"the cluster does not serve projects","reason":"CustomResourceDefinitionsMissing"}');
    });
    const { url, logger } = await gateway({ resources: [notReady] });
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBeTruthy();
    expect(await response.json()).toMatchObject({
      reason: 'FunctionUnavailable',
      error: expect.stringContaining('the cluster does not serve projects'),
    });
    expect(
      logger.lines.some(
        (line) =>
          line.includes('upstream not serving') &&
          line.includes('"function":"resources"') &&
          line.includes('not-ready'),
      ),
    ).toBe(true);
  });

  it('a GET whose replica is gone is answered by the next one; a POST gets 502 FunctionUnreachable', async () => {
    const alive = await replica((_request, response) => response.end('{"from":"alive"}'));
    const gonePort = await findFreePort();
    const { url, pools } = await gateway({ resources: [alive] });
    // The gone replica counts as ready (its last check passed) until a request finds it down.
    pools.get('resources')!.setUpstreams([`http://127.0.0.1:${gonePort}`, alive]);
    for (const upstream of pools.get('resources')!.upstreams()) upstream.state = 'ready';
    const answers = await Promise.all(
      [1, 2].map(() => fetch(`${url}/apis/platform.dev/v1alpha1/projects`).then((response) => response.json())),
    );
    expect(answers).toEqual([{ from: 'alive' }, { from: 'alive' }]);

    pools.get('resources')!.setUpstreams([`http://127.0.0.1:${gonePort}`]);
    pools.get('resources')!.upstreams()[0]!.state = 'ready';
    const post = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(502);
    expect(await post.json()).toMatchObject({
      reason: 'FunctionUnreachable',
      error: 'function resources failed before answering',
    });
  });
});

describe('Gateway: only requests without a body (GET, HEAD, OPTIONS) go to the next replica; when every replica fails, JSON 502', () => {
  it('HEAD and OPTIONS are retried like GET, DELETE is not, and a GET that finds every replica gone is 502', async () => {
    const methods: string[] = [];
    const alive = await replica((request, response) => {
      methods.push(request.method!);
      response.end();
    });
    const gone = `http://127.0.0.1:${await findFreePort()}`;
    const { url, pools } = await gateway({ resources: [alive] });
    const resources = pools.get('resources')!;
    const goneFirst = () => {
      resources.setUpstreams([gone, alive]);
      for (const upstream of resources.upstreams()) upstream.state = 'ready';
      // The round-robin moves on with every request: turn it until the next one starts at the gone replica.
      while (resources.candidates()[0]!.url.href !== new URL(alive).href);
    };
    for (const method of ['HEAD', 'OPTIONS', 'DELETE']) {
      goneFirst();
      const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, { method });
      expect(response.status, method).toBe(method === 'DELETE' ? 502 : 200);
    }
    expect(methods).toEqual(['HEAD', 'OPTIONS']);

    resources.setUpstreams([gone, `http://127.0.0.1:${await findFreePort()}`]);
    for (const upstream of resources.upstreams()) upstream.state = 'ready';
    const get = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
    expect(get.status).toBe(502);
    expect(await get.json()).toMatchObject({ reason: 'FunctionUnreachable' });
  });
});

describe('Gateway: end-to-end headers and the body pass; hop-by-hop headers stop at the gateway', () => {
  it('drops Connection, Keep-Alive, Proxy-Connection, TE, Trailer and Upgrade; sets Host to the replica; passes the body', async () => {
    let seen: IncomingHttpHeaders = {};
    let body = '';
    const upstream = await replica(async (request, response) => {
      seen = request.headers;
      for await (const chunk of request) body += chunk;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const answer = await sendChunked(url, '/apis/platform.dev/v1alpha1/projects', '{"kind":"Project"}', {
      connection: 'close',
      'keep-alive': 'timeout=5',
      'proxy-connection': 'keep-alive',
      te: 'trailers',
      trailer: 'x-checksum',
      upgrade: 'h2c',
      'x-end-to-end': 'kept',
    });
    expect(answer.status).toBe(200);
    expect(body).toBe('{"kind":"Project"}');
    expect(seen['x-end-to-end']).toBe('kept');
    expect(seen.host).toBe(new URL(upstream).host);
    expect(seen.connection).not.toBe('close');
    for (const name of ['keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'])
      expect(seen).not.toHaveProperty(name);
  });

  it('passes a body of a declared Content-Length whole (only a request declaring none is ended at once)', async () => {
    let body = '';
    const upstream = await replica(async (request, response) => {
      for await (const chunk of request) body += chunk;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const answer = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind":"Project","metadata":{"name":"sized"}}',
    });
    expect(answer.status).toBe(200);
    expect(body).toBe('{"kind":"Project","metadata":{"name":"sized"}}');
  });

  it('a replica dying in the middle of its answer cuts the client off, rather than ending the answer early', async () => {
    const upstream = await replica((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('{"partial":');
      setTimeout(() => response.destroy(), 50);
    });
    const { url, pools } = await gateway({ resources: [upstream] });
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    // It answered: what went wrong after that is not the gateway's reason to take it out of rotation.
    expect(pools.get('resources')!.upstreams()[0]!.state).toBe('ready');
  });
});

describe("Gateway: the replica's side of a request follows the client's (issue 20)", () => {
  it('a client leaving in the middle of an answer releases the request it held on the replica within a second', async () => {
    let replicaClosed!: () => void;
    const released = new Promise<void>((resolve) => {
      replicaClosed = resolve;
    });
    const upstream = await replica((request, response) => {
      request.socket.once('close', () => replicaClosed());
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('id: 1\ndata: first\n\n');
    });
    const { url, pools } = await gateway({ 'run-logs': [upstream] });
    const leaving = new AbortController();
    const reader = new EventStreamReader(
      await fetch(`${url}/api/v1alpha1/run-logs/demo/r1`, { signal: leaving.signal }),
    );
    expect(await reader.until((events) => events.length >= 1)).toBe(true);
    leaving.abort();
    const timedOut = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 1_000));
    expect(await Promise.race([released.then(() => 'released' as const), timedOut])).toBe('released');
    expect(pools.get('run-logs')!.upstreams()[0]!.state).toBe('ready');
  });

  it('a finished answer leaves both connections open for the next request (keep-alive on each side)', async () => {
    const replicaPorts: number[] = [];
    const upstream = await replica((request, response) => {
      replicaPorts.push(request.socket.remotePort!);
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const reused: boolean[] = [];
      for (let call = 0; call < 3; call++) {
        const { hostname, port } = new URL(url);
        await new Promise<void>((resolve, reject) => {
          const request = httpRequest(
            { hostname, port, path: '/apis/platform.dev/v1alpha1/projects', agent },
            (answer) => {
              reused.push(request.reusedSocket);
              answer.resume().on('end', resolve);
            },
          );
          request.on('error', reject).end();
        });
        // Let each side hand its socket back to its pool before the next call.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(reused).toEqual([false, true, true]);
      expect(new Set(replicaPorts).size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('a large answer read slowly arrives whole: the replica finishing first does not cut the client short', async () => {
    const body = 'x'.repeat(8 * 1024 * 1024);
    const upstream = await replica((_request, response) => {
      response.writeHead(200, { 'content-length': String(body.length) });
      response.end(body);
    });
    const { url } = await gateway({ resources: [upstream] });
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
    const reader = response.body!.getReader();
    let received = 0;
    for (let first = true; ; first = false) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      // Stop reading for a while: the replica's whole answer reaches the gateway meanwhile.
      if (first) await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(received).toBe(body.length);
  });

  it("the replica's hop-by-hop answer headers, and those its Connection names, stop at the gateway", async () => {
    const upstream = await replica((_request, response) => {
      response.writeHead(200, {
        connection: 'keep-alive, x-replica-private',
        'keep-alive': 'timeout=99',
        'x-replica-private': 'not for the client',
        'x-end-to-end': 'kept',
      });
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const response = await fetch(`${url}/apis/platform.dev/v1alpha1/projects`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-end-to-end')).toBe('kept');
    expect(response.headers.get('x-replica-private')).toBeNull();
    expect(response.headers.get('keep-alive')).not.toBe('timeout=99');
    await response.body?.cancel();
  });

  it('a request header its Connection names stops at the gateway', async () => {
    let seen: IncomingHttpHeaders = {};
    const upstream = await replica((request, response) => {
      seen = request.headers;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const answer = await sendChunked(url, '/apis/platform.dev/v1alpha1/projects', '{}', {
      connection: 'keep-alive, X-Client-Private',
      'x-client-private': 'for the gateway only',
    });
    expect(answer.status).toBe(200);
    expect(seen).not.toHaveProperty('x-client-private');
  });

  it('an HTTP/1.0 request without Host is forwarded without an X-Forwarded-Host', async () => {
    let seen: IncomingHttpHeaders = {};
    const upstream = await replica((request, response) => {
      seen = request.headers;
      response.end('{}');
    });
    const { url } = await gateway({ resources: [upstream] });
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.write('GET /apis/platform.dev/v1alpha1/projects HTTP/1.0\r\n\r\n');
    let answer = '';
    // The gateway closes an HTTP/1.0 connection after its answer, as it must: reading to the end proves it.
    for await (const chunk of socket) answer += chunk;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(seen).not.toHaveProperty('x-forwarded-host');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
  });
});

describe('Gateway: the response-header deadline starts once the request is written (issue 20)', () => {
  it('a body uploaded over longer than the deadline is answered, not cut', async () => {
    const upstream = await replica(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      response.end(JSON.stringify({ received: body }));
    });
    const { url } = await gateway(
      { resources: [upstream] },
      { gatewayTimeouts: { connectMs: 300, responseHeaderMs: 300 } },
    );
    const answer = await sendChunked(
      url,
      '/apis/platform.dev/v1alpha1/projects',
      ['first half, ', 'second half'],
      {},
      600,
    );
    expect(answer).toEqual({ status: 200, text: '{"received":"first half, second half"}' });
  });
});
