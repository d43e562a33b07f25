import {
  API_VERSION,
  PLATFORM_KINDS,
  RESOURCE_OPERATIONS,
  listAllNamespacesOperationId,
  resourceOperationId,
  type PlatformKind,
  type ResourceOperation,
} from '../resources/platform-kinds.ts';
import { declareRoutes, type RouteDefinition } from './route-definition.ts';

const SELECTORS =
  "Query: `labelSelector`, `fieldSelector`, `limit` and `continue` (Kubernetes list conventions); with `watch=1` (or `true`) the cluster's watch events stream instead (with `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`), authorised as `watch`, until the caller's token expires. `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` answers a Table (docs/kubectl.md).";

/** The JSON Schema of a platform object, for the OpenAPI document; the fields are the CRD's (docs/resources.md). */
function objectSchema(apiGroup: string, kind: PlatformKind): Record<string, unknown> {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata'],
    description: `A ${kind.kind}; its spec and status fields are those of the CustomResourceDefinition ${kind.plural}.${apiGroup} (see docs/resources.md).`,
    properties: {
      apiVersion: { const: `${apiGroup}/${API_VERSION}` },
      kind: { const: kind.kind },
      metadata: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          ...(kind.namespaced ? { namespace: { type: 'string' } } : {}),
          resourceVersion: { type: 'string' },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
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
      metadata: {
        type: 'object',
        properties: {
          resourceVersion: { type: 'string' },
          continue: { type: 'string', description: 'Present when another page follows.' },
          remainingItemCount: { type: 'integer' },
        },
      },
      items: { type: 'array', items: objectSchema(apiGroup, kind) },
    },
  };
}

const QUERY_TEXT = (description: string) => ({ type: 'string', description }) as const;

/** The list and watch options of the resource routes, passed on to the cluster as given; only `limit` is checked here. */
export const LIST_QUERY = {
  type: 'object',
  properties: {
    labelSelector: QUERY_TEXT('Only objects whose labels match (Kubernetes label selector syntax).'),
    fieldSelector: QUERY_TEXT('Only objects whose fields match, e.g. `metadata.name=x`.'),
    limit: {
      type: 'string',
      pattern: '^[0-9]+$',
      description: 'At most this many items (a non-negative integer); `continue` fetches the next page.',
    },
    continue: QUERY_TEXT('The `metadata.continue` of the page before.'),
    watch: QUERY_TEXT('`1` or `true`: stream watch events instead of a list, authorised as `watch`.'),
    resourceVersion: QUERY_TEXT('With `watch`: the version to watch from.'),
    allowWatchBookmarks: QUERY_TEXT('With `watch`: `true` to receive BOOKMARK events.'),
    timeoutSeconds: QUERY_TEXT('With `watch`: end the watch after this many seconds.'),
  },
} as const;

const PATCH_SCHEMA = {
  description:
    'A JSON merge patch (`Content-Type: application/merge-patch+json`), a JSON patch (`application/json-patch+json`), or a server-side apply configuration (`application/apply-patch+yaml`, with `fieldManager` and optionally `force`).',
  type: ['object', 'array'],
};

/** A route of a platform kind: every one needs a token. */
export type ResourceRoute = RouteDefinition & { auth: 'bearer'; querySchema?: typeof LIST_QUERY };

