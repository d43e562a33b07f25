// The core handler's filters, each alone (issue 9, item 5): every filter of shared/server/runtime/filters/
// is called with a request and a `next` that records whether it ran, so what each one adds,
// answers or refuses is seen without the others. The whole chain over HTTP is proved by the
// adapter, route-access and security suites.
import { beforeAll, describe, expect, it } from 'vitest';
import { AdminTokenAuthenticator, issueAdminToken } from '../../../shared/auth/admin-token.ts';
import { RequestAuthenticator } from '../../../shared/auth/request-authenticator.ts';
import { parseAdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import { FixedAdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { ApiError } from '../../../shared/base/http/api-error.ts';
import { notFound } from '../../../shared/base/http/error-catalogue.ts';
import { jsonResponse, type ApiResponse } from '../../../shared/base/http/api-request.ts';
import { RouteMatcher } from '../../../shared/contract/routes/route-matcher.ts';
import { routeTable } from '../../../shared/contract/routes/route-table.ts';
import {
  chainFilters,
  type Filter,
  type FilteredRequest,
} from '../../../shared/server/runtime/filters/filter-chain.ts';
import { withAccessLog } from '../../../shared/server/runtime/filters/access-log.ts';
import { withAuthentication } from '../../../shared/server/runtime/filters/authentication.ts';
import { CORS_ALLOWED_HEADERS, withCors } from '../../../shared/server/runtime/filters/cors.ts';
import { withErrorResponses } from '../../../shared/server/runtime/filters/error-responses.ts';
import { withRouteRefusal } from '../../../shared/server/runtime/filters/route-refusal.ts';
import { withRouteResolution } from '../../../shared/server/runtime/filters/route-resolution.ts';
import { withSecurityHeaders } from '../../../shared/server/runtime/filters/security-headers.ts';
import { SIGNING_KEY } from '../../support/admin-fixtures.ts';
import { capturingLogger } from '../../support/function-servers.ts';
import { createLogger } from '../../../shared/base/logging/logger.ts';

const ISSUER = 'https://api.example.test';
const ROUTES = routeTable('platform.dev');
const RUN_LOGS = '/api/v1alpha1/run-logs/demo/0190f4c8-0000-7000-8000-000000000001';
const ORIGIN = 'https://console.example.com';

function request(method: string, pathAndQuery: string, headers: Record<string, string> = {}): FilteredRequest {
  const [path, query = ''] = pathAndQuery.split('?');
  return {
    method,
    path: path!,
    query: new URLSearchParams(query),
    headers,
    body: new Uint8Array(0),
    remoteAddress: '127.0.0.1',
  };
}

/** A `next` that answers 200 (or throws `error`) and remembers the request it was handed. */
function recordingNext(error?: unknown) {
  const seen: FilteredRequest[] = [];
  const next = (passed: FilteredRequest): ApiResponse => {
    seen.push(passed);
    if (error !== undefined) throw error;
    return jsonResponse(200, { ok: true });
  };
  return { seen, next };
}

const later = (response: ApiResponse) => Promise.resolve(response);

describe('the filters compose in one list, the first outermost, leaving out a filter that is not installed', () => {
  it('runs each filter before the handler in order and sees the answers in reverse', async () => {
    const trail: string[] = [];
    const tracing =
      (name: string): Filter =>
      (passed, next) => {
        trail.push(`>${name}`);
        const answer = next(passed) as ApiResponse;
        trail.push(`<${name}`);
        return answer;
      };
    const serve = chainFilters([tracing('a'), undefined, tracing('b')], () => {
      trail.push('handler');
      return jsonResponse(200, {});
    });
    await serve(request('GET', '/'));
    expect(trail).toEqual(['>a', '>b', 'handler', '<b', '<a']);
  });
});

describe('security headers: every answer, an error or a later one too, carries nosniff and no-referrer', () => {
  it.each([
    ['at once', (response: ApiResponse) => response],
    ['later', later],
  ])('adds them to an answer given %s', async (_when, give) => {
    const answer = await withSecurityHeaders()(request('GET', '/'), () => give(notFound('x').toResponse()));
    expect(answer.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-type': 'application/json; charset=utf-8',
    });
  });
});

describe('access log: one line per answer with its status and principal, the access_token redacted', () => {
  it('logs method, redacted path, status and principal, and nothing of the token', async () => {
    const logger = capturingLogger();
    const passed = request('GET', `${RUN_LOGS}?access_token=secret-token-value&follow=1`);
    await withAccessLog(logger)(passed, (inner) => {
      inner.principal = { type: 'admin', name: 'admin' };
      return later(jsonResponse(418, {}));
    });
    expect(logger.lines).toHaveLength(1);
    const line = JSON.parse(logger.lines[0]!);
    expect(line).toMatchObject({
      message: 'request',
      method: 'GET',
      status: 418,
      principal: 'admin',
      durationMs: expect.any(Number),
    });
    expect(line.path).toContain('follow=1');
    expect(logger.lines[0]).not.toContain('secret-token-value');
  });

  it('writes nothing when info is not logged', async () => {
    const lines: string[] = [];
    await withAccessLog(createLogger({ level: 'warn', write: (line) => lines.push(line) }))(request('GET', '/'), () =>
      jsonResponse(200, {}),
    );
    expect(lines).toEqual([]);
  });

  it('logs a passing probe at debug level and a failing one at info (issue 21: probes are most of a fleet log)', async () => {
    const info: string[] = [];
    const debug: string[] = [];
    for (const [lines, level] of [
      [info, 'info'],
      [debug, 'debug'],
    ] as const) {
      const logger = createLogger({ level, write: (line) => lines.push(line) });
      for (const path of ['/healthz', '/readyz'])
        await withAccessLog(logger)(request('GET', path), () => jsonResponse(200, {}));
      await withAccessLog(logger)(request('GET', '/readyz'), () => jsonResponse(503, {}));
      await withAccessLog(logger)(request('GET', '/apis'), () => jsonResponse(200, {}));
    }
    expect(info.map((line) => [JSON.parse(line).path, JSON.parse(line).status])).toEqual([
      ['/readyz', 503],
      ['/apis', 200],
    ]);
    expect(debug.map((line) => JSON.parse(line).level)).toEqual(['debug', 'debug', 'info', 'info']);
  });
});

describe('error responses: an ApiError becomes its JSON body; anything else is a bug, answered 500 without detail and logged', () => {
  it('answers an ApiError thrown at once or later with its status, reason and headers', async () => {
    const thrown = new ApiError(429, 'TooMany', 'slow down', { 'retry-after': '3' });
    for (const answer of [
      withErrorResponses(capturingLogger())(request('GET', '/'), recordingNext(thrown).next),
      withErrorResponses(capturingLogger())(request('GET', '/'), () => Promise.reject(thrown)),
    ]) {
      const response = await answer;
      expect([response.status, response.headers['retry-after'], JSON.parse(response.body as string)]).toEqual([
        429,
        '3',
        { error: 'slow down', reason: 'TooMany' },
      ]);
    }
  });

  it('answers any other error 500 InternalError, keeps its message out of the body and logs it', async () => {
    const logger = capturingLogger();
    const response = await withErrorResponses(logger)(request('GET', '/x'), () =>
      Promise.reject(new Error('database password in a message')),
    );
    expect([response.status, JSON.parse(response.body as string)]).toEqual([
      500,
      { error: 'internal error', reason: 'InternalError' },
    ]);
    expect(logger.lines.some((line) => line.includes('unhandled error'))).toBe(true);
  });

  it('passes an answer through untouched', async () => {
    const response = await withErrorResponses(capturingLogger())(request('GET', '/'), recordingNext().next);
    expect(response.status).toBe(200);
  });
});

describe('route resolution: the route and its parameters are found; what cannot be served is noted, not answered', () => {
  const resolve = (method: string, path: string) => {
    const { seen, next } = recordingNext();
    withRouteResolution(new RouteMatcher(ROUTES))(request(method, path), next);
    return seen[0]!;
  };

  it('finds the route and the parameters', () => {
    const resolved = resolve('GET', RUN_LOGS);
    expect([resolved.route?.operationId, resolved.params, resolved.lookupFailure]).toEqual([
      'streamRunLogs',
      { project: 'demo', run: '0190f4c8-0000-7000-8000-000000000001' },
      undefined,
    ]);
  });

  it.each([
    ['an unknown path', 'GET', '/nowhere', 404, 'NotFound', undefined],
    ['a method the route lacks', 'DELETE', '/api/v1alpha1/auth/whoami', 405, 'MethodNotAllowed', undefined],
    [
      'an invalid path parameter',
      'GET',
      '/api/v1alpha1/run-logs/Not_A_Name/0190f4c8-0000-7000-8000-000000000001',
      400,
      'InvalidPathParameter',
      'streamRunLogs',
    ],
  ])('notes %s and still passes the request on', (_case, method, path, status, reason, operationId) => {
    const resolved = resolve(method, path);
    expect([resolved.lookupFailure?.status, resolved.lookupFailure?.reason, resolved.route?.operationId]).toEqual([
      status,
      reason,
      operationId,
    ]);
  });
});

describe('authentication: a valid token sets the principal; none or a bad one is 401; open routes need none; no route needs one too', () => {
  const settings = parseAdminAccountSettings({
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
    ADMIN_ACCOUNT_TOKEN_TTL: '1h',
  });
  const authenticator = () =>
    new RequestAuthenticator([new AdminTokenAuthenticator(new FixedAdminSettingsSource(settings, 'test'), ISSUER)]);
  let token = '';
  beforeAll(async () => {
    token = await issueAdminToken(settings, ISSUER);
  });
  const resolved = (method: string, pathAndQuery: string, headers: Record<string, string> = {}) => {
    const passed = request(method, pathAndQuery, headers);
    withRouteResolution(new RouteMatcher(ROUTES))(passed, (inner) => jsonResponse(200, inner));
    return passed;
  };

  it('verifies the token, sets the principal and goes on; once cached, without a promise', async () => {
    const filter = withAuthentication(authenticator());
    const first = recordingNext();
    await filter(resolved('GET', '/api/v1alpha1/auth/whoami', { authorization: `Bearer ${token}` }), first.next);
    expect(first.seen[0]?.principal).toMatchObject({ type: 'admin', name: 'admin' });
    const second = recordingNext();
    const answer = filter(
      resolved('GET', '/api/v1alpha1/auth/whoami', { authorization: `Bearer ${token}` }),
      second.next,
    );
    expect(answer).not.toBeInstanceOf(Promise);
    expect(second.seen).toHaveLength(1);
  });

  it.each([
    ['no token', '/api/v1alpha1/auth/whoami', {}, 'MissingToken'],
    ['no token on a path without a route', '/nowhere', {}, 'MissingToken'],
    [
      'a token in access_token where the route does not take it',
      '/api/v1alpha1/auth/whoami?access_token=TOKEN',
      {},
      'MissingToken',
    ],
    [
      'a malformed Authorization header',
      '/api/v1alpha1/auth/whoami',
      { authorization: 'Basic abc' },
      'MalformedAuthorizationHeader',
    ],
  ])('refuses %s with 401 before going on', (_case, path, headers, reason) => {
    const { seen, next } = recordingNext();
    expect(() =>
      withAuthentication(authenticator())(resolved('GET', path.replace('TOKEN', token), headers), next),
    ).toThrow(expect.objectContaining({ status: 401, reason }));
    expect(seen).toEqual([]);
  });

  it('refuses an invalid token with 401 InvalidToken, later', async () => {
    const { seen, next } = recordingNext();
    await expect(
      withAuthentication(authenticator())(
        resolved('GET', '/api/v1alpha1/auth/whoami', { authorization: 'Bearer not.a.token' }),
        next,
      ),
    ).rejects.toMatchObject({ status: 401 });
    expect(seen).toEqual([]);
  });

  it('takes the token from access_token on the run-log stream', async () => {
    const { seen, next } = recordingNext();
    await withAuthentication(authenticator())(resolved('GET', `${RUN_LOGS}?access_token=${token}`), next);
    expect(seen[0]?.principal).toMatchObject({ type: 'admin' });
  });

  it('gives an open route a null principal without a token', () => {
    const { seen, next } = recordingNext();
    withAuthentication(authenticator())(resolved('GET', '/healthz'), next);
    expect(seen[0]?.principal).toBeNull();
  });
});

describe('route refusal: what routing could not serve is answered once the caller is known, before any handler', () => {
  it('throws the noted failure and does not go on', () => {
    const { seen, next } = recordingNext();
    const passed = request('GET', '/nowhere');
    passed.lookupFailure = notFound('no route');
    expect(() => withRouteRefusal()(passed, next)).toThrow(passed.lookupFailure);
    expect(seen).toEqual([]);
  });

  it('goes on when the route was found', () => {
    const { seen, next } = recordingNext();
    withRouteRefusal()(request('GET', '/healthz'), next);
    expect(seen).toHaveLength(1);
  });
});

describe('CORS: allowed origins by setting, none by default; preflight answered before authentication; other origins get no CORS headers', () => {
  const matcher = new RouteMatcher(ROUTES);
  const cors = withCors([ORIGIN], matcher)!;
  const preflight = (path: string, origin = ORIGIN) =>
    request('OPTIONS', path, {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    });

  it('is not installed when no origin is allowed', () => {
    expect(withCors([], matcher)).toBeUndefined();
  });

  it("answers a preflight from an allowed origin itself, 204 with the route's methods, the headers and a max-age", async () => {
    const { seen, next } = recordingNext(new Error('must not go on'));
    const response = await cors(preflight('/apis/platform.dev/v1alpha1/namespaces/demo/workspaces/network'), next);
    expect(seen).toEqual([]);
    expect(response.status).toBe(204);
    expect(response.headers).toEqual({
      'access-control-allow-origin': ORIGIN,
      vary: 'Origin',
      'access-control-allow-methods': 'GET, PUT, PATCH, DELETE',
      'access-control-allow-headers': CORS_ALLOWED_HEADERS,
      'access-control-max-age': '600',
    });
    expect(CORS_ALLOWED_HEADERS.split(', ')).toEqual(
      expect.arrayContaining(['Authorization', 'Content-Type', 'Last-Event-ID']),
    );
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lists every method for a route that takes any', async () => {
    const response = await cors(preflight('/internal/anything'), recordingNext().next);
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
  });

  it('passes a preflight for a path without a route on, to fail closed as any request does', () => {
    const { seen, next } = recordingNext();
    const response = cors(preflight('/nowhere'), next) as ApiResponse;
    expect(seen).toHaveLength(1);
    expect(response.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('names an allowed origin on the answer, adds Origin to Vary and exposes Retry-After and Location', async () => {
    const response = await cors(request('GET', '/api/v1alpha1/auth/whoami', { origin: ORIGIN }), () =>
      later(jsonResponse(503, {}, { 'retry-after': '5', vary: 'Accept' })),
    );
    expect(response.headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, vary: 'Accept, Origin' });
    expect(String(response.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining(['Retry-After', 'Location', 'WWW-Authenticate']),
    );
  });

  it.each([
    ['a disallowed origin', { origin: 'https://evil.example.com' }],
    ['an origin differing only in scheme', { origin: 'http://console.example.com' }],
    ['the opaque origin "null"', { origin: 'null' }],
    ['no Origin at all', {}],
  ])('gives %s no CORS header and answers its preflight as any OPTIONS request', async (_case, headers) => {
    for (const method of ['GET', 'OPTIONS']) {
      const { seen, next } = recordingNext();
      const response = await cors(
        request(method, '/api/v1alpha1/auth/whoami', { ...headers, 'access-control-request-method': 'GET' }),
        next,
      );
      expect(seen).toHaveLength(1);
      expect(
        Object.keys(response.headers).filter((name) => name.startsWith('access-control-') || name === 'vary'),
      ).toEqual([]);
    }
  });

  it('allows every origin with "*", still naming the origin and never allowing credentials', async () => {
    const response = await withCors(['*'], matcher)!(
      request('GET', '/healthz', { origin: 'https://anywhere.example' }),
      recordingNext().next,
    );
    expect([
      response.headers['access-control-allow-origin'],
      response.headers['access-control-allow-credentials'],
    ]).toEqual(['https://anywhere.example', undefined]);
  });
});
