import type { ApiResponse } from '../../../base/http/api-request.ts';
import { ANY_ORIGIN } from '../../../base/config/cors-allowed-origins.ts';
import type { RouteMatcher } from '../../../contract/routes/route-matcher.ts';
import { whenAnswered, type Filter } from './filter-chain.ts';

/** Request headers a browser client may send: the token, a JSON body's type, and an EventSource's resume point. */
export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Last-Event-ID';
/** Response headers a browser client may read beyond the safelisted ones. */
export const CORS_EXPOSED_HEADERS = 'Location, Retry-After, WWW-Authenticate, Allow, Warning';
/** How long a browser may reuse a preflight's answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

// What a route that takes any method answers to a preflight.
const ANY_METHOD = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/**
 * Cross-origin access for browser clients of the allowed origins, as kube-apiserver's `WithCORS`:
 * not installed when none are allowed, and a request from any other origin passes through
 * untouched (no CORS headers, so its browser refuses the answer). A preflight (OPTIONS with
 * `Access-Control-Request-Method`) carries no token, so it is answered here, before
 * authentication, with the methods of the path's routes; every other answer to an allowed
 * origin names it. Credentials (cookies) are never allowed: the API takes bearer tokens.
 */
export function withCors(allowedOrigins: readonly string[], matcher: RouteMatcher): Filter | undefined {
  if (allowedOrigins.length === 0) return undefined;
  const anyOrigin = allowedOrigins.includes(ANY_ORIGIN);
  const allowed = new Set(allowedOrigins);
  return (request, next) => {
    const origin = request.headers.origin;
    if (origin === undefined || !(anyOrigin || allowed.has(origin))) return next(request);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      const methods = matcher.methodsAt(request.path);
      // No route here: the request goes on, and fails closed as any other would.
      if (methods.length > 0) return preflightAnswer(origin, methods);
    }
    return whenAnswered(next(request), (response) => {
      allowOrigin(response, origin);
      response.headers['access-control-expose-headers'] = CORS_EXPOSED_HEADERS;
      return response;
    });
  };
}

function preflightAnswer(origin: string, methods: string[]): ApiResponse {
  const response: ApiResponse = {
    status: 204,
    headers: {
      'access-control-allow-methods': methods.includes('*') ? ANY_METHOD : methods.join(', '),
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    },
    body: undefined,
  };
  allowOrigin(response, origin);
  return response;
}

/** The answer depends on the request's origin, so caches keep one per origin (`Vary: Origin`). */
function allowOrigin(response: ApiResponse, origin: string): void {
  response.headers['access-control-allow-origin'] = origin;
  const vary = response.headers.vary;
  response.headers.vary = vary === undefined ? 'Origin' : `${Array.isArray(vary) ? vary.join(', ') : vary}, Origin`;
}
