import { ApiException } from '@kubernetes/client-node';
import type { ApiError } from '../http/api-error.ts';
import type { Logger } from '../logging/logger.ts';
import { apiError } from '../http/error-catalogue.ts';

/**
 * The 503 for a review the Kubernetes API did not answer (down, timing out, or refusing the
 * server's own credentials). Fail closed: never an allow and never a 401 the caller did not earn.
 * The detail goes to the log only.
 */
export function kubernetesUnavailable(call: string, error: unknown, logger: Logger): ApiError {
  const detail =
    error instanceof ApiException ? `HTTP ${error.code}` : error instanceof Error ? error.message : String(error);
  logger.error(`Kubernetes API did not answer a ${call}`, { detail });
  return apiError(
    'KubernetesUnavailable',
    'the Kubernetes API cannot be reached to verify this request; retry shortly',
  );
}
