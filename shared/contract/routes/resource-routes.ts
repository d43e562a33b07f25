// The routes of the platform's kinds under `/apis/<group>/v1alpha1/`, generated per kind from PLATFORM_KINDS.
import {
  API_VERSION,
  PLATFORM_KINDS,
  RESOURCE_OPERATIONS,
  listAllNamespacesOperationId,
  resourceOperationId,
  type PlatformKind,
  type ResourceOperation,
} from '../kinds/platform-kinds.ts';
import type { RouteDefinition } from './route-definition.ts';
import { verbsDecidedWith } from './route-authorization.ts';

const SELECTORS =
  "Query: `labelSelector`, `fieldSelector`, `limit` and `continue` (Kubernetes list conventions); with `watch=1` (or `true`) the cluster's watch events stream instead (with `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`), authorized as `watch`, until the caller's token expires; at most MAX_WATCHES_PER_PRINCIPAL watches per principal at once (429 `TooManyWatches` beyond it). `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` answers a Table (docs/kubectl.md).";

/** Issue 44, item 11 (shared/contract/routes/closed-input.ts, `refusesNamespaceQuery`). */
const NAMESPACE_FROM_PATH = " The namespace is the path's: `?namespace=` is 400 `BadRequest`.";

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

/** The list and watch options of the resource routes, passed on to the cluster as given (it checks them); only `limit` is checked here. */
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
    watch: QUERY_TEXT(
      'Any value but `0` and `false` (as kube-apiserver reads it): stream watch events instead of a list, authorized as `watch`.',
    ),
    resourceVersion: QUERY_TEXT('The version to list at (with `resourceVersionMatch`), or with `watch` to watch from.'),
    resourceVersionMatch: QUERY_TEXT(
      'How `resourceVersion` applies: `NotOlderThan` or `Exact` (the cluster checks it).',
    ),
    timeoutSeconds: QUERY_TEXT('End the list or watch after this many seconds.'),
    allowWatchBookmarks: QUERY_TEXT('With `watch`: `true` to receive BOOKMARK events.'),
    sendInitialEvents: QUERY_TEXT(
      'With `watch` and `resourceVersionMatch=NotOlderThan`: the current objects first, then a BOOKMARK marking their end.',
    ),
  },
} as const;

const PATCH_SCHEMA = {
  description:
    'A JSON merge patch (`Content-Type: application/merge-patch+json`), a JSON patch (`application/json-patch+json`), or a server-side apply configuration (`application/apply-patch+yaml`, with `fieldManager` and optionally `force`).',
  type: ['object', 'array'],
};

/** What a write that may need `approve` (a Rollout's, issue 37) says of it, and may be refused with besides. */
const APPROVAL_NOTE =
  " A write whose result grants or loosens a stage's approval also needs `approve` on the object, decided with the write's own verb (403 naming it otherwise; docs/resources.md, Approvals).";
const mayNeedApprove = (kind: PlatformKind, operation: ResourceOperation) =>
  verbsDecidedWith(kind, operation).includes('approve');
const APPROVAL_REFUSALS = {
  403: 'The write grants or loosens a stage approval and the caller may not `approve` the object.',
  409: 'Four eyes: the caller authored the revision whose stage it approves (`ApproverIsAuthor`), or no author is recorded for it (`RevisionAuthorUnknown`).',
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
      summary: `${summary} Authorized as \`${RESOURCE_OPERATIONS[operation]}\` on \`${kind.plural}${operation.endsWith('Status') ? '/status' : ''}\`.${mayNeedApprove(kind, operation) ? APPROVAL_NOTE : ''}`,
      responseSchema: object,
      resource: { kind: kind.kind, operation },
      ...(mayNeedApprove(kind, operation) ? { errorResponses: APPROVAL_REFUSALS } : {}),
      pathParameters: { name: kind.nameSchema },
      statusErrors: true,
      bodyJudgedByCluster: true,
      ...extra,
    });
    return [
      route(
        'list',
        'GET',
        collection,
        `List ${kind.kind}s${where}. ${SELECTORS}${kind.namespaced ? NAMESPACE_FROM_PATH : ''}`,
        {
          responseSchema: listSchema(apiGroup, kind),
          querySchema: LIST_QUERY,
        },
      ),
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
