import { answeredWith } from './answered-failure.ts';
import { jsonResponse, type ApiResponse } from './api-request.ts';

/** `details` of a Kubernetes `Status`: which object the failure is about, and field causes. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
}

/**
 * An error a client is meant to see: a status, a stable machine-readable `reason` and a message (and,
 * about an object, its `details`). Anything thrown that is not an ApiError is a bug and becomes a 500
 * with no detail. Throw sites make one with `apiError` (error-catalogue.ts), which takes the status
 * from the catalogue; how it is dressed is the route's to say, not the site's: the chain's error
 * filter answers it as `{error, reason}` or as a Kubernetes `Status` (shared/contract/routes/error-dress.ts).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  readonly headers: Record<string, string>;
  readonly details: StatusDetails | undefined;

  constructor(
    status: number,
    reason: string,
    message: string,
    headers: Record<string, string> = {},
    details?: StatusDetails,
  ) {
    // A client error needs no stack trace, and capturing one is the dearest part of a 401/404.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.headers = headers;
    this.details = details;
  }

  /** The JSON error body of the contract: `{"error": "...", "reason": "..."}`. */
  toResponse(): ApiResponse {
    return this.#answered({ error: this.message, reason: this.reason });
  }

  /**
   * The error as a Kubernetes `Status`, `reason` being a Kubernetes one. It also carries the contract's
   * `error` field (the message), so every error body still has `error` and `reason`.
   */
  toStatusResponse(reason: string = this.reason): ApiResponse {
    return this.#answered({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.status,
      error: this.message,
    });
  }

  #answered(body: { error: string; reason: string; [field: string]: unknown }): ApiResponse {
    // The audit event and the metrics read the reason and message back (answered-failure.ts).
    return answeredWith(jsonResponse(this.status, body, this.headers), {
      ...(body.reason ? { reason: body.reason } : {}),
      ...(this.message ? { message: this.message } : {}),
    });
  }
}

/**
 * A cluster's own `Status` (or its failure), passed through as the cluster said it: a `Status` on
 * every route, its reason the cluster's (clusterFailure, shared/domain/resources/kubernetes-status.ts).
 * Nothing else makes one: the platform's own errors are ApiErrors, dressed by their route.
 */
export class KubernetesStatusError extends ApiError {
  constructor(
    status: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    headers: Record<string, string> = {},
  ) {
    super(status, reason, message, headers, details);
    this.name = 'KubernetesStatusError';
  }

  override toResponse(): ApiResponse {
    return this.toStatusResponse();
  }
}
