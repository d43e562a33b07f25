import { unauthorized } from '../../../base/http/error-catalogue.ts';
import { readBearerToken } from '../../../auth/bearer-token.ts';
import type { RequestAuthenticator } from '../../../auth/request-authenticator.ts';
import type { Principal, RunTaskPrincipal } from '../../../auth/principal.ts';
import type { Filter } from './filter-chain.ts';

/** Whom a run task's access token was issued for (issue 48); undefined for any other string. */
export type TaskResultTokens = (token: string) => Promise<RunTaskPrincipal | undefined>;

/**
 * Sets the request's principal from its bearer token (from `?access_token=` too where the route
 * allows it). Fails closed: a request without a route needs a valid token like any protected one.
 * Open routes get a null principal. A route that takes a run task's access token takes that alone, and
 * no other route does: the token is never handed to the shared verifier, nor a platform token to the task's.
 */
export function withAuthentication(authenticator: RequestAuthenticator, taskResultTokens?: TaskResultTokens): Filter {
  return (request, next) => {
    const auth = request.route?.auth ?? 'bearer';
    if (auth === 'none') {
      request.principal = null;
      return next(request);
    }
    const token = readBearerToken(request, auth === 'bearer-or-query');
    if (token === null) throw unauthorized('a bearer token is required', 'MissingToken');
    if (auth === 'task-result-token') {
      if (!taskResultTokens)
        throw new Error(`route ${request.route!.operationId} takes run task tokens, and this function reads none`);
      // A task token is bound to the one task result its path names: a path parameter that can name
      // none is refused as on every route (400, before authorization) without looking the token up.
      if (request.lookupFailure) throw request.lookupFailure;
      return taskResultTokens(token).then((principal) => {
        if (!principal)
          throw unauthorized(
            "the access token is not the current one of a run task's request, or its deadline passed",
            'InvalidTaskResultToken',
          );
        request.principal = principal;
        return next(request);
      });
    }
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
