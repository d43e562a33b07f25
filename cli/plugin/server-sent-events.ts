// A reader of text/event-stream (the HTML standard's parsing rules, the parts the run-log stream uses):
// `field: value` lines, `:` comments, an event dispatched at each blank line.

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

/** The events of a stream of text chunks; a last event not ended by a blank line is dropped, as a browser drops it. */
export async function* serverSentEvents(chunks: AsyncIterable<string>): AsyncGenerator<ServerSentEvent> {
  let buffered = '';
  let event: { name: string; data: string[]; id: string | undefined; retry: number | undefined } = fresh();
  for await (const chunk of chunks) {
    buffered += chunk;
    const lines = buffered.split(/\r\n|\r|\n/);
    buffered = lines.pop()!;
    for (const line of lines) {
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
      if (field === 'data') event.data.push(value);
      else if (field === 'event') event.name = value;
      else if (field === 'id') event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
    }
  }
}

function fresh() {
  return {
    name: 'message',
    data: [] as string[],
    id: undefined as string | undefined,
    retry: undefined as number | undefined,
  };
}
