import { answeredWith } from './answered-failure.ts';
import { jsonResponse, type ApiResponse } from './api-request.ts';

/**
 * An error a client is meant to see: a status, a stable machine-readable `reason` and a message.
 * Anything thrown that is not an ApiError is a bug and becomes a 500 with no detail. Throw sites
 * make one with `apiError` (error-catalogue.ts), which takes the status from the catalogue.
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
    // The audit event and the metrics read the reason and message back (answered-failure.ts).
    return answeredWith(jsonResponse(this.status, { error: this.message, reason: this.reason }, this.headers), {
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.message ? { message: this.message } : {}),
    });
  }
}
