import { API_VERSION } from '../kinds/platform-kinds.ts';
import type { KindDescription } from '../kinds/platform-kind-descriptions.ts';

// The `components.schemas` of /openapi.json for what the resource routes carry: each kind as its
// CustomResourceDefinition describes it, its list, and the Kubernetes envelopes around them
// (Status, Table, watch events). The CRDs stay the single source of the kinds' fields.

/** `#/components/schemas/<name>`. */
export function schemaRef(name: string): { $ref: string } {
  return { $ref: `#/components/schemas/${name}` };
}

const OBJECT_META = {
  type: 'object',
  description: 'Standard object metadata (a subset of Kubernetes ObjectMeta).',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string', description: 'Required by a replace: a stale one answers 409.' },
    generation: { type: 'integer' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: { type: 'array', items: { type: 'object' } },
    managedFields: { type: 'array', items: { type: 'object' } },
  },
};

const LIST_META = {
  type: 'object',
  properties: {
    resourceVersion: { type: 'string' },
    continue: { type: 'string', description: 'Present when another page follows: pass it as `?continue=`.' },
    remainingItemCount: { type: 'integer' },
  },
};

/** A Kubernetes `Status`: every error of a resource route, and what some deletes answer. It also carries the contract's `error`. */
const STATUS_SCHEMA = {
  type: 'object',
  required: ['kind', 'apiVersion', 'status', 'code'],
  properties: {
    kind: { const: 'Status' },
    apiVersion: { const: 'v1' },
    metadata: { type: 'object' },
    status: { enum: ['Success', 'Failure'] },
    message: { type: 'string' },
    reason: {
      type: 'string',
      description: "Kubernetes' machine-readable reason: NotFound, AlreadyExists, Conflict, Invalid, Forbidden, ...",
    },
    code: { type: 'integer' },
    details: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        group: { type: 'string' },
        kind: { type: 'string' },
        uid: { type: 'string' },
        causes: {
          type: 'array',
          items: {
            type: 'object',
            properties: { reason: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } },
          },
        },
      },
    },
    error: { type: 'string', description: 'The message again: every error body of the API has `error` and `reason`.' },
  },
};

/** `application/json;as=Table;v=v1;g=meta.k8s.io`: what `kubectl get` reads. */
const TABLE_SCHEMA = {
  type: 'object',
  required: ['kind', 'apiVersion', 'rows'],
  description:
    'Answered instead of the object or list when `Accept` asks for `application/json;as=Table;v=v1;g=meta.k8s.io` (or v1beta1).',
  properties: {
    kind: { const: 'Table' },
    apiVersion: { enum: ['meta.k8s.io/v1', 'meta.k8s.io/v1beta1'] },
    metadata: LIST_META,
    columnDefinitions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string' },
          format: { type: 'string' },
          description: { type: 'string' },
          priority: { type: 'integer' },
        },
      },
    },
    rows: {
      type: 'array',
      items: {
        type: 'object',
        required: ['cells'],
        properties: { cells: { type: 'array' }, object: { type: 'object' } },
      },
    },
  },
};

/** One line of a watch stream (`?watch=1`): newline-separated JSON objects. */
const WATCH_EVENT_SCHEMA = {
  type: 'object',
  required: ['type', 'object'],
  properties: {
    type: { enum: ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] },
    object: {
      type: 'object',
      description: 'The object (a Table row set when a Table was asked for; a `Status` on ERROR).',
    },
  },
};

/** A kind's schema: the CRD's, with apiVersion and kind fixed and the metadata fields spelled out. */
function kindSchema(apiGroup: string, { kind, schema }: KindDescription): Record<string, unknown> {
  const crdProperties = (schema.properties ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    description: `${String(schema.description ?? `A ${kind.kind}.`)} (CustomResourceDefinition ${kind.plural}.${apiGroup}.)`,
    required: [...new Set(['apiVersion', 'kind', 'metadata', ...((schema.required as string[] | undefined) ?? [])])],
    properties: {
      ...crdProperties,
      apiVersion: { const: `${apiGroup}/${API_VERSION}` },
      kind: { const: kind.kind },
      metadata: OBJECT_META,
    },
  };
}

function listSchema(apiGroup: string, kind: string): Record<string, unknown> {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'items'],
    properties: {
      apiVersion: { const: `${apiGroup}/${API_VERSION}` },
      kind: { const: `${kind}List` },
      metadata: LIST_META,
      items: { type: 'array', items: schemaRef(kind) },
    },
  };
}

/** Every kind and its list, and Status, Table and WatchEvent. */
export function resourceComponentSchemas(apiGroup: string, kinds: KindDescription[]): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      kinds.flatMap((description) => [
        [description.kind.kind, kindSchema(apiGroup, description)],
        [`${description.kind.kind}List`, listSchema(apiGroup, description.kind.kind)],
      ]),
    ),
    Status: STATUS_SCHEMA,
    Table: TABLE_SCHEMA,
    WatchEvent: WATCH_EVENT_SCHEMA,
  };
}
