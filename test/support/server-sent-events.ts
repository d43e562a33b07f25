import { connect, type Socket } from 'node:net';

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

/** Splits server-sent-event text into events (comments and `retry:` dropped); returns them and the unfinished rest. */
export function parseEvents(text: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let rest = text;
  let boundary: number;
  while ((boundary = rest.indexOf('\n\n')) !== -1) {
    const block = rest.slice(0, boundary);
    rest = rest.slice(boundary + 2);
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
  return { events, rest };
}

/** Reads server-sent events until `done` says so (or the stream ends). */
export async function readEvents(response: Response, done: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      const parsed = parseEvents(buffer + value);
      events.push(...parsed.events);
      buffer = parsed.rest;
    }
  } finally {
    await reader.cancel();
  }
  return events;
}

/** A GET over a raw socket that reads nothing until told to: a client that stopped reading. */
export interface StalledStream {
  socket: Socket;
  /** Starts reading and resolves with everything the server sent, once it closes the connection. */
  readToEnd(): Promise<string>;
}

export async function openStalledStream(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<StalledStream> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const headerLines = Object.entries({ host: `${hostname}:${port}`, ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.write(`GET ${path} HTTP/1.1\r\n${headerLines.join('')}\r\n`);
  socket.pause();
  return {
    socket,
    readToEnd: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.once('error', reject);
        socket.resume();
      }),
  };
}

/** The body of a chunked HTTP/1.1 response: the chunks joined, headers and chunk sizes removed. */
export function chunkedBody(response: string): string {
  let rest = response.slice(response.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const sizeEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, sizeEnd), 16);
    if (!Number.isFinite(size) || size === 0) return body;
    body += rest.slice(sizeEnd + 2, sizeEnd + 2 + size);
    rest = rest.slice(sizeEnd + 2 + size + 2);
  }
}