/** Kubernetes-style REST routes of every platform kind under `/apis/<apiGroup>/v1alpha1/`. */
export function resourceRoutes(apiGroup: string): ResourceRoute[] {
  const base = `/apis/${apiGroup}/${API_VERSION}`;
  return PLATFORM_KINDS.flatMap((kind) => {
    const collection = kind.namespaced ? `${base}/namespaces/{namespace}/${kind.plural}` : `${base}/${kind.plural}`;
    const item = `${collection}/{name}`;
    const object = objectSchema(apiGroup, kind);
    const where = kind.namespaced ? ' in a namespace' : '';
    const route = (
      operation: ResourceOperation,
      method: string,
      path: string,
      summary: string,
      extra: Partial<ResourceRoute> = {},
    ): ResourceRoute => ({
      method,
      path,
      target: 'resources',
      auth: 'bearer',
      operationId: resourceOperationId(kind, operation),
      summary: `${summary} Authorised as \`${RESOURCE_OPERATIONS[operation]}\` on \`${kind.plural}${operation.endsWith('Status') ? '/status' : ''}\`.`,
      responseSchema: object,
      resource: { kind: kind.kind, operation },
      pathParameters: { name: kind.nameSchema },
      statusErrors: true,
      bodyJudgedByCluster: true,
      ...extra,
    });
    return [
      route('list', 'GET', collection, `List ${kind.kind}s${where}. ${SELECTORS}`, {
        responseSchema: listSchema(apiGroup, kind),
        querySchema: LIST_QUERY,
      }),
      ...(kind.namespaced
        ? [
            {
              ...route('list', 'GET', `${base}/${kind.plural}`, `List ${kind.kind}s in every namespace. ${SELECTORS}`, {
                responseSchema: listSchema(apiGroup, kind),
                querySchema: LIST_QUERY,
              }),
              operationId: listAllNamespacesOperationId(kind),
            },
          ]
        : []),
      route(
        'create',
        'POST',
        collection,
        `Create a ${kind.kind}${where}.${kind.namespaced ? '' : ' Also creates the namespace of the same name, owned by the Project.'}`,
        { requestSchema: object, successStatus: 201 },
      ),
      route('get', 'GET', item, `Read a ${kind.kind}.`),
      route(
        'replace',
        'PUT',
        item,
        `Replace a ${kind.kind}; \`metadata.resourceVersion\` is required (409 when stale).`,
        { requestSchema: object },
      ),
      route('patch', 'PATCH', item, `Patch a ${kind.kind}.`, { requestSchema: PATCH_SCHEMA }),
      route(
        'delete',
        'DELETE',
        item,
        `Delete a ${kind.kind}${kind.namespaced ? '' : ' and its namespace'}. Options in a \`DeleteOptions\` body (JSON or YAML) or the query, each passed on or 400: \`dryRun\` (\`All\`: nothing deleted anywhere, the object answered), \`propagationPolicy\`, \`gracePeriodSeconds\`, and (body only) \`preconditions\` (\`uid\`, \`resourceVersion\`; a mismatch is 409).`,
      ),
      route('getStatus', 'GET', `${item}/status`, `Read a ${kind.kind} through its status subresource.`),
      route('replaceStatus', 'PUT', `${item}/status`, `Replace a ${kind.kind}'s status (other fields are ignored).`, {
        requestSchema: object,
      }),
      route('patchStatus', 'PATCH', `${item}/status`, `Patch a ${kind.kind}'s status.`, {
        requestSchema: PATCH_SCHEMA,
      }),
    ];
  });
}

const RUN_SCHEMA = {
  type: 'object',
  required: [
    'id',
    'project',
    'workspace',
    'type',
    'phase',
    'principal',
    'principalType',
    'createdAt',
    'startedAt',
    'finishedAt',
    'message',
    'statusMessage',
    'attempts',
    'controller',
    'cancelRequestedAt',
    'cancelRequestedBy',
  ],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'UUIDv7: time-ordered.' },
    project: { type: 'string' },
    workspace: { type: 'string' },
    type: { enum: ['plan', 'apply'] },
    phase: { enum: ['Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled'] },
    principal: {
      type: 'string',
      description: '`admin`, the OIDC username, or `system:serviceaccount:<namespace>:<name>`.',
    },
    principalType: { enum: ['admin', 'oidc', 'serviceaccount'] },
    createdAt: { type: 'string', format: 'date-time' },
    startedAt: { type: ['string', 'null'], format: 'date-time' },
    finishedAt: { type: ['string', 'null'], format: 'date-time' },
    message: { type: 'string', description: "The user's message from the start of the run." },
    statusMessage: { type: 'string', description: 'What the controller (or a lapsed lease) last said about the run.' },
    attempts: { type: 'integer', description: 'How many times a controller claimed the run.' },
    controller: { type: ['string', 'null'], description: 'The ServiceAccount of the controller that claimed it last.' },
    cancelRequestedAt: { type: ['string', 'null'], format: 'date-time' },
    cancelRequestedBy: { type: ['string', 'null'] },
  },
};

