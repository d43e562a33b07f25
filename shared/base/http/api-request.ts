/**
 * Runtime-neutral request and response shapes. Every adapter (node:http, functions-framework,
 * AWS Lambda) translates to and from these; no handler ever sees a runtime object.
 */
export interface ApiRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Decoded-safe path without the query string, e.g. `/api/v1alpha1/auth/login`. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case; repeated headers joined with ", " as node:http does. */
  headers: Record<string, string | undefined>;
  /** The raw body, already capped by the adapter; empty when there was none, or when it was over the cap. */
  body: Uint8Array;
  /**
   * Set when the body was over this many bytes (MAX_REQUEST_BODY_BYTES) and discarded unread: the chain
   * answers 413 once the caller is authenticated and authorized, as kube-apiserver's handlers answer a
   * body too large, so the refusal is audited under the caller's name and carries its `Audit-Id`.
   */
  bodyOverLimit?: number;
  /** The peer address as the adapter saw it (used for login throttling). */
  remoteAddress: string;
  /** Aborted when the client goes away (used by streaming responses). */
  signal?: AbortSignal;
}

/** A body streamed to the client chunk by chunk (server-sent events). */
export type StreamingBody = AsyncIterable<string | Uint8Array>;

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string | Uint8Array | StreamingBody | undefined;
}

/** Whether a response body is a stream rather than a complete payload. */
export function isStreamingBody(body: ApiResponse['body']): body is StreamingBody {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/** A JSON response with the given status. */
export function jsonResponse(
  status: number,
  payload: unknown,
  headers?: Record<string, string | string[]>,
): ApiResponse {
  const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  // Most answers add no header of their own: no copy of an empty object then (every request makes one).
  return { status, headers: headers ? { ...json, ...headers } : json, body: JSON.stringify(payload) };
}
