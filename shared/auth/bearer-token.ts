import type { ApiRequest } from '../base/http/api-request.ts';
import { apiError } from '../base/http/error-catalogue.ts';

/**
 * Reads the token from `Authorization: Bearer <token>`, or, only where the route allows it,
 * from `?access_token=` (browser EventSource cannot set headers). Returns null when absent.
 */
export function readBearerToken(request: ApiRequest, allowQueryParameter: boolean): string | null {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header);
    if (!match) throw apiError('MalformedAuthorizationHeader', 'Authorization header must be "Bearer <token>"');
    return match[1]!;
  }
  if (allowQueryParameter) {
    const fromQuery = request.query.get('access_token');
    if (fromQuery) return fromQuery;
  }
  return null;
}