const RUN_PAGE_SCHEMA = {
  type: 'object',
  required: ['items'],
  properties: {
    items: { type: 'array', items: RUN_SCHEMA },
    continue: { type: 'string', description: 'Pass as `?continue=` for the next page; absent on the last page.' },
  },
};

const RUN_PAGE_QUERY = 'Newest first. Query: `limit` (1..500, default 50) and `continue`.';
const PAGE_PARAMETERS = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: 500,
    default: 50,
    description: 'At most this many runs.',
    'x-error-reason': 'InvalidLimit',
  },
  continue: {
    type: 'string',
    description: 'The `continue` of the page before (`InvalidContinueToken` when it is not one).',
  },
} as const;
const PAGE_QUERY = { type: 'object', properties: PAGE_PARAMETERS } as const;
const MESSAGE = { type: 'string', maxLength: 4096 } as const;
/** `verb` on a Project's `workspaces/runs`, named by the path's Workspace (or, without one, any Workspace there). */
const runsOf = (verb: string, named: boolean) =>
  ({
    attributes: {
      verb,
      group: 'platform',
      resource: 'workspaces',
      subresource: 'runs',
      namespaceParameter: 'project',
      ...(named ? { nameParameter: 'workspace' } : {}),
    },
  }) as const;
/** `verb` on `workspaces/<subresource>` named by the Workspace of the path's run, read first. */
export const runWorkspaceAuthorisation = <const Verb extends string, const Subresource extends string>(
  verb: Verb,
  subresource: Subresource,
) =>
  ({
    resolver: 'runWorkspace',
    attributes: { verb, group: 'platform', resource: 'workspaces', subresource, namespaceParameter: 'project' },
  }) as const;
const DATABASE_ERRORS = {
  503: 'The database (or the Kubernetes API, or the token verifier) is unavailable; retry after `Retry-After`.',
};

/** The run history routes under `/api/v1alpha1/projects/{project}/` (served by the resources function). */
export function runRoutes() {
  const project = '/api/v1alpha1/projects/{project}';
  return declareRoutes([
    {
      method: 'POST',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'startRun',
      authorisation: runsOf('create', true),
      summary:
        'Start a plan or apply run of a Workspace; it is recorded `Pending` with the caller as its principal. Authorised as `create` on `workspaces/runs` (name: the Workspace).',
      requestSchema: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: { type: { enum: ['plan', 'apply'] }, message: MESSAGE },
        'x-error-reason': 'InvalidRun',
      },
      responseSchema: RUN_SCHEMA,
      successStatus: 201,
      errorResponses: {
        400: 'Malformed body (`InvalidRun`).',
        404: 'No such Workspace (`WorkspaceNotFound`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'GET',
      path: `${project}/workspaces/{workspace}/runs`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listWorkspaceRuns',
      authorisation: runsOf('list', true),
      querySchema: PAGE_QUERY,
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
      authorisation: runsOf('list', false),
      querySchema: PAGE_QUERY,
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
      authorisation: runWorkspaceAuthorisation('get', 'runs'),
      summary: "Read one run. Authorised as `get` on `workspaces/runs` (name: the run's Workspace).",
      responseSchema: RUN_SCHEMA,
      errorResponses: { 404: 'No such run in this Project (`RunNotFound`).', ...DATABASE_ERRORS },
    },
    {
      method: 'POST',
      path: `${project}/runs/{run}/cancel`,
      target: 'resources',
      auth: 'bearer',
      // Cancelling is authorised like starting: whoever may start runs in the Workspace may cancel them.
      operationId: 'cancelRun',
      authorisation: runWorkspaceAuthorisation('create', 'runs'),
      summary:
        "Cancel a run: a Pending one is Cancelled at once; a Running one is marked (`cancelRequestedAt`) and its controller acknowledges at its next lease renewal. No body. Authorised like starting runs: `create` on `workspaces/runs` (name: the run's Workspace).",
      responseSchema: RUN_SCHEMA,
      errorResponses: {
        404: 'No such run in this Project (`RunNotFound`).',
        409: 'The run already Succeeded or Failed (`InvalidPhaseTransition`).',
        ...DATABASE_ERRORS,
      },
    },
  ]);
}

