// Issue 11, item 5: the fleet's gateway behaves like a real one. Real node:http upstreams stand
// in for the function replicas, so each rule is seen on the wire.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createBridgeProxy } from '../../shared/bridge/bridge-proxy.ts';
import { createFunctionGateway } from '../../shared/gateway/function-gateway.ts';
import { UpstreamPool } from '../../shared/gateway/upstream-pool.ts';
import { gatewayRules } from '../../shared/routes/gateway-routing.ts';
import { FUNCTION_NAMES, routeTable } from '../../shared/routes/route-table.ts';
import { createLimitedHttpServer, listen } from '../../shared/server/limited-http-server.ts';
import { findFreePort } from '../../shared/node/free-port.ts';
import { EventStreamReader } from '../support/event-stream-reader.ts';
import { capturingLogger } from '../support/function-servers.ts';

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

/** A gateway whose run-logs and resources pools hold the given replica URLs (checked once). */
async function gateway(replicas: { 'run-logs'?: string[]; resources?: string[] }) {
  const logger = capturingLogger();
  const pools = new Map(FUNCTION_NAMES.map((name) => [name, new UpstreamPool(name, logger)]));
  for (const [name, urls] of Object.entries(replicas)) pools.get(name as 'resources')!.setUpstreams(urls);
  await Promise.all([...pools.values()].map((pool) => pool.checkAll()));
  const server = createLimitedHttpServer(
    { maxHeaderBytes: 16_384 },
    createFunctionGateway(gatewayRules(routeTable('platform.dev')), pools, createBridgeProxy(undefined)),
  );
  servers.push(server);
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, logger, pools };
}

describe('Gateway: X-Forwarded-For is appended with the client address, X-Forwarded-Host/Proto set', () => {
  it("passes the client chain on with the gateway's peer appended", async () => {
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
    expect(seen['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-host']).toBe(new URL(url).host);
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
    expect(await post.json()).toMatchObject({ reason: 'FunctionUnreachable' });
  });
});
