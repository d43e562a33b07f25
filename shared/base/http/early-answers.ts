import { randomUUID } from 'node:crypto';
import type { ApiError } from './api-error.ts';
import { apiError } from './error-catalogue.ts';
import type { ApiResponse } from './api-request.ts';

// Answers given before or beside a function's filter chain (issue 38): an entry's refusal of a request
// it cannot read into the chain (a request target beyond MAX_REQUEST_URI_BYTES, a body that broke off;
// in the servers, headers node could not parse), and a gateway's own answers. Such an answer names no
// caller, so no audit event records it, but it carries an `Audit-Id` as every answer does (docs/audit.md).

/** The longest request target (path and query) any entry reads: 8 KiB, as nginx's and Apache's default request line. */
export const MAX_REQUEST_URI_BYTES = 8192;

/** Throws 414 `UriTooLong` for a request target (path and query) longer than MAX_REQUEST_URI_BYTES. */
export function checkRequestTarget(target: string): void {
  if (target.length > MAX_REQUEST_URI_BYTES)
    throw apiError('UriTooLong', `the request target exceeds ${MAX_REQUEST_URI_BYTES} bytes`);
}

/** The answer of `error` given outside the chain, with an `Audit-Id` of its own. */
export function earlyAnswer(error: ApiError): ApiResponse {
  const response = error.toResponse();
  response.headers['audit-id'] = randomUUID();
  return response;
}