/** The workspace controller's routes: RBAC's `nonResourceURLs` decide who may call what, before any input is read. */
export const NON_RESOURCE = { nonResourcePath: true } as const;
const INTERNAL_AUTH =
  'Authorised as a non-resource SubjectAccessReview on the path (`nonResourceURLs: ["/internal/*"]`).';
const LEASE_SCHEMA = {
  type: 'object',
  required: ['id', 'expiresAt', 'attempt', 'nextLogSeq', 'cancelRequested'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Carried by every renewal, log append and phase change.' },
    expiresAt: { type: 'string', format: 'date-time' },
    attempt: { type: 'integer' },
    nextLogSeq: {
      type: 'integer',
      description: 'The number of the next log line: where this holder continues the log.',
    },
    cancelRequested: { type: 'boolean', description: 'A user asked to cancel: stop, then set the phase Cancelled.' },
  },
};
const LEASED_RUN_SCHEMA = {
  type: 'object',
  required: ['run', 'lease'],
  properties: { run: RUN_SCHEMA, lease: LEASE_SCHEMA },
};
const LEASE_ID = {
  type: 'string',
  format: 'uuid',
  description: 'The `lease.id` of the claim.',
  'x-error-reason': 'InvalidLease',
} as const;
const LEASE_SECONDS = {
  type: 'integer',
  minimum: 1,
  maximum: 600,
  default: 60,
  description: 'How long the lease lasts; renew well before (a third is usual).',
  'x-error-reason': 'InvalidLease',
} as const;
const CLAIMED_NAME = { type: 'string', minLength: 1, maxLength: 253, 'x-error-reason': 'InvalidClaim' } as const;
const LEASE_ERRORS = {
  404: 'No such run (`RunNotFound`).',
  409: "The lease is not the current holder's (`LeaseNotHeld`).",
  ...DATABASE_ERRORS,
};

