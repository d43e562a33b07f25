/** One server-sent event: its `id`, `event` and the `data` fields joined with newlines. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Reads server-sent events until `done` says so or the stream ends; comments (heartbeats) are skipped. */
export async function readEvents(response: Response, done: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += value;
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const event: SseEvent = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) event.id = line.slice(4);
          else if (line.startsWith('event: ')) event.event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        event.data = data.join('\n');
        if (event.id !== undefined || event.event !== undefined) events.push(event);
      }
    }
  } finally {
    await reader.cancel();
  }
  return events;
}
