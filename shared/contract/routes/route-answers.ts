import type { ResourceOperation } from '../kinds/platform-kinds.ts';
import { pathParameterNames } from './path-parameters.ts';
import type { RouteDefinition } from './route-definition.ts';
import { readsTimeout } from './closed-input.ts';

// The refusals a route can answer, derived from what the route is: how callers authenticate, whether
// it authorizes them, whether it takes a body or names something in its path, and (resource routes)
// which Kubernetes operation it is. A route adds only what is its own (`errorResponses`); the OpenAPI
// document, /docs and the answer-conformance test (test/integration/resources/documented-answers.test.ts) read the result.

const NO_TOKEN = 'No token, or an invalid, expired or unaccepted token.';
const NOT_ALLOWED = 'Authenticated but not allowed.';
const VERIFIER_DOWN =
  "The token verifier's infrastructure (or what the route needs) is unreachable; retry after `Retry-After`.";
const INVALID_PARAMETER =
  'A path parameter is not a valid name (`InvalidPathParameter`; `BadRequest` on resource routes).';
const MALFORMED_BODY = 'The body is not JSON or does not match the request schema.';
const TOO_LARGE = 'The body is over the size limit (`PayloadTooLarge`).';
const BAD_TIMEOUT = 'A `timeout` that is not a Go duration (`BadRequest`).';
const TIMED_OUT =
  'The `timeout` passed before the answer (`Timeout`, as kube-apiserver words it); a write may still have been made.';

const OBJECT_BODY = {
  400: 'A body that is not JSON, or an object of another kind or name.',
  415: 'A `Content-Type` other than JSON or YAML.',
};
const PATCH_BODY = {
  400: 'A patch that is not JSON, or cannot be applied.',
  415: 'A `Content-Type` that is not a patch type (server-side apply is not offered on `/status`).',
};
const MISSING = { 404: "No such object (the cluster's `Status`)." };
const WRITE_REFUSED = {
  409: "`metadata.resourceVersion` is stale, or the object changed meanwhile (the cluster's `Status`).",
  422: "The object is invalid: the CRD's schema refuses it (the cluster's `Status`).",
};

/** What each Kubernetes operation on a platform kind can refuse, besides authentication and authorization. */
const RESOURCE_ANSWERS: Record<ResourceOperation, Record<number, string>> = {
  list: { 400: 'A bad `limit`, selector, `resourceVersion` or `includeObject`.' },
  create: {
    ...OBJECT_BODY,
    404: 'The namespace (Project) does not exist.',
    409: 'The name is taken (`AlreadyExists`).',
    422: WRITE_REFUSED[422],
  },
  get: MISSING,
  replace: { ...OBJECT_BODY, ...MISSING, ...WRITE_REFUSED },
  patch: { ...PATCH_BODY, ...MISSING, ...WRITE_REFUSED },
  delete: {
    400: 'DeleteOptions that are not JSON.',
    ...MISSING,
    409: 'A precondition in DeleteOptions does not hold.',
  },
  getStatus: MISSING,
  replaceStatus: { 400: OBJECT_BODY[400], ...MISSING, ...WRITE_REFUSED },
  patchStatus: { ...PATCH_BODY, ...MISSING, ...WRITE_REFUSED },
};

/** Whether a request to the route carries a body the server reads. */
export function takesBody(route: RouteDefinition): boolean {
  return route.requestSchema !== undefined || route.resource?.operation === 'delete';
}

/** Every refusal (and non-default success, e.g. 204) the route can answer: status → description. */
export function routeAnswers(route: RouteDefinition): Record<number, string> {
  const parts: Record<number, string>[] = [];
  if (route.auth !== 'none') parts.push({ 401: NO_TOKEN, 503: VERIFIER_DOWN });
  // The run-log stream is long-running: its `timeout` is checked, never applied (request-deadline.ts).
  if (readsTimeout(route))
    parts.push(route.target === 'run-logs' ? { 400: BAD_TIMEOUT } : { 400: BAD_TIMEOUT, 504: TIMED_OUT });
  if (route.auth !== 'none' && !route.anyAuthenticatedCaller) parts.push({ 403: NOT_ALLOWED });
  if (pathParameterNames(route.path).length > 0) parts.push({ 400: INVALID_PARAMETER });
  if (takesBody(route)) parts.push({ 413: TOO_LARGE });
  if (takesBody(route) && !route.resource) parts.push({ 400: MALFORMED_BODY });
  if (route.resource) parts.push(RESOURCE_ANSWERS[route.resource.operation]);
  if (route.errorResponses) parts.push(route.errorResponses);
  const answers: Record<number, string> = {};
  for (const part of parts) {
    for (const [status, description] of Object.entries(part)) {
      const code = Number(status);
      answers[code] =
        answers[code] && answers[code] !== description ? `${answers[code]} Or: ${description}` : description;
    }
  }
  return answers;
}
