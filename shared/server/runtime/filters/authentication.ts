import { unauthorized } from '../../../base/http/error-catalogue.ts';
import { readBearerToken } from '../../../auth/bearer-token.ts';
import type { RequestAuthenticator } from '../../../auth/request-authenticator.ts';
import type { Principal } from '../../../auth/principal.ts';
import type { Filter } from './filter-chain.ts';

/**
 * Sets the request's principal from its bearer token (from `?access_token=` too where the route
 * allows it). Fails closed: a request without a route needs a valid token like any protected one.
 * Open routes get a null principal.
 */
export function withAuthentication(authenticator: RequestAuthenticator): Filter {
  return (request, next) => {
    const auth = request.route?.auth ?? 'bearer';
    if (auth === 'none') {
      request.principal = null;
      return next(request);
    }
    const token = readBearerToken(request, auth === 'bearer-or-query');
    if (token === null) throw unauthorized('a bearer token is required', 'MissingToken');
    const proceed = (principal: Principal) => {
      request.principal = principal;
      authenticator.onUse?.(principal, request.remoteAddress);
      return next(request);
    };
    // Synchronous when the token is already verified: every promise costs, most under the
    // functions-framework, whose domains hook each one.
    const cached = authenticator.cachedPrincipal(token);
    if (cached) return proceed(cached);
    return authenticator.authenticate(token).then(proceed);
  };
}
