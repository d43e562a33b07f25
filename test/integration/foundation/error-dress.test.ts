// Issue 43, item 3 ("Errors dressed once"): throw sites throw catalogue errors, and the chain's error
// filter dresses each as its route declares, a Kubernetes `Status` where the route says `statusErrors`
// and the contract's `{error, reason}` elsewhere. A new route cannot answer in the wrong shape by
// forgetting a wrap in its handler, because there is no wrap to forget.
import { beforeAll, describe, expect, it } from 'vitest';
import { AdminTokenAuthenticator, issueAdminToken } from '../../../shared/auth/admin-token.ts';
import { RequestAuthenticator } from '../../../shared/auth/request-authenticator.ts';
import { parseAdminAccountSettings } from '../../../shared/base/config/admin-account-settings.ts';
import { FixedAdminSettingsSource } from '../../../shared/base/config/admin-settings-source.ts';
import { KubernetesStatusError } from '../../../shared/base/http/api-error.ts';
import type { ApiResponse } from '../../../shared/base/http/api-request.ts';
import { apiError, payloadTooLarge } from '../../../shared/base/http/error-catalogue.ts';
import { DNS_SUBDOMAIN } from '../../../shared/contract/kinds/object-names.ts';
import type { RouteDefinition } from '../../../shared/contract/routes/route-definition.ts';
import { RouteMatcher } from '../../../shared/contract/routes/route-matcher.ts';
import { withAuthentication } from '../../../shared/server/runtime/filters/authentication.ts';
import { withErrorResponses } from '../../../shared/server/runtime/filters/error-responses.ts';
import { chainFilters, type FilteredRequest } from '../../../shared/server/runtime/filters/filter-chain.ts';
import { withRouteRefusal } from '../../../shared/server/runtime/filters/route-refusal.ts';
import { withRouteResolution } from '../../../shared/server/runtime/filters/route-resolution.ts';
import { SIGNING_KEY } from '../../support/admin-fixtures.ts';
import { capturingLogger } from '../../support/function-servers.ts';

const ISSUER = 'https://api.example.test';
const settings = parseAdminAccountSettings({
  ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: SIGNING_KEY,
  ADMIN_ACCOUNT_TOKEN_TTL: '1h',
});

/** Two routes new to the table, alike but for their declaration: one answers Kubernetes `Status` errors. */
const KUBERNETES_STYLE: RouteDefinition = {
  method: 'GET',
  path: '/apis/example.dev/v1/widgets/{name}',
  target: 'resources',
  auth: 'bearer',
  operationId: 'getWidget',
  summary: 'A widget.',
  pathParameters: { name: DNS_SUBDOMAIN },
  statusErrors: true,
};
const PLAIN: RouteDefinition = {
  ...KUBERNETES_STYLE,
  path: '/api/v1alpha1/widgets/{name}',
  operationId: 'getPlainWidget',
  statusErrors: false,
};

let token = '';
beforeAll(async () => {
  token = await issueAdminToken(settings, ISSUER);
});

/** The answer of the real filters (errors, route resolution, authentication, refusal) around a handler that throws `thrown`. */
async function answerOf(
  path: string,
  thrown: unknown,
  { authorized = true, pathParameter = 'x' }: { authorized?: boolean; pathParameter?: string } = {},
): Promise<{ status: number; headers: ApiResponse['headers']; body: Record<string, unknown> }> {
  const authenticator = new RequestAuthenticator([
    new AdminTokenAuthenticator(new FixedAdminSettingsSource(settings, 'test'), ISSUER),
  ]);
  const serve = chainFilters(
    [
      withErrorResponses(capturingLogger()),
      withRouteResolution(new RouteMatcher([KUBERNETES_STYLE, PLAIN])),
      withAuthentication(authenticator),
      withRouteRefusal(),
    ],
    () => {
      throw thrown;
    },
  );
  const request: FilteredRequest = {
    method: 'GET',
    path: path.replace('{name}', pathParameter),
    query: new URLSearchParams(),
    headers: authorized ? { authorization: `Bearer ${token}` } : {},
    body: new Uint8Array(0),
    remoteAddress: '127.0.0.1',
  };
  const response = await serve(request);
  return { status: response.status, headers: response.headers, body: JSON.parse(String(response.body)) };
}

const notFound = () => apiError('NotFound', 'widgets "x" not found', {}, { name: 'x', kind: 'widgets' });

describe('Issue 43, item 3: errors are dressed once, by the route declaration, not at the throw site', () => {
  it('a new route declared with statusErrors whose handler throws a plain catalogue error answers a Kubernetes Status', async () => {
    expect(await answerOf(KUBERNETES_STYLE.path, notFound())).toEqual({
      status: 404,
      headers: expect.any(Object),
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'widgets "x" not found',
        reason: 'NotFound',
        details: { name: 'x', kind: 'widgets' },
        code: 404,
        error: 'widgets "x" not found',
      },
    });
    // A platform reason keeps its status and headers; a Status carries it as the handler named it.
    const unavailable = await answerOf(KUBERNETES_STYLE.path, apiError('KubernetesUnavailable', 'retry'));
    expect([unavailable.status, unavailable.headers['retry-after'], unavailable.body]).toEqual([
      503,
      '5',
      expect.objectContaining({ kind: 'Status', reason: 'KubernetesUnavailable', code: 503, error: 'retry' }),
    ]);
  });

  it('conversely, a route without statusErrors answers the same thrown error as {error, reason}, without the details', async () => {
    expect(await answerOf(PLAIN.path, notFound())).toEqual({
      status: 404,
      headers: expect.any(Object),
      body: { error: 'widgets "x" not found', reason: 'NotFound' },
    });
  });

  it('an invalid path parameter is InvalidPathParameter on a plain route and BadRequest in a Status, as kube-apiserver says it', async () => {
    const plain = await answerOf(PLAIN.path, notFound(), { pathParameter: 'Not_A_Name' });
    const status = await answerOf(KUBERNETES_STYLE.path, notFound(), { pathParameter: 'Not_A_Name' });
    expect([plain.status, plain.body.reason, plain.body.kind]).toEqual([400, 'InvalidPathParameter', undefined]);
    expect([status.status, status.body.reason, status.body.kind]).toEqual([400, 'BadRequest', 'Status']);
    expect(status.body.message).toBe(plain.body.error);
  });

  it("what is refused around the route stays {error, reason} on every route: the authenticator's 401, the body limit's 413", async () => {
    const unauthenticated = await answerOf(KUBERNETES_STYLE.path, notFound(), { authorized: false });
    expect([unauthenticated.status, unauthenticated.body]).toEqual([
      401,
      { error: 'a bearer token is required', reason: 'MissingToken' },
    ]);
    expect(unauthenticated.headers['www-authenticate']).toBeDefined();
    const tooLarge = await answerOf(KUBERNETES_STYLE.path, payloadTooLarge(10));
    expect([tooLarge.status, tooLarge.body.reason, tooLarge.body.kind]).toEqual([413, 'PayloadTooLarge', undefined]);
  });

  it("a cluster's own Status passes through as the cluster said it, on any route", async () => {
    const clusters = new KubernetesStatusError(409, 'Conflict', 'the object has been modified', { name: 'x' });
    for (const path of [KUBERNETES_STYLE.path, PLAIN.path]) {
      const answer = await answerOf(path, clusters);
      expect([answer.status, answer.body], path).toEqual([
        409,
        expect.objectContaining({ kind: 'Status', reason: 'Conflict', details: { name: 'x' } }),
      ]);
    }
  });
});
