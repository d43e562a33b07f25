import { decodeJwt } from 'jose';
import type { ApiRequest } from '../http/api-request.ts';
import { readBearerToken } from './bearer-token.ts';

/**
 * When the bearer token of an authenticated request expires (its `exp`, in epoch milliseconds), so a
 * stream it opened can end then. Read after authentication verified the token, so the claim is trusted;
 * undefined when the token carries no `exp`.
 */
export function tokenExpiresAt(request: ApiRequest, allowQueryParameter = false): number | undefined {
  const token = readBearerToken(request, allowQueryParameter);
  if (token === null) return undefined;
  const { exp } = decodeJwt(token);
  return typeof exp === 'number' ? exp * 1000 : undefined;
}
