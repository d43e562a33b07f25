import {
  API_VERSION,
  PLATFORM_KINDS,
  RESOURCE_OPERATIONS,
  listAllNamespacesOperationId,
  resourceOperationId,
  type PlatformKind,
  type ResourceOperation,
} from '../resources/platform-kinds.ts';
import type { RouteDefinition } from './route-table.ts';

const SELECTORS = 'Query: `labelSelector`, `fieldSelector`, `limit` and `continue` (Kubernetes list conventions); with `watch=1` (or `true`) the cluster\'s watch events stream instead (with `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`), authorised as `watch`, until the caller\'s token expires. `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` answers a Table (docs/kubectl.md).';
const RESOURCE_ERRORS = {
  400: 'Malformed JSON, or a body of another kind or name (a Kubernetes `Status`).',
  404: 'No such object (the cluster\'s `Status`).',
  409: 'The name is taken, or `metadata.resourceVersion` is stale (the cluster\'s `Status`).',
  422: 'The object is invalid (the cluster\'s `Status`).',
};

/** The JSON Schema of a platform object, for the OpenAPI document; the fields are the CRD's (docs/resources.md). */
function objectSchema(apiGroup: string, kind: PlatformKind): Record<string, unknown> {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata'],
    description: `A ${kind.kind}; its spec and status fields are those of the CustomResourceDefinition ${kind.plural}.${apiGroup} (see docs/resources.md).`,
    properties: {
      apiVersion: { const: `${apiGroup}/${API_VERSION}` },
      kind: { const: kind.kind },
      metadata: { type: 'object', properties: { name: { type: 'string' }, ...(kind.namespaced ? { namespace: { type: 'string' } } : {}), resourceVersion: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
      spec: { type: 'object' },
      status: { type: 'object' },
    },
  };
}

function listSchema(apiGroup: string, kind: PlatformKind): Record<string, unknown> {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'items'],
    properties: {
      apiVersion: { const: `${apiGroup}/${API_VERSION}` },
      kind: { const: `${kind.kind}List` },
      metadata: { type: 'object', properties: { resourceVersion: { type: 'string' }, continue: { type: 'string', description: 'Present when another page follows.' }, remainingItemCount: { type: 'integer' } } },
      items: { type: 'array', items: objectSchema(apiGroup, kind) },
    },
  };
}

const PATCH_SCHEMA = {
  description: 'A JSON merge patch (`Content-Type: application/merge-patch+json`), a JSON patch (`application/json-patch+json`), or a server-side apply configuration (`application/apply-patch+yaml`, with `fieldManager` and optionally `force`).',
  type: ['object', 'array'],
};

/** Kubernetes-style REST routes of every platform kind under `/apis/<apiGroup>/v1alpha1/`. */
export function resourceRoutes(apiGroup: string): RouteDefinition[] {
  const base = `/apis/${apiGroup}/${API_VERSION}`;
  return PLATFORM_KINDS.flatMap((kind) => {
    const collection = kind.namespaced ? `${base}/namespaces/{namespace}/${kind.plural}` : `${base}/${kind.plural}`;
    const item = `${collection}/{name}`;
    const object = objectSchema(apiGroup, kind);
    const where = kind.namespaced ? ' in a namespace' : '';
    const route = (operation: ResourceOperation, method: string, path: string, summary: string, extra: Partial<RouteDefinition> = {}): RouteDefinition => ({
      method,
      path,
      target: 'resources',
      auth: 'bearer',
      operationId: resourceOperationId(kind, operation),
      summary: `${summary} Authorised as \`${RESOURCE_OPERATIONS[operation]}\` on \`${kind.plural}${operation.endsWith('Status') ? '/status' : ''}\`.`,
      responseSchema: object,
      errorResponses: RESOURCE_ERRORS,
      pathParameters: { name: kind.nameSchema },
      statusErrors: true,
      ...extra,
    });
    return [
      route('list', 'GET', collection, `List ${kind.kind}s${where}. ${SELECTORS}`, { responseSchema: listSchema(apiGroup, kind) }),
      ...(kind.namespaced
        ? [{ ...route('list', 'GET', `${base}/${kind.plural}`, `List ${kind.kind}s in every namespace. ${SELECTORS}`, { responseSchema: listSchema(apiGroup, kind) }), operationId: listAllNamespacesOperationId(kind) }]
        : []),
      route('create', 'POST', collection, `Create a ${kind.kind}${where}.${kind.namespaced ? '' : ' Also creates the namespace of the same name, owned by the Project.'}`, { requestSchema: object, successStatus: 201 }),
      route('get', 'GET', item, `Read a ${kind.kind}.`),
      route('replace', 'PUT', item, `Replace a ${kind.kind}; \`metadata.resourceVersion\` is required (409 when stale).`, { requestSchema: object }),
      route('patch', 'PATCH', item, `Patch a ${kind.kind}.`, { requestSchema: PATCH_SCHEMA }),
      route('delete', 'DELETE', item, `Delete a ${kind.kind}.`),
      route('getStatus', 'GET', `${item}/status`, `Read a ${kind.kind} through its status subresource.`),
      route('replaceStatus', 'PUT', `${item}/status`, `Replace a ${kind.kind}'s status (other fields are ignored).`, { requestSchema: object }),
      route('patchStatus', 'PATCH', `${item}/status`, `Patch a ${kind.kind}'s status.`, { requestSchema: PATCH_SCHEMA }),
    ];
  });
}

