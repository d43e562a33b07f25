import { ApiError } from '../http/api-error.ts';
import { apiError, type ErrorReason, type KubernetesCauseType } from '../http/error-catalogue.ts';
import { jsonResponse, type ApiResponse } from '../http/api-request.ts';
import type { KubernetesAnswer } from '../kubernetes/kubernetes-rest-client.ts';

/** `details` of a Kubernetes `Status`: which object the failure is about, and field causes. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { reason?: KubernetesCauseType | string; message?: string; field?: string }[];
}

/**
 * An error answered as a Kubernetes `Status` object, as resource routes do. It also carries the
 * contract's `error` field (the message), so every error body still has `error` and `reason`.
 */
export class KubernetesStatusError extends ApiError {
  readonly details: StatusDetails | undefined;

  constructor(
    status: number,
    reason: string,
    message: string,
    details?: StatusDetails,
    headers: Record<string, string> = {},
  ) {
    super(status, reason, message, headers);
    this.name = 'KubernetesStatusError';
    this.details = details;
  }

  override toResponse(): ApiResponse {
    return jsonResponse(
      this.status,
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: this.message,
        reason: this.reason,
        ...(this.details ? { details: this.details } : {}),
        code: this.status,
        error: this.message,
      },
      this.headers,
    );
  }
}

/** The `Status` answering `reason`, with the status (and headers) the catalogue gives it. */
export function statusError(
  reason: ErrorReason,
  message: string,
  details?: StatusDetails,
  headers: Record<string, string> = {},
): KubernetesStatusError {
  const plain = apiError(reason, message, headers);
  return new KubernetesStatusError(plain.status, reason, message, details, plain.headers);
}

/** Re-dresses any ApiError (403 from the authorizer, 503, 400) as a `Status`; other errors pass unchanged. */
export function asKubernetesStatus(error: unknown): unknown {
  if (!(error instanceof ApiError) || error instanceof KubernetesStatusError) return error;
  return new KubernetesStatusError(error.status, error.reason, error.message, undefined, error.headers);
}

// The caller's own mistakes, which the cluster describes best: passed through as they are.
export const CALLER_FAILURES = new Set([400, 404, 405, 409, 410, 415, 422]);

/**
 * The error for a failed cluster answer. The caller's mistakes (404, 409, 422, ...) keep the
 * cluster's `Status`; anything else (the server's own credentials refused, the cluster failing)
 * is not the caller's doing and becomes a 503 to retry.
 */
export function clusterFailure(answer: KubernetesAnswer): KubernetesStatusError {
  const status = (answer.body ?? {}) as { message?: unknown; reason?: unknown; details?: StatusDetails };
  if (CALLER_FAILURES.has(answer.status)) {
    const message =
      typeof status.message === 'string' ? status.message : `the Kubernetes API answered ${answer.status}`;
    const reason = typeof status.reason === 'string' && status.reason !== '' ? status.reason : 'BadRequest';
    return new KubernetesStatusError(answer.status, reason, message, status.details);
  }
  return statusError(
    'KubernetesUnavailable',
    `the Kubernetes API could not complete the request (HTTP ${answer.status}); retry shortly`,
  );
}
