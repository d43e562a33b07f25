import { badRequest } from '../../shared/http/api-error.ts';
import type { ApiRequest } from '../../shared/http/api-request.ts';

/** The `Run-Lease` header: reading a run's variables takes its current lease. */
export function leaseHeader(request: ApiRequest): string {
  const value = request.headers['run-lease'];
  if (value === undefined || value === '') throw badRequest('the Run-Lease header is required: the id of the lease from the claim', 'InvalidLease');
  return value;
}
