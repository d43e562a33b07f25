import type { ApiError } from '../../../base/http/api-error.ts';
import { apiError, notFound } from '../../../base/http/error-catalogue.ts';
import { redactPath } from '../../../base/logging/redaction.ts';
import type { RouteMatcher } from '../../../contract/routes/route-matcher.ts';
import type { Filter } from './filter-chain.ts';

/**
 * Finds the request's route and its path parameters. What cannot be served (no route, a method the
 * route lacks, an invalid path parameter) is only noted: the route refusal answers it once the
 * caller has authenticated, so an unknown path tells nothing to a caller without a token.
 */
export function withRouteResolution(matcher: RouteMatcher): Filter {
  return (request, next) => {
    const lookup = matcher.lookup(request.method, request.path);
    if (lookup.kind === 'found') {
      request.route = lookup.match.route;
      request.params = lookup.match.params;
    } else if (lookup.kind === 'invalid-parameter') {
      // The route decides how the caller authenticates; the refusal comes once they have (on a run task route,
      // once a token is sent: authentication.ts), before any authorization.
      request.route = lookup.route;
      request.lookupFailure = invalidPathParameter(lookup.problem);
    } else if (lookup.kind === 'method-not-allowed') {
      request.lookupFailure = apiError(
        'MethodNotAllowed',
        `method ${request.method} is not allowed on ${redactPath(request.path)}`,
        { allow: lookup.allowed.join(', ') },
      );
    } else {
      request.lookupFailure = notFound(`no route for ${request.method} ${redactPath(request.path)}`);
    }
    return next(request);
  };
}

/** 400 for a path parameter that is not a valid name (on resource routes a `Status` with reason `BadRequest`, as kube-apiserver answers). */
function invalidPathParameter(problem: string): ApiError {
  return apiError('InvalidPathParameter', `path parameter invalid: ${problem}`);
}
