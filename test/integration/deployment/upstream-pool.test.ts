// The fleet gateway's replica pool (issue 11, item 5; issue 20, item 6): which replicas a request may
// go to, what a health check makes of each `/readyz` answer, and what reaches the log. Real
// node:http servers answer the checks.
import { createServer, request, type RequestListener, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamPool } from '../../../infra/development/gateway/upstream-pool.ts';
import { findFreePort } from '../../../shared/base/node/free-port.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { capturingLogger } from '../../support/function-servers.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A replica whose `/readyz` is answered by `readyz`. */
async function replica(readyz: RequestListener): Promise<string> {
  const server = createServer(readyz);
  servers.push(server);
  return `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
}

const ready = () => replica((_request, response) => response.end('{"status":"ready"}'));

function pool(urls: string[]) {
  const logger = capturingLogger();
  const upstreams = new UpstreamPool('resources', logger);
  upstreams.setUpstreams(urls);
  const logged = () => logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { upstreams, logged };
}

const hosts = (list: readonly { url: URL }[]) => list.map((upstream) => upstream.url.host);

describe('UpstreamPool: requests go round-robin over the ready replicas only', () => {
  it('starts each request at the next ready replica and offers the other ready ones after it', async () => {
    const urls = [await ready(), await ready(), await ready()];
    const { upstreams } = pool(urls);
    await upstreams.checkAll();
    const [a, b, c] = urls.map((url) => new URL(url).host);
    expect(hosts(upstreams.candidates())).toEqual([a, b, c]);
    expect(hosts(upstreams.candidates())).toEqual([b, c, a]);
    expect(hosts(upstreams.candidates())).toEqual([c, a, b]);
    expect(hosts(upstreams.candidates())).toEqual([a, b, c]);
  });

  it('leaves out a replica that is not ready; none ready: no candidate', async () => {
    const notReady = await replica((_request, response) => {
      response.statusCode = 503;
      response.end('{"error":"warming up"}');
    });
    const readyOne = await ready();
    const { upstreams } = pool([notReady, readyOne]);
    await upstreams.checkAll();
    expect(hosts(upstreams.candidates())).toEqual([new URL(readyOne).host]);
    upstreams.markUnreachable(upstreams.upstreams()[1]!, new Error('connection reset'));
    expect(upstreams.candidates()).toEqual([]);
  });

  it('a new set of replicas keeps the state of those it already knew; a new one is unchecked and not ready', async () => {
    const known = await ready();
    const { upstreams } = pool([known]);
    await upstreams.checkAll();
    const added = `http://127.0.0.1:${await findFreePort()}`;
    upstreams.setUpstreams([known, added]);
    expect(upstreams.upstreams().map(({ state, detail }) => ({ state, detail }))).toEqual([
      { state: 'ready', detail: undefined },
      { state: 'unreachable', detail: 'not checked yet' },
    ]);
  });
});