const RUN_SCHEMA = {
  type: 'object',
  required: ['id', 'project', 'workspace', 'type', 'phase', 'principal', 'principalType', 'createdAt', 'startedAt', 'finishedAt', 'message'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'UUIDv7: time-ordered.' },
    project: { type: 'string' },
    workspace: { type: 'string' },
    type: { enum: ['plan', 'apply'] },
    phase: { enum: ['Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'] },
    principal: { type: 'string', description: '`admin`, the OIDC username, or `system:serviceaccount:<namespace>:<name>`.' },
    principalType: { enum: ['admin', 'oidc', 'serviceaccount'] },
    createdAt: { type: 'string', format: 'date-time' },
    startedAt: { type: ['string', 'null'], format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    message: { type: 'string' },
  },
};

const RUN_PAGE_SCHEMA = {
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', items: RUN_SCHEMA }, continue: { type: 'string', description: 'Pass as `?continue=` for the next page; absent on the last page.' } },
};

const RUN_PAGE_QUERY = 'Newest first. Query: `limit` (1..500, default 50) and `continue`.';
const DATABASE_ERRORS = { 503: 'The database (or the Kubernetes API, or the token verifier) is unavailable; retry after `Retry-After`.' };

/** The run history routes under `/api/v1alpha1/projects/{project}/` (served by the resources function). */
export function runRoutes(): RouteDefinition[] {
  const project = '/api/v1alpha1/projects/{project}';
  return [
    {
      method: 'POST',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'startRun',
      summary: 'Start a plan or apply run of a Workspace; it is recorded `Pending` with the caller as its principal. Authorised as `create` on `workspaces/runs` (name: the Workspace).',
      requestSchema: { type: 'object', required: ['type'], additionalProperties: false, properties: { type: { enum: ['plan', 'apply'] }, message: { type: 'string', maxLength: 4096 } } },
      responseSchema: RUN_SCHEMA,
      successStatus: 201,
      errorResponses: { 400: 'Malformed body (`InvalidRun`).', 404: 'No such Workspace (`WorkspaceNotFound`).', ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listWorkspaceRuns',
      summary: `List a Workspace's runs. ${RUN_PAGE_QUERY} Authorised as \`list\` on \`workspaces/runs\` (name: the Workspace).`,
      responseSchema: RUN_PAGE_SCHEMA,
      errorResponses: { 400: 'Bad `limit` or `continue` (`InvalidContinueToken`).', ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${project}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listProjectRuns',
      summary: `List a Project's runs across its Workspaces. ${RUN_PAGE_QUERY} Authorised as \`list\` on \`workspaces/runs\` in the namespace.`,
      responseSchema: RUN_PAGE_SCHEMA,
      errorResponses: { 400: 'Bad `limit` or `continue` (`InvalidContinueToken`).', ...DATABASE_ERRORS },
    },
    {
      method: 'GET',
      path: `${project}/runs/{run}`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'getRun',
      summary: 'Read one run. Authorised as `get` on `workspaces/runs` (name: the run\'s Workspace).',
      responseSchema: RUN_SCHEMA,
      errorResponses: { 404: 'No such run in this Project (`RunNotFound`).', ...DATABASE_ERRORS },
    },
  ];
}

const INTERNAL_AUTH = 'Authorised as a non-resource SubjectAccessReview on the path (`nonResourceURLs: ["/internal/*"]`).';

/** The workspace controller's routes under `/internal/` (the catch-all `/internal/*` comes after them). */
export function internalRoutes(): RouteDefinition[] {
  return [
    {
      method: 'GET',
      path: '/internal/runs',
      target: 'internal',
      auth: 'bearer',
      operationId: 'listRunsInPhase',
      summary: `Runs in one phase across every Project, oldest first: the controller's work queue. Query: \`phase\` (default Pending), \`limit\` (1..500, default 50), \`continue\`. ${INTERNAL_AUTH}`,
      responseSchema: RUN_PAGE_SCHEMA,
      errorResponses: { 400: 'Bad `phase`, `limit` or `continue`.', ...DATABASE_ERRORS },
    },
    {
      method: 'POST',
      path: '/internal/runs/{run}/phase',
      target: 'internal',
      auth: 'bearer',
      operationId: 'setRunPhase',
      summary: `Move a run to a phase (Pending→Running→Succeeded|Failed, Pending|Running→Cancelled). ${INTERNAL_AUTH}`,
      requestSchema: { type: 'object', required: ['phase'], additionalProperties: false, properties: { phase: { enum: ['Running', 'Succeeded', 'Failed', 'Cancelled'] }, message: { type: 'string', maxLength: 4096 } } },
      responseSchema: RUN_SCHEMA,
      errorResponses: { 400: 'Malformed body.', 404: 'No such run (`RunNotFound`).', 409: 'Not allowed from the current phase (`InvalidPhaseTransition`).', ...DATABASE_ERRORS },
    },
    {
      method: 'POST',
      path: '/internal/runs/{run}/logs',
      target: 'internal',
      auth: 'bearer',
      operationId: 'appendRunLogs',
      summary: `Append log lines to a run; durable once answered. ${INTERNAL_AUTH}`,
      requestSchema: { type: 'object', required: ['lines'], additionalProperties: false, properties: { lines: { type: 'array', maxItems: 5000, items: { type: 'string' } } } },
      responseSchema: { type: 'object', required: ['firstSeq', 'lastSeq'], properties: { firstSeq: { type: ['integer', 'null'] }, lastSeq: { type: ['integer', 'null'] } } },
      errorResponses: { 400: 'Malformed body.', 404: 'No such run (`RunNotFound`).', ...DATABASE_ERRORS },
    },
  ];
}
