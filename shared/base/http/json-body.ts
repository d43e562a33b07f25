import { JsonDocumentError, parseJsonDocument } from '../json/json-document.ts';
import { apiError, type ReasonWithStatus } from './error-catalogue.ts';
import type { ApiRequest } from './api-request.ts';

/** The request body as a JSON object; 400 with `reason` when it is not JSON or not an object (`JsonNestingTooDeep` when nested too deep). */
export function readJsonObject(
  request: ApiRequest,
  reason: ReasonWithStatus<400> = 'BadRequest',
): Record<string, unknown> {
  let body: unknown;
  try {
    body = parseJsonDocument(Buffer.from(request.body).toString('utf8'));
  } catch (error) {
    if (error instanceof JsonDocumentError && error.reason === 'JsonNestingTooDeep')
      throw apiError(error.reason, error.message);
    if (error instanceof JsonDocumentError && error.reason === 'DuplicateJsonField')
      throw apiError(reason, error.message);
    throw apiError(reason, 'the body must be a JSON object');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw apiError(reason, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}