describe("UpstreamPool: a health check records each replica's state and why; every change is logged once", () => {
  it('2xx: ready, logged at info with the function and the replica', async () => {
    const url = await ready();
    const { upstreams, logged } = pool([url]);
    await upstreams.checkAll();
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'ready', detail: undefined });
    expect(logged()).toEqual([
      expect.objectContaining({
        level: 'info',
        message: 'upstream ready',
        function: 'resources',
        upstream: new URL(url).host,
        state: 'ready',
      }),
    ]);
    expect(logged()[0]).not.toHaveProperty('detail');
  });

  it('a 2xx without a body (204) is ready too', async () => {
    const url = await replica((_request, response) => {
      response.statusCode = 204;
      response.end();
    });
    const { upstreams } = pool([url]);
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'ready', detail: undefined });
  });

  it("non-2xx: not ready, with the answer's `error`, else its status; logged at warn with the detail", async () => {
    const explained = await replica((_request, response) => {
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end('{"error":"the cluster does not serve projects"}');
    });
    const bare = await replica((_request, response) => {
      response.statusCode = 500;
      response.end('not json');
    });
    const { upstreams, logged } = pool([explained, bare]);
    await upstreams.checkAll();
    expect(upstreams.upstreams().map(({ state, detail }) => ({ state, detail }))).toEqual([
      { state: 'not-ready', detail: 'the cluster does not serve projects' },
      { state: 'not-ready', detail: 'HTTP 500' },
    ]);
    expect(logged()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 'warn',
          message: 'upstream not serving',
          upstream: new URL(explained).host,
          state: 'not-ready',
          detail: 'the cluster does not serve projects',
        }),
      ]),
    );
  });

  it('a new reason for the same state replaces the old one, and is logged', async () => {
    let reason = 'warming up';
    const url = await replica((_request, response) => {
      response.statusCode = 503;
      response.end(JSON.stringify({ error: reason }));
    });
    const { upstreams, logged } = pool([url]);
    await upstreams.checkAll();
    reason = 'the cluster does not serve projects';
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'not-ready', detail: reason });
    expect(logged().map((line) => line.detail)).toEqual(['warming up', reason]);
  });

  it('no process on the port: unreachable, with the connection error', async () => {
    const { upstreams } = pool([`http://127.0.0.1:${await findFreePort()}`]);
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({
      state: 'unreachable',
      detail: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('a check unanswered for 2 s: unreachable', async () => {
    const silent = await replica(() => {});
    const { upstreams } = pool([silent]);
    const startedAt = Date.now();
    await upstreams.checkAll();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_900);
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'unreachable', detail: expect.stringMatching(/timeout/i) });
  });

  it('Issue 44, item 14: a ready replica whose checks time out (a busy machine) stays in rotation until three in a row have', async () => {
    let silent = false;
    const url = await replica((_request, response) => {
      if (!silent) response.end('{"status":"ready"}');
    });
    const { upstreams, logged } = pool([url]);
    await upstreams.checkAll();
    silent = true;
    for (const _slow of [1, 2]) {
      await upstreams.checkAll();
      expect(upstreams.upstreams()[0]).toMatchObject({ state: 'ready' });
      expect(upstreams.candidates()).toHaveLength(1);
    }
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'unreachable', detail: expect.stringMatching(/timeout/i) });
    // An answer in between starts the count again.
    silent = false;
    await upstreams.checkAll();
    silent = true;
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'ready' });
    expect(logged().map((line) => line.message)).toEqual(['upstream ready', 'upstream not serving', 'upstream ready']);
  }, 30_000);

  it('a replica back after a failure is ready again at its next check', async () => {
    const url = await ready();
    const { upstreams, logged } = pool([url]);
    await upstreams.checkAll();
    upstreams.markUnreachable(upstreams.upstreams()[0]!, new Error('socket hang up'));
    expect(upstreams.upstreams()[0]).toMatchObject({ state: 'unreachable', detail: 'socket hang up' });
    await upstreams.checkAll();
    expect(upstreams.upstreams()[0]!.state).toBe('ready');
    expect(logged().map((line) => line.message)).toEqual(['upstream ready', 'upstream not serving', 'upstream ready']);
  });
});

describe('UpstreamPool: why no replica is ready, for the 503', () => {
  it('names each replica with its state and detail', async () => {
    const notReady = await replica((_request, response) => {
      response.statusCode = 503;
      response.end('{"error":"warming up"}');
    });
    const url = await ready();
    const { upstreams } = pool([notReady, url]);
    await upstreams.checkAll();
    expect(upstreams.unavailableReason()).toBe(
      `${new URL(notReady).host}: not-ready (warming up); ${new URL(url).host}: ready`,
    );
  });

  it('says so when no replica is running', () => {
    expect(pool([]).upstreams.unavailableReason()).toBe('no replica of resources is running');
  });
});

describe('UpstreamPool: kept-alive connections to the replicas (issue 25, item 4)', () => {
  it('reuses connections, and drops an idle one before a node:http replica closes it (its 5 s keep-alive timeout)', async () => {
    const url = await ready();
    const { upstreams } = pool([url]);
    const agent = upstreams.agent as typeof upstreams.agent & { keepAlive: boolean; options: { timeout?: number } };
    expect(agent.keepAlive).toBe(true);
    expect(agent.options.timeout).toBeLessThan(createServer().keepAliveTimeout);
    // Two requests in turn go over one connection of the pool: the same local port.
    const localPortOfGet = () =>
      new Promise<number | undefined>((resolve, reject) =>
        request(`${url}/readyz`, { agent }, (response) => {
          const port = response.socket.localPort;
          response.resume();
          response.on('end', () => resolve(port));
        })
          .on('error', reject)
          .end(),
      );
    const first = await localPortOfGet();
    await new Promise((resolve) => setImmediate(resolve));
    expect(first).toBeTypeOf('number');
    expect(await localPortOfGet()).toBe(first);
    agent.destroy();
  });
});
