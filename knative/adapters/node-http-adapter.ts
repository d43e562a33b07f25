import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isStreamingBody,
  type ApiRequest,
  type ApiResponse,
  type StreamingBody,
} from '../../shared/base/http/api-request.ts';
import { ApiError } from '../../shared/base/http/api-error.ts';
import type { CoreHandler } from '../../shared/server/runtime/core-handler.ts';
import { apiError } from '../../shared/base/http/error-catalogue.ts';
import { checkRequestTarget, earlyAnswer } from '../../shared/base/http/early-answers.ts';

export interface NodeAdapterLimits {
  /** Bodies larger than this are refused with 413 before any handler runs. */
  maxBodyBytes: number;
  /** How long a streamed response waits for a client that takes nothing before the connection is cut. */
  stalledStreamMs?: number;
}

/**
 * A client that has taken none of a stream for this long is gone or hostile: its connection is
 * cut, so that a stream that has ended (its token expired, say) does not keep the socket either.
 */
export const STALLED_STREAM_MS = 60_000;

const EMPTY_BODY = new Uint8Array(0);
/** A body over the cap, discarded: the request goes on without it and the chain answers 413. */
export const OVER_LIMIT = Symbol('request body over MAX_REQUEST_BODY_BYTES');

/**
 * A node:http request listener that serves one core handler (the lean container path). An answer
 * the handler has at once is written at once; a stream's writing goes on after the listener has
 * returned, so that no frame of it (incoming, outgoing, the answer) is held for a stream's whole
 * life, thousands of them at once (issue 25, memory per stream).
 */
export function createNodeRequestListener(handler: CoreHandler, limits: NodeAdapterLimits) {
  return (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    let answer: ReturnType<CoreHandler>;
    try {
      // The target first: one over MAX_REQUEST_URI_BYTES is refused before its body is read.
      checkRequestTarget(incoming.url ?? '/');
      const body = readRequestBody(incoming, limits.maxBodyBytes);
      answer =
        body instanceof Promise
          ? body.then((read) => handler(toApiRequest(incoming, outgoing, read, limits.maxBodyBytes)))
          : handler(toApiRequest(incoming, outgoing, body, limits.maxBodyBytes));
    } catch (error) {
      answer = unreadableRequest(error);
    }
    if (answer instanceof Promise)
      answer.then(
        (response) => writeAnswer(outgoing, response, limits),
        (error: unknown) => writeAnswer(outgoing, unreadableRequest(error), limits),
      );
    else writeAnswer(outgoing, answer, limits);
  };
}

/** The answer to a request that failed before the core handler answered it (its target, a body that broke off). */
function unreadableRequest(error: unknown): ApiResponse {
  return earlyAnswer(error instanceof ApiError ? error : apiError('BadRequest', 'request could not be read'));
}

/** Writes an answer; a stream whose writing fails is cut. */
function writeAnswer(outgoing: ServerResponse, response: ApiResponse, limits: NodeAdapterLimits): void {
  writeApiResponse(outgoing, response, limits.stalledStreamMs)?.catch(() => outgoing.destroy());
}

/**
 * Translates a node:http request (or an Express one, which extends it) with its body into an
 * ApiRequest. What only some routes need (the query, the peer address, an abort signal) is read
 * on first use: this runs for every request, and a class keeps V8's fast object shapes.
 */
export function toApiRequest(
  incoming: IncomingMessage,
  outgoing: ServerResponse,
  body: Uint8Array | typeof OVER_LIMIT,
  maxBodyBytes: number,
): ApiRequest {
  return new NodeApiRequest(incoming, outgoing, body, maxBodyBytes);
}

class NodeApiRequest implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | undefined>;
  readonly body: Uint8Array;
  readonly bodyOverLimit: number | undefined;
  readonly #incoming: IncomingMessage;
  readonly #outgoing: ServerResponse;
  readonly #rawQuery: string;
  #query: URLSearchParams | undefined;
  #signal: AbortSignal | undefined;

  constructor(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    body: Uint8Array | typeof OVER_LIMIT,
    maxBodyBytes: number,
  ) {
    const target = incoming.url ?? '/';
    if (!target.startsWith('/')) throw apiError('BadRequest', 'request target must be a path');
    const queryStart = target.indexOf('?');
    this.method = incoming.method ?? 'GET';
    this.path = queryStart === -1 ? target : target.slice(0, queryStart);
    this.#rawQuery = queryStart === -1 ? '' : target.slice(queryStart + 1);
    // node:http joins repeated request headers with ", " itself; only set-cookie stays a list,
    // and clients do not send it, so the parsed headers serve as they are, without a copy.
    this.headers = incoming.headers as Record<string, string | undefined>;
    // Always both members, so that every request has one shape.
    this.body = body === OVER_LIMIT ? EMPTY_BODY : body;
    this.bodyOverLimit = body === OVER_LIMIT ? maxBodyBytes : undefined;
    this.#incoming = incoming;
    this.#outgoing = outgoing;
  }

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#rawQuery));
  }

  get remoteAddress(): string {
    return this.#incoming.socket?.remoteAddress ?? '';
  }

  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const abort = new AbortController();
      const outgoing = this.#outgoing;
      outgoing.once('close', () => {
        if (!outgoing.writableFinished) abort.abort();
      });
      this.#signal = abort.signal;
    }
    return this.#signal;
  }
}

/**
 * Writes an ApiResponse to a node:http response: at once for a complete body (no promise), or
 * chunk by chunk with backpressure for a stream, whose completion the returned promise reports.
 */
