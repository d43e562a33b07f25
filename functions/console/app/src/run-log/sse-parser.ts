// The server-sent-events format (HTML standard, "Parsing an event stream") for the one place the
// viewer reads a stream without EventSource: resuming with a `Last-Event-ID` header after the
// EventSource gave up (it cannot send that header on a new connection). Pure and incremental.

export interface ServerSentEvent {
  /** `message` unless the event named itself. */
  type: string;
  data: string;
  /** The last event id seen so far in the stream (as EventSource's `lastEventId`). */
  lastEventId: string;
}

/** Feeds text chunks in; calls `onEvent` for each complete event, as EventSource would dispatch it. */
export class ServerSentEventParser {
  readonly #onEvent: (event: ServerSentEvent) => void;
  #buffer = '';
  #type = '';
  #data: string[] = [];
  #lastEventId: string;

  constructor(onEvent: (event: ServerSentEvent) => void, lastEventId = '') {
    this.#onEvent = onEvent;
    this.#lastEventId = lastEventId;
  }

  push(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      // A lone `\r` at the end may be the first half of `\r\n`: wait for the next chunk.
      if (end === -1 || (end === this.#buffer.length - 1 && this.#buffer[end] === '\r')) return;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      this.#line(line);
    }
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#type = value;
    else if (field === 'id' && !value.includes('\u0000')) this.#lastEventId = value;
    // `retry` is ignored: the viewer paces its own reconnections on this path.
  }

  #dispatch(): void {
    const type = this.#type || 'message';
    const data = this.#data;
    this.#type = '';
    this.#data = [];
    if (data.length === 0) return;
    this.#onEvent({ type, data: data.join('\n'), lastEventId: this.#lastEventId });
  }
}
