// Issue 24, item 4: the pure parts of the run-log viewer's streaming and virtualisation. The
// server-sent-events reader used when the viewer resumes with a Last-Event-ID header (the
// EventSource gave up), and the window of lines rendered out of a long log.
import { describe, expect, it } from 'vitest';
import { type ServerSentEvent, ServerSentEventParser } from '../../../functions/console/app/src/run-log/sse-parser.ts';
import { tailScrollTop, visibleWindow } from '../../../functions/console/app/src/run-log/virtual-window.ts';

function parse(chunks: string[], lastEventId = ''): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const parser = new ServerSentEventParser((event) => events.push(event), lastEventId);
  for (const chunk of chunks) parser.push(chunk);
  return events;
}

describe('The resume reader parses server-sent events as EventSource does', () => {
  it("reads the run-logs function's lines (id = line number), multi-line data, named events and comments", () => {
    const stream =
      'retry: 3000\n\nid: 7\ndata: first\n\n: heartbeat\n\nid: 8\ndata: two\ndata: parts\n\nevent: end\ndata: {"phase":"Succeeded"}\n\n';
    expect(parse([stream], '6')).toEqual([
      { type: 'message', data: 'first', lastEventId: '7' },
      { type: 'message', data: 'two\nparts', lastEventId: '8' },
      { type: 'end', data: '{"phase":"Succeeded"}', lastEventId: '8' },
    ]);
  });

  it('gives the same events however the text is cut into chunks, CRLF and CR line ends included', () => {
    const stream = 'id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rdata:c\n\n';
    const whole = parse([stream]);
    expect(whole).toEqual([
      { type: 'message', data: 'a', lastEventId: '1' },
      { type: 'message', data: 'b', lastEventId: '2' },
      { type: 'message', data: 'c', lastEventId: '2' },
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      expect(parse([stream.slice(0, cut), stream.slice(cut)])).toEqual(whole);
    }
  });

  it('dispatches nothing for an event cut off before its blank line', () => {
    expect(parse(['id: 1\ndata: half'])).toEqual([]);
  });
});

describe('Only the lines in view, plus an overscan either side, are rendered', () => {
  const window = (scrollTop: number, lineCount = 100_000) =>
    visibleWindow({ scrollTop, viewportHeight: 400, lineHeight: 20, lineCount, overscan: 40 });

  it('at the top, in the middle and at the tail of 100,000 lines, a few dozen lines', () => {
    expect(window(0)).toEqual({ first: 0, end: 61 });
    expect(window(50_000 * 20)).toEqual({ first: 49_960, end: 50_061 });
    expect(window(tailScrollTop(100_000, 20, 400))).toEqual({ first: 99_940, end: 100_000 });
  });

  it('never leaves the log, whatever the scroll position or size', () => {
    expect(window(-50)).toEqual({ first: 0, end: 61 });
    expect(window(10_000, 10)).toEqual({ first: 0, end: 10 });
    expect(window(0, 0)).toEqual({ first: 0, end: 0 });
    expect(tailScrollTop(5, 20, 400)).toBe(0);
  });
});
