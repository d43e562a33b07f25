import { badRequest } from './api-error.ts';
import type { ApiRequest } from './api-request.ts';

/** The request body as a JSON object; 400 with `reason` when it is not JSON or not an object. */
export function readJsonObject(request: ApiRequest, reason = 'BadRequest'): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(request.body).toString('utf8'));
  } catch {
    throw badRequest('the body must be a JSON object', reason);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be a JSON object', reason);
  return body as Record<string, unknown>;
}