/** The workspace controller's routes under `/internal/` (the catch-all `/internal/*` comes after them). */
export function internalRoutes() {
  const route = <
    const Method extends string,
    const Path extends string,
    const Id extends string,
    const Extra extends Partial<RouteDefinition>,
  >(
    method: Method,
    path: Path,
    operationId: Id,
    summary: string,
    extra: Extra,
  ) => ({
    method,
    path,
    target: 'internal' as const,
    auth: 'bearer' as const,
    operationId,
    summary: `${summary} ${INTERNAL_AUTH}`,
    authorisation: NON_RESOURCE,
    ...extra,
  });
  return declareRoutes([
    route(
      'GET',
      '/internal/runs',
      'listRunsInPhase',
      'Runs in one phase across every Project, oldest first: a view of the work queue. Query: `phase` (default Pending), `limit` (1..500, default 50), `continue`.',
      {
        querySchema: {
          type: 'object',
          properties: {
            phase: { enum: ['Pending', 'Running'], default: 'Pending', 'x-error-reason': 'InvalidPhase' },
            ...PAGE_PARAMETERS,
          },
        },
        responseSchema: RUN_PAGE_SCHEMA,
        errorResponses: { 400: 'Bad `phase`, `limit` or `continue`.', ...DATABASE_ERRORS },
      },
    ),
    route(
      'POST',
      '/internal/runs/claim',
      'claimRun',
      'Claim the oldest Pending run (of one Project or Workspace, if named) with a lease: it becomes Running, `attempts` + 1, the caller is recorded as its `controller`. Leases that lapsed are collected first. 204 when no run is waiting.',
      {
        requestSchema: {
          type: 'object',
          additionalProperties: false,
          properties: {
            project: CLAIMED_NAME,
            workspace: { ...CLAIMED_NAME, description: 'Only with `project`.' },
            leaseSeconds: LEASE_SECONDS,
          },
          dependentRequired: { workspace: ['project'] },
        },
        responseSchema: {
          ...LEASED_RUN_SCHEMA,
          required: [...LEASED_RUN_SCHEMA.required, 'unmaskedSensitiveValues'],
          properties: {
            ...LEASED_RUN_SCHEMA.properties,
            unmaskedSensitiveValues: {
              type: 'array',
              items: { type: 'string' },
              description:
                'Names (never values) of the run\'s sensitive variables shorter than 4 characters: they are not masked in its log. Every other sensitive value, and its base64, URL and JSON encodings, becomes `***` in the lines appended (docs/run-history.md, "Masking").',
            },
          },
        },
        errorResponses: { 204: 'No run is waiting (no body).', ...DATABASE_ERRORS },
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/lease',
      'renewRunLease',
      'Renew the lease for `leaseSeconds` from now; `lease.cancelRequested` says whether a user asked to cancel.',
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId'],
          additionalProperties: false,
          properties: { leaseId: LEASE_ID, leaseSeconds: LEASE_SECONDS },
        },
        responseSchema: LEASED_RUN_SCHEMA,
        errorResponses: LEASE_ERRORS,
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/phase',
      'setRunPhase',
      "End a running run: Succeeded, Failed, or Cancelled to acknowledge a requested cancellation; `message` becomes the run's `statusMessage`. A retry of the same call answers the run again.",
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId', 'phase'],
          additionalProperties: false,
          properties: {
            leaseId: LEASE_ID,
            phase: { enum: ['Succeeded', 'Failed', 'Cancelled'], 'x-error-reason': 'InvalidPhase' },
            message: { ...MESSAGE, 'x-error-reason': 'InvalidMessage' },
          },
        },
        responseSchema: RUN_SCHEMA,
        errorResponses: {
          ...LEASE_ERRORS,
          409: "The lease is not the current holder's (`LeaseNotHeld`), or Cancelled without a requested cancellation (`InvalidPhaseTransition`).",
        },
      },
    ),
    route(
      'POST',
      '/internal/runs/{run}/logs',
      'appendRunLogs',
      "Append a numbered chunk of log lines: `firstSeq` is the number of its first line (`lease.nextLogSeq` at first). The run's sensitive values (as resolved at the claim) are stored, notified and streamed as `***`, also when split over two lines or chunks. A chunk stored before is acknowledged with `duplicate: true` and not stored again; durable once answered.",
      {
        requestSchema: {
          type: 'object',
          required: ['leaseId', 'firstSeq', 'lines'],
          additionalProperties: false,
          properties: {
            leaseId: LEASE_ID,
            firstSeq: { type: 'integer', minimum: 1, 'x-error-reason': 'InvalidLogLines' },
            lines: {
              type: 'array',
              minItems: 1,
              maxItems: 5000,
              items: { type: 'string' },
              'x-error-reason': 'InvalidLogLines',
            },
          },
        },
        responseSchema: {
          type: 'object',
          required: ['firstSeq', 'lastSeq', 'nextSeq', 'duplicate'],
          properties: {
            firstSeq: { type: 'integer' },
            lastSeq: { type: 'integer' },
            nextSeq: { type: 'integer' },
            duplicate: { type: 'boolean' },
          },
        },
        errorResponses: {
          ...LEASE_ERRORS,
          409: "Not the holder's lease (`LeaseNotHeld`), a gap before `firstSeq` (`LogSequenceGap`), or other lines over stored ones (`LogChunkConflict`).",
        },
      },
    ),
    route(
      'GET',
      '/internal/runs/{run}/variables',
      'getRunVariables',
      "The run's variables, resolved: the Workspace's VariableSets in `spec.variableSetRefs` order (a later one replaces a variable of the same name), sensitive values read from their Secrets. Only here, never logged. Needs the current lease in the `Run-Lease` header.",
      {
        responseSchema: {
          type: 'object',
          required: ['variables'],
          properties: {
            variables: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'category', 'hcl', 'sensitive', 'value', 'variableSet'],
                properties: {
                  name: { type: 'string' },
                  category: { enum: ['terraform', 'env'] },
                  hcl: { type: 'boolean' },
                  sensitive: { type: 'boolean' },
                  value: { type: 'string' },
                  variableSet: { type: 'string' },
                },
              },
            },
          },
        },
        errorResponses: {
          ...LEASE_ERRORS,
          400: 'No `Run-Lease` header, or not a lease id.',
          404: 'No such run (`RunNotFound`) or Workspace (`WorkspaceNotFound`).',
          409: "Not the holder's lease (`LeaseNotHeld`), or a VariableSet or Secret key the Workspace refers to is missing (`VariableSetNotFound`, `VariableSecretNotFound`).",
        },
      },
    ),
  ]);
}
