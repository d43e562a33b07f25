import { randomUUID } from 'node:crypto';
import { auditEvent, auditLevel, type AuditReceipt } from '../../../domain/audit/audit-event-builder.ts';
import type { AuditRecorder } from '../../../domain/audit/audit-recorder.ts';
import { STREAM_END_ANNOTATION } from '../../../domain/audit/audit-annotations.ts';
import { isStreamingBody, type StreamingBody } from '../../../base/http/api-request.ts';
import { whenAnswered, type Filter, type FilteredRequest } from './filter-chain.ts';

export interface AuditFilterOptions {
  apiGroup: string;
  /** Proxies whose X-Forwarded-For the server trusts (TRUSTED_PROXY_HOPS), for `sourceIPs`. */
  trustedProxyHops: number;
  /** The body an event at the `Request` level records, when the function allows one for the route. */
  requestObject?: (request: FilteredRequest) => unknown;
}

/**
 * Gives every request an audit id, sent back as `Audit-Id` as kube-apiserver does, and records the
 * answer as an audit event at the level the policy sets for it (docs/audit.md). Outside the error
 * answers, so refusals (401, 403, 429) are recorded like the rest; the event reads only what the
 * chain decided (principal, authorized attributes, status), never a credential. A watch or stream
 * is recorded when it opens (`ResponseStarted`) and when it ends (`ResponseComplete`, and how).
 */
export function withAudit(recorder: AuditRecorder, options: AuditFilterOptions): Filter {
  return (request, next) => {
    const receipt: AuditReceipt = {
      auditID: randomUUID(),
      receivedAt: new Date(),
      trustedProxyHops: options.trustedProxyHops,
      apiGroup: options.apiGroup,
    };
    request.auditReceipt = receipt;
    return whenAnswered(next(request), (response) => {
      // Answers are made fresh for each request (node-http-adapter.ts), so the header is set in place.
      response.headers['audit-id'] = receipt.auditID;
      const level = auditLevel(recorder.policy, request, response.status, isStreamingBody(response.body));
      if (level === 'None') return response;
      const requestObject =
        level === 'Request' && request.route && request.body.length > 0 ? options.requestObject?.(request) : undefined;
      if (requestObject !== undefined) request.auditRequestObject = requestObject;
      if (!isStreamingBody(response.body)) {
        recorder.record(auditEvent(receipt, request, response, 'ResponseComplete', level));
        return response;
      }
      recorder.record(auditEvent(receipt, request, response, 'ResponseStarted', level));
      const ended = (how: string) =>
        recorder.record(
          auditEvent(receipt, request, response, 'ResponseComplete', level, { [STREAM_END_ANNOTATION]: how }),
        );
      return { ...response, body: observedEnd(response.body, request.signal, ended) };
    });
  };
}

/**
 * The stream as it was, telling `ended` once how it ended: `completed`, `closed` (the client left:
 * the writer stopped reading, or the stream ended because the request was aborted) or `failed`.
 * A pass-through iterator rather than an async generator: each chunk of each open stream costs one
 * promise here, not a generator's resumption as well (issue 25: the fan-out's per-client cost).
 */
function observedEnd(
  body: StreamingBody,
  signal: AbortSignal | undefined,
  ended: (how: string) => void,
): StreamingBody {
  return { [Symbol.asyncIterator]: () => new ObservedEnd(body[Symbol.asyncIterator](), signal, ended) };
}

/** One open stream's pass-through: one object, its steps shared on the prototype (issue 25: memory per stream). */
class ObservedEnd<T> implements AsyncIterator<T> {
  readonly #chunks: AsyncIterator<T>;
  readonly #signal: AbortSignal | undefined;
  #ended: ((how: string) => void) | undefined;

  constructor(chunks: AsyncIterator<T>, signal: AbortSignal | undefined, ended: (how: string) => void) {
    this.#chunks = chunks;
    this.#signal = signal;
    this.#ended = ended;
  }

  next(): Promise<IteratorResult<T>> {
    return this.#chunks.next().then(
      (result) => {
        if (result.done) this.#report(this.#signal?.aborted ? 'closed' : 'completed');
        return result;
      },
      (error: unknown) => {
        this.#report('failed');
        throw error;
      },
    );
  }

  return(value?: unknown): Promise<IteratorResult<T>> {
    this.#report('closed');
    return this.#chunks.return
      ? this.#chunks.return(value)
      : Promise.resolve({ value: undefined, done: true as const });
  }

  /** Tells how the stream ended, once. */
  #report(how: string): void {
    const ended = this.#ended;
    this.#ended = undefined;
    ended?.(how);
  }
}
