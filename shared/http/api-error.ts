import { jsonResponse, type ApiResponse } from './api-request.ts';

/**
 * An error a client is meant to see: a status, a stable machine-readable `reason` and a message.
 * Anything thrown that is not an ApiError is a bug and becomes a 500 with no detail.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly headers: Record<string, string>;

  constructor(status: number, reason: string, message: string, headers: Record<string, string> = {}) {
    // A client error needs no stack trace, and capturing one is the dearest part of a 401/404.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.headers = headers;
  }

  /** The JSON error body of the contract: `{"error": "...", "reason": "..."}`. */
  toResponse(): ApiResponse {
    return jsonResponse(this.status, { error: this.message, reason: this.reason }, this.headers);
  }
}

/** 401 with the `WWW-Authenticate: Bearer` challenge every protected route sends. */
export function unauthorized(message: string, reason = 'Unauthorized'): ApiError {
  return new ApiError(401, reason, message, { 'www-authenticate': 'Bearer realm="platform-api"' });
}

/** 503 for infrastructure the verifier depends on being unreachable: fail closed, ask to retry. */
export function serviceUnavailable(message: string, reason: string, retryAfterSeconds = 5): ApiError {
  return new ApiError(503, reason, message, { 'retry-after': String(retryAfterSeconds) });
}

/** 400 for a request the server cannot read. */
export function badRequest(message: string, reason = 'BadRequest'): ApiError {
  return new ApiError(400, reason, message);
}

/** 404 for a route or object that does not exist. */
export function notFound(message: string, reason = 'NotFound'): ApiError {
  return new ApiError(404, reason, message);
}

/** 413 for a body over the limit, answered before any handler runs, whatever the runtime. */
export function payloadTooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'PayloadTooLarge', `request body exceeds ${maxBytes} bytes`);
}

/** 403 for a principal that is known but not allowed. */
export function forbidden(message: string, reason = 'Forbidden'): ApiError {
  return new ApiError(403, reason, message);
}
