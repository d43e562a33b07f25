import type { ApiRequest } from '../../shared/base/http/api-request.ts';
import { apiError } from '../../shared/base/http/error-catalogue.ts';

/** The `Run-Lease` header: reading a run's variables takes its current lease. */
export function leaseHeader(request: ApiRequest): string {
  const value = request.headers['run-lease'];
  if (value === undefined || value === '')
    throw apiError('InvalidLease', 'the Run-Lease header is required: the id of the lease from the claim');
  return value;
}