export function writeApiResponse(
  outgoing: ServerResponse,
  response: ApiResponse,
  stalledStreamMs = STALLED_STREAM_MS,
): Promise<void> | undefined {
  if (outgoing.headersSent || outgoing.destroyed) return undefined;
  const { body } = response;
  if (isStreamingBody(body)) return writeStream(outgoing, response.status, response.headers, body, stalledStreamMs);
  const payload = body ?? '';
  // Responses are made fresh for each request, so the length is added in place, not to a copy.
  response.headers['content-length'] = String(Buffer.byteLength(payload));
  outgoing.writeHead(response.status, response.headers);
  outgoing.end(payload);
  return undefined;
}

function writeStream(
  outgoing: ServerResponse,
  status: number,
  headers: ApiResponse['headers'],
  body: StreamingBody,
  stalledStreamMs: number,
): Promise<void> {
  outgoing.writeHead(status, headers);
  outgoing.flushHeaders();
  return new Promise((resolve, reject) => new StreamPump(outgoing, body, stalledStreamMs, resolve, reject).pull());
}

/**
 * Moves a streamed body's chunks into the response, with backpressure, and ends the response
 * when the body ends, fails or the client is gone (then the body is told: its iterator returns).
 * One object per stream rather than an async loop: a process holds thousands of streams that
 * wait between chunks, and an async function's suspended frame and promises cost each of them
 * more than this object (issue 25, memory per stream).
 */
class StreamPump {
  readonly #outgoing: ServerResponse;
  readonly #chunks: AsyncIterator<string | Uint8Array>;
  readonly #stalledMs: number;
  readonly #resolve: () => void;
  readonly #reject: (error: unknown) => void;
  // The callbacks handed to each chunk's promise, made once per stream.
  readonly #onResult = (result: IteratorResult<string | Uint8Array>) => this.#write(result);
  readonly #onFailure = (error: unknown) => this.#fail(error);
  readonly #onWritable = () => (this.#outgoing.destroyed ? this.#stopBody() : this.pull());

  constructor(
    outgoing: ServerResponse,
    body: StreamingBody,
    stalledMs: number,
    resolve: () => void,
    reject: (error: unknown) => void,
  ) {
    this.#outgoing = outgoing;
    this.#chunks = body[Symbol.asyncIterator]();
    this.#stalledMs = stalledMs;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** Asks the body for its next chunk. */
  pull(): void {
    let next: Promise<IteratorResult<string | Uint8Array>>;
    try {
      next = this.#chunks.next();
    } catch (error) {
      this.#fail(error);
      return;
    }
    next.then(this.#onResult, this.#onFailure);
  }

  #write(result: IteratorResult<string | Uint8Array>): void {
    if (result.done) {
      this.#end();
      return;
    }
    const outgoing = this.#outgoing;
    if (outgoing.destroyed) {
      this.#stopBody();
      return;
    }
    let room: boolean;
    try {
      room = outgoing.write(result.value);
    } catch (error) {
      stopWithoutWaiting(this.#chunks);
      this.#fail(error);
      return;
    }
    // A client cut for stalling (or gone) stops the body at once, not at its next chunk.
    if (room) this.pull();
    else writable(outgoing, this.#stalledMs).then(this.#onWritable);
  }

  /** The client is gone: the body is told to stop (its iterator returns), then the response ends. */
  #stopBody(): void {
    let returned: Promise<unknown> | undefined;
    try {
      returned = this.#chunks.return?.();
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (returned === undefined) this.#end();
    else returned.then(() => this.#end(), this.#onFailure);
  }

  #end(): void {
    this.#outgoing.end();
    this.#resolve();
  }

  /**
   * The body failed: the answer is cut, not ended. A clean end of a chunked response would tell
   * the client that a truncated stream was whole; kube-apiserver, too, aborts the connection of a
   * handler that fails mid-answer.
   */
  #fail(error: unknown): void {
    this.#outgoing.destroy();
    this.#reject(error);
  }
}

/** Tells a body to stop, without waiting for it: the answer is cut whatever its iterator does. */
function stopWithoutWaiting(chunks: AsyncIterator<unknown>): void {
  try {
    chunks.return?.().catch(() => {});
  } catch {
    // A body that fails to stop changes nothing for an answer that is cut.
  }
}

/** Resolves when the response can take more, or is gone (cut after `stalledMs` without progress); leaves no listener behind. */
function writable(outgoing: ServerResponse, stalledMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stalled = setTimeout(() => outgoing.destroy(), stalledMs);
    const done = () => {
      clearTimeout(stalled);
      outgoing.off('drain', done).off('close', done);
      resolve();
    };
    outgoing.on('drain', done).on('close', done);
  });
}

/**
 * The request body, capped; synchronous when there is none (most requests), so no tick is spent. A
 * body over the cap is discarded unread (OVER_LIMIT): the chain answers it (413) once the caller is known.
 */
function readRequestBody(
  incoming: IncomingMessage,
  maxBytes: number,
): Uint8Array | typeof OVER_LIMIT | Promise<Uint8Array | typeof OVER_LIMIT> {
  const declared = Number(incoming.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    incoming.resume();
    return OVER_LIMIT;
  }
  if (declared === 0 && incoming.headers['transfer-encoding'] === undefined) return EMPTY_BODY;
  return readCappedBody(incoming, maxBytes);
}

/**
 * Reads by events, not `for await`: leaving an async iteration early destroys the request, and with it
 * the connection the 413 is to be written on once the caller is known.
 */
function readCappedBody(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array | typeof OVER_LIMIT> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // The rest flows on unread (no listener keeps it).
      incoming.off('data', take);
      chunks.length = 0;
      resolve(OVER_LIMIT);
    };
    incoming.on('data', take);
    incoming.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    incoming.once('error', reject);
  });
}
