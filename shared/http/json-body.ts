import { JsonDocumentError, parseJsonDocument } from '../json/json-document.ts';
import { badRequest } from './api-error.ts';
import type { ApiRequest } from './api-request.ts';

/** The request body as a JSON object; 400 with `reason` when it is not JSON or not an object (`JsonNestingTooDeep` when nested too deep). */
export function readJsonObject(request: ApiRequest, reason = 'BadRequest'): Record<string, unknown> {
  let body: unknown;
  try {
    body = parseJsonDocument(Buffer.from(request.body).toString('utf8'));
  } catch (error) {
    if (error instanceof JsonDocumentError && error.reason === 'JsonNestingTooDeep') throw badRequest(error.message, error.reason);
    throw badRequest('the body must be a JSON object', reason);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be a JSON object', reason);
  return body as Record<string, unknown>;
}
