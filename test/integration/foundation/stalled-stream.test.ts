import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeRequestListener } from '../../../knative/adapters/node-http-adapter.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';
import { openStalledStream } from '../../support/server-sent-events.ts';

// Long enough that a reading client on a loaded machine never looks stalled.
const STALLED_MS = 2_000;

describe('A streamed response whose client takes nothing for the stall time is cut, and the stream is told (its iterator returns)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('cuts a client that stopped reading and ends the body; a reading client keeps its stream', async () => {
    const ended: string[] = [];
    const chunk = 'x'.repeat(64 * 1024);
    server = createServer(
      createNodeRequestListener(
        async (request) => ({
          status: 200,
          headers: { 'content-type': 'text/plain' },
          body: (async function* () {
            try {
              for (let sent = 0; sent < 200; sent++) yield chunk;
            } finally {
              ended.push(request.path);
            }
          })(),
        }),
        { maxBodyBytes: 1024, stalledStreamMs: STALLED_MS },
      ),
    );
    const port = await listen(server, 0, '127.0.0.1');
    const stalled = await openStalledStream(`http://127.0.0.1:${port}`, '/stalled', {});
    const closed = new Promise<void>((resolve) => stalled.socket.once('close', () => resolve()));
    await expect.poll(() => ended, { timeout: 10_000 }).toContain('/stalled');

    // A client that reads gets the whole body, however long it takes in all.
    const response = await fetch(`http://127.0.0.1:${port}/reading`);
    expect((await response.text()).length).toBe(200 * chunk.length);
    expect(ended).toEqual(['/stalled', '/reading']);
    stalled.socket.resume();
    await closed;
  });
});
