import { KubernetesStatusError, type StatusDetails } from '../../base/http/api-error.ts';
import { apiError } from '../../base/http/error-catalogue.ts';
import type { KubernetesAnswer } from '../../base/kubernetes/kubernetes-rest-client.ts';

// The caller's own mistakes, which the cluster describes best: passed through as they are.
export const CALLER_FAILURES = new Set([400, 404, 405, 409, 410, 415, 422]);

/**
 * The error for a failed cluster answer. The caller's mistakes (404, 409, 422, ...) keep the
 * cluster's `Status`; anything else (the server's own credentials refused, the cluster failing)
 * is not the caller's doing and becomes a 503 to retry, a `Status` as the cluster's answers are.
 */
export function clusterFailure(answer: KubernetesAnswer): KubernetesStatusError {
  const status = (answer.body ?? {}) as { message?: unknown; reason?: unknown; details?: StatusDetails };
  if (CALLER_FAILURES.has(answer.status)) {
    const message =
      typeof status.message === 'string' ? status.message : `the Kubernetes API answered ${answer.status}`;
    const reason = typeof status.reason === 'string' && status.reason !== '' ? status.reason : 'BadRequest';
    return new KubernetesStatusError(answer.status, reason, message, status.details);
  }
  const unavailable = apiError(
    'KubernetesUnavailable',
    `the Kubernetes API could not complete the request (HTTP ${answer.status}); retry shortly`,
  );
  return new KubernetesStatusError(
    unavailable.status,
    unavailable.reason,
    unavailable.message,
    undefined,
    unavailable.headers,
  );
}
