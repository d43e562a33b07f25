import { declareRoutes } from './route-definition.ts';

/** The routes every deployment answers first: probes, login, who the caller is, the public configuration and the documents. */
export function serviceRoutes() {
  return declareRoutes([
    {
      method: 'GET',
      path: '/healthz',
      target: 'every-function',
      auth: 'none',
      operationId: 'getHealth',
      summary: 'Liveness: the process is serving.',
      responseSchema: { type: 'object', properties: { status: { type: 'string' } } },
    },
    {
      method: 'GET',
      path: '/readyz',
      target: 'every-function',
      auth: 'none',
      operationId: 'getReadiness',
      summary: 'Readiness: the function can verify tokens and reach what it depends on.',
      responseSchema: { type: 'object', properties: { status: { type: 'string' } } },
      errorResponses: { 503: 'Not ready; `reason` says why.' },
    },
    {
      method: 'GET',
      path: '/metrics',
      target: 'every-function',
      auth: 'bearer',
      operationId: 'getMetrics',
      // As kube-apiserver's: a SubjectAccessReview on the non-resource URL `/metrics`, verb `get`.
      authorization: { nonResourcePath: true },
      summary:
        'Prometheus metrics of this function\'s process (docs/observability.md), in the text exposition format. Authorized as a non-resource SubjectAccessReview (`nonResourceURLs: ["/metrics"]`, verb `get`); 404 when `METRICS=off`.',
      responseMediaType: 'text/plain',
      errorResponses: { 404: 'Metrics are switched off (`METRICS=off`).' },
    },
    {
      method: 'POST',
      path: '/api/v1alpha1/auth/login',
      target: 'login',
      auth: 'none',
      operationId: 'login',
      summary:
        'Log in as the built-in admin account. The password goes in `Authorization: Bearer <password>`; no body.',
      responseSchema: {
        type: 'object',
        required: ['idToken'],
        properties: { idToken: { type: 'string', description: 'The admin JWT (HS256).' } },
        additionalProperties: false,
      },
      errorResponses: {
        400: 'Missing or malformed Authorization header.',
        403: 'Wrong password (`InvalidPassword`) or admin account disabled (`AdminAccountDisabled`).',
        429: 'Too many failed logins from this client or for the account (`TooManyFailedLogins`, `TooManyFailedLoginsForAccount`), or too many logins in progress; see `Retry-After`.',
      },
    },
    {
      method: 'GET',
      path: '/api/v1alpha1/auth/whoami',
      target: 'resources',
      auth: 'bearer',
      operationId: 'whoAmI',
      anyAuthenticatedCaller: true,
      summary:
        'Who the token authenticates as: the principal type and the name runs record for it (`admin`, the OIDC username, `system:serviceaccount:<ns>:<name>`). Needs nothing but a valid token.',
      responseSchema: {
        type: 'object',
        required: ['type', 'name'],
        properties: { type: { enum: ['admin', 'oidc', 'serviceaccount'] }, name: { type: 'string' } },
        additionalProperties: false,
      },
    },
    {
      method: 'GET',
      path: '/api/v1alpha1/system/public-config',
      target: 'public-config',
      auth: 'none',
      operationId: 'getPublicConfig',
      summary: 'What a client needs before it logs in: whether the admin account is enabled and the OIDC settings.',
      responseSchema: { $ref: '#/components/schemas/PublicConfig' },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      target: 'public-config',
      auth: 'none',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document.',
      responseSchema: { type: 'object' },
    },
    {
      method: 'GET',
      path: '/docs',
      target: 'public-config',
      auth: 'none',
      operationId: 'getApiReference',
      summary: 'A readable API reference page generated from the OpenAPI document.',
      responseMediaType: 'text/html',
    },
  ]);
}

/** The optional identity bridge: last, a catch-all under `/bridge/`. */
export function bridgeRoutes() {
  return declareRoutes([
    {
      method: '*',
      path: '/bridge/*',
      target: 'bridge',
      auth: 'none',
      operationId: 'identityBridge',
      summary: 'Forwarded unauthenticated to the optional identity bridge (404 when none is configured).',
      errorResponses: { 404: 'No identity bridge is configured (`BridgeNotConfigured`).' },
    },
  ]);
}
