// A reader of text/event-stream (the HTML standard's parsing rules, the parts the run-log stream uses):
// `field: value` lines, `:` comments, an event dispatched at each blank line.
import { PluginError } from './plugin-error.ts';

export interface ServerSentEvent {
  /** `message` unless the event named itself. */
  event: string;
  /** The data lines joined by newlines; undefined when the event had none (a `retry:` alone). */
  data: string | undefined;
  /** The event's `id` field, when it had one. */
  id: string | undefined;
  /** A `retry:` field's reconnection time in milliseconds, when it had one. */
  retry: number | undefined;
}

/**
 * The longest line, and the longest event's data, the reader holds (docs/cli.md, "runs logs"): 1 MiB of
 * characters. A run-log line is far shorter (the server cuts longer ones); a longer one is a broken or
 * hostile server, and holding it would take the memory it chose (issue 44, item 8).
 */
export const EVENT_STREAM_MAX_LINE = 1024 * 1024;

const LINE_END = /\r\n|\r|\n/g;

/**
 * The events of a stream of text chunks; a last event not ended by a blank line is dropped, as a browser
 * drops it. Each chunk is scanned once, from where the last line ended (the start of a line still open
 * is kept as parts, never scanned again), so reading is linear in what the server sent.
 */
export async function* serverSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<ServerSentEvent> {
  /** The parts of the line not yet ended, and their length. */
  let open: string[] = [];
  let openLength = 0;
  /** The last chunk ended with CR: an LF starting the next one ends no second line. */
  let afterCarriageReturn = false;
  let event = fresh();
  for await (const chunk of chunks) {
    let start: number = afterCarriageReturn && chunk.startsWith('\n') ? 1 : 0;
    afterCarriageReturn = false;
    for (;;) {
      LINE_END.lastIndex = start;
      const end = LINE_END.exec(chunk);
      if (end === null) {
        openLength += chunk.length - start;
        refuseLongerThanTheLimit(openLength);
        open.push(chunk.slice(start));
        break;
      }
      refuseLongerThanTheLimit(openLength + end.index - start);
      const line = open.join('') + chunk.slice(start, end.index);
      open = [];
      openLength = 0;
      start = end.index + end[0].length;
      afterCarriageReturn = end[0] === '\r' && start === chunk.length;
      if (line === '') {
        if (event.data.length > 0 || event.retry !== undefined || event.name !== 'message')
          yield {
            event: event.name,
            data: event.data.length > 0 ? event.data.join('\n') : undefined,
            id: event.id,
            retry: event.retry,
          };
        event = fresh();
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') {
        event.dataLength += value.length + 1;
        refuseLongerThanTheLimit(event.dataLength);
        event.data.push(value);
      } else if (field === 'event') event.name = value;
      else if (field === 'id') event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
    }
  }
}

function refuseLongerThanTheLimit(length: number): void {
  if (length > EVENT_STREAM_MAX_LINE)
    throw new PluginError(
      `error: the server sent an event-stream line or event longer than 1 MiB (${EVENT_STREAM_MAX_LINE} characters); the stream was closed`,
      'server',
    );
}

function fresh() {
  return {
    name: 'message',
    data: [] as string[],
    /** The data lines' length, with the newlines that join them. */
    dataLength: 0,
    id: undefined as string | undefined,
    retry: undefined as number | undefined,
  };
}
