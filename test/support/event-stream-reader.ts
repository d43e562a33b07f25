/** One server-sent event as a client sees it. */
export interface StreamEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Reads a text/event-stream response incrementally: `until` waits for events, `untilEnded`
 * for the connection to end (cleanly or cut). Comments (heartbeats) are skipped.
 */
export class EventStreamReader {
  readonly events: StreamEvent[] = [];
  ended = false;
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = '';

  constructor(response: Response) {
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads until `done(events)` holds; false when the stream ended first. */
  async until(done: (events: StreamEvent[]) => boolean): Promise<boolean> {
    while (!done(this.events)) {
      if (this.ended || !(await this.#readChunk())) return false;
    }
    return true;
  }

  /** Reads until the connection ends. */
  async untilEnded(): Promise<void> {
    while (!this.ended) await this.#readChunk();
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }

  async #readChunk(): Promise<boolean> {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await this.#reader.read();
    } catch {
      chunk = { done: true, value: undefined };
    }
    if (chunk.done) {
      this.ended = true;
      return false;
    }
    this.#buffer += chunk.value;
    for (let boundary = this.#buffer.indexOf('\n\n'); boundary !== -1; boundary = this.#buffer.indexOf('\n\n')) {
      const fields = this.#buffer.slice(0, boundary).split('\n');
      this.#buffer = this.#buffer.slice(boundary + 2);
      const field = (name: string) =>
        fields.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
      const [id] = field('id');
      const [event] = field('event');
      if (id !== undefined || event !== undefined) this.events.push({ id, event, data: field('data').join('\n') });
    }
    return true;
  }
}
