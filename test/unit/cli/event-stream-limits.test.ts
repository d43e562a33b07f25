// Issue 44, item 8: the plugin's event-stream reader looks at each received character once and holds
// at most one line (and one event) of EVENT_STREAM_MAX_LINE characters: a server sending a longer one
// ends the stream with an error, before the reader has buffered much more than the limit.
import { describe, expect, it } from 'vitest';
import { PluginError } from '../../../cli/plugin/plugin-error.ts';
import { EVENT_STREAM_MAX_LINE, serverSentEvents } from '../../../cli/plugin/server-sent-events.ts';

const CHUNK = 64 * 1024;

/** Chunks of `next()`'s text, counting how many the reader asked for. */
function counted(next: (index: number) => string, count: number) {
  const source = {
    pulled: 0,
    async *[Symbol.asyncIterator]() {
      for (let index = 0; index < count; index++) {
        source.pulled++;
        yield next(index);
      }
    },
  };
  return source;
}

async function readAll(chunks: AsyncIterable<string>) {
  const events = [];
  for await (const event of serverSentEvents(chunks)) events.push(event);
  return events;
}

describe('Issue 44, item 8: the event-stream reader is linear, with a line limit', () => {
  it('the limit is 1 MiB of characters, as docs/cli.md says', () => {
    expect(EVENT_STREAM_MAX_LINE).toBe(1024 * 1024);
  });

  it('a line that never ends is refused once it passes the limit: the reader stops asking for more', async () => {
    // 50 MB, the size of issue 44's hostile line: the reader must not hold (or wait for) all of it.
    const hostile = counted((index) => (index === 0 ? 'data: ' : 'a'.repeat(CHUNK)), 800);
    const error = await readAll(hostile).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).exitCode).toBe(3);
    expect((error as PluginError).message).toMatch(/longer than 1 MiB/);
    expect(hostile.pulled).toBeLessThanOrEqual(Math.ceil(EVENT_STREAM_MAX_LINE / CHUNK) + 2);
  });

  it("an event whose data lines add up past the limit is refused the same way (one event's data is held)", async () => {
    const hostile = counted(() => `data: ${'b'.repeat(CHUNK - 7)}\n`, 800);
    const error = await readAll(hostile).catch((caught: unknown) => caught);
    expect((error as PluginError).message).toMatch(/longer than 1 MiB/);
    expect(hostile.pulled).toBeLessThanOrEqual(Math.ceil(EVENT_STREAM_MAX_LINE / CHUNK) + 2);
  });

  it('a line of exactly the limit, split over many chunks and across CRLF, is read whole', async () => {
    const value = 'c'.repeat(EVENT_STREAM_MAX_LINE - 'data: '.length);
    const text = `data: ${value}\r\n\r\ndata: d\r\n\r\n`;
    const pieces = counted((index) => text.slice(index * 1000, (index + 1) * 1000), Math.ceil(text.length / 1000));
    const events = await readAll(pieces);
    expect(events.map((event) => event.data)).toEqual([value, 'd']);
  });

  it('a CR ending one chunk and an LF starting the next are one line end', async () => {
    const pieces = counted((index) => ['data: a\r', '\ndata: b\r', '\n\r', '\n'][index]!, 4);
    expect((await readAll(pieces)).map((event) => event.data)).toEqual(['a\nb']);
  });
});
