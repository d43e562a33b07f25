import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStreamingBody, jsonResponse, type ApiRequest, type ApiResponse } from '../http/api-request.ts';
import { ApiError } from '../http/api-error.ts';
import type { CoreHandler } from '../runtime/core-handler.ts';

export interface NodeAdapterLimits {
  /** Bodies larger than this are refused with 413 before any handler runs. */
  maxBodyBytes: number;
}

const EMPTY_BODY = new Uint8Array(0);

/** A node:http request listener that serves one core handler (the lean container path). */
export function createNodeRequestListener(handler: CoreHandler, limits: NodeAdapterLimits) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    toApiRequest(incoming, outgoing, limits).then(
      (request) => handler(request),
      (error: unknown) => (error instanceof ApiError ? error.toResponse() : jsonResponse(400, { error: 'request could not be read', reason: 'BadRequest' })),
    ).then((response) => writeApiResponse(outgoing, response), () => outgoing.destroy());
  };
}

/** Translates a node:http request (or an Express one, which extends it) into an ApiRequest. */
export async function toApiRequest(incoming: IncomingMessage, outgoing: ServerResponse, limits: NodeAdapterLimits, bufferedBody?: Uint8Array): Promise<ApiRequest> {
  const target = incoming.url ?? '/';
  if (!target.startsWith('/')) throw new ApiError(400, 'BadRequest', 'request target must be a path');
  const queryStart = target.indexOf('?');
  const path = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
  const body = bufferedBody ?? (await readCappedBody(incoming, limits.maxBodyBytes));
  return {
    method: incoming.method ?? 'GET',
    path,
    query,
    headers: flattenHeaders(incoming.headers),
    body,
    remoteAddress: incoming.socket.remoteAddress ?? '',
    // Made on first use: only streams need it, and an AbortController per request is not free.
    get signal() {
      const abort = new AbortController();
      outgoing.once('close', () => {
        if (!outgoing.writableFinished) abort.abort();
      });
      Object.defineProperty(this, 'signal', { value: abort.signal });
      return abort.signal;
    },
  };
}

/** Writes an ApiResponse to a node:http response, streaming iterable bodies with backpressure. */
export async function writeApiResponse(outgoing: ServerResponse, response: ApiResponse): Promise<void> {
  if (outgoing.headersSent || outgoing.destroyed) return;
  const { body } = response;
  if (!isStreamingBody(body)) {
    const payload = body ?? '';
    outgoing.writeHead(response.status, { ...response.headers, 'content-length': Buffer.byteLength(payload) });
    outgoing.end(payload);
    return;
  }
  outgoing.writeHead(response.status, response.headers);
  outgoing.flushHeaders();
  try {
    for await (const chunk of body) {
      if (outgoing.destroyed) break;
      if (!outgoing.write(chunk)) await new Promise((resolve) => outgoing.once('drain', resolve).once('close', resolve));
    }
  } finally {
    outgoing.end();
  }
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

function payloadTooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'PayloadTooLarge', `request body exceeds ${maxBytes} bytes`);
}

async function readCappedBody(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(incoming.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    incoming.resume();
    throw payloadTooLarge(maxBytes);
  }
  if (declared === 0 && incoming.headers['transfer-encoding'] === undefined) return EMPTY_BODY;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      incoming.resume();
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
