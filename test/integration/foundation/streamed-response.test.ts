import { createServer, request, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeRequestListener } from '../../../knative/adapters/node-http-adapter.ts';
import type { StreamingBody } from '../../../shared/base/http/api-request.ts';
import { listen } from '../../../knative/node-http/limited-http-server.ts';

// How the container adapter writes a streamed body (run-log streams): every chunk in order, the
// response ended when the body ends; a body that fails cuts the connection, so the client cannot
// take a truncated stream for a whole one; a client that goes away stops the body.
describe('Streamed responses (node:http adapter)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(body: () => StreamingBody): Promise<string> {
    server = createServer(
      createNodeRequestListener(
        async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: body() }),
        {
          maxBodyBytes: 1024,
        },
      ),
    );
    return `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  }

  /** What the client received before the response ended, and whether it ended cleanly. */
  function receive(url: string): Promise<{ text: string; complete: boolean }> {
    return new Promise((resolve, reject) => {
      request(url, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ text, complete: response.complete }));
        response.on('error', () => resolve({ text, complete: false }));
        response.on('aborted', () => resolve({ text, complete: false }));
      })
        .on('error', reject)
        .end();
    });
  }

  it('writes an answer the core handler has at once (no promise) as it writes a later one', async () => {
    const answer = { status: 201, headers: { 'content-type': 'text/plain' }, body: 'made' };
    for (const handler of [() => ({ ...answer, headers: { ...answer.headers } }), async () => answer]) {
      server = createServer(createNodeRequestListener(handler, { maxBodyBytes: 1024 }));
      const response = await fetch(`http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}/`);
      expect([response.status, response.headers.get('content-length'), await response.text()]).toEqual([
        201,
        '4',
        'made',
      ]);
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });

  it('writes every chunk in order, strings and bytes, and ends the response when the body ends', async () => {
    const url = await serve(async function* () {
      yield 'one ';
      await new Promise((resolve) => setTimeout(resolve, 10));
      yield new TextEncoder().encode('two ');
      yield 'three';
    });
    expect(await receive(url)).toEqual({ text: 'one two three', complete: true });
  });

  it('cuts the connection when the body fails after a chunk (the client sees an incomplete response)', async () => {
    const url = await serve(async function* () {
      yield 'first ';
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('the source failed');
    });
    expect(await receive(url)).toEqual({ text: 'first ', complete: false });
  });

  it('cuts the connection when the body fails before its first chunk, and the server goes on serving', async () => {
    let calls = 0;
    const url = await serve(() => ({
      [Symbol.asyncIterator]: () => ({
        next: () => {
          calls++;
          throw new Error('the iterator threw at once');
        },
      }),
    }));
    expect(await receive(url)).toEqual({ text: '', complete: false });
    expect(calls).toBe(1);
    expect((await receive(url)).complete).toBe(false);
  });

  it('cuts the connection and stops the body when a chunk cannot be written (not a string or bytes)', async () => {
    let stopped = false;
    const url = await serve(() =>
      (async function* () {
        try {
          yield 'fine ';
          yield 42 as unknown as string;
          yield 'never sent';
        } finally {
          stopped = true;
        }
      })(),
    );
    // Cut at once: what was written just before may or may not have left the socket.
    const received = await receive(url);
    expect(received.complete).toBe(false);
    expect('fine '.startsWith(received.text)).toBe(true);
    await expect.poll(() => stopped, { timeout: 5_000 }).toBe(true);
  });

  it('stops the body (its iterator returns) when the client has gone by the next chunk', async () => {
    let stopped = false;
    let sent = 0;
    const url = await serve(async function* () {
      try {
        for (;;) {
          sent++;
          yield `chunk ${sent}\n`;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        stopped = true;
      }
    });
    await new Promise<void>((resolve, reject) => {
      const outgoing = request(url, (response) => {
        response.once('data', () => {
          outgoing.destroy();
          resolve();
        });
      }).on('error', () => {});
      outgoing.on('error', reject).end();
    });
    await expect.poll(() => stopped, { timeout: 5_000 }).toBe(true);
    const sentWhenStopped = sent;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toBe(sentWhenStopped);
  });
});
