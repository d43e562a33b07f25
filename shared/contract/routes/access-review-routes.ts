import type { ProtobufMessage } from '../../base/http/kubernetes-protobuf.ts';
import { declareRoutes } from './route-definition.ts';
import { DNS_LABEL } from '../kinds/object-names.ts';

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview in protobuf (k8s.io/api/authorization/v1/generated.proto):
 * metadata and status are read but not looked at; the spec's attributes field by field.
 */
const SELF_SUBJECT_ACCESS_REVIEW_PROTOBUF: ProtobufMessage = {
  1: { name: 'metadata', message: {} },
  2: {
    name: 'spec',
    message: {
      1: {
        name: 'resourceAttributes',
        message: {
          1: { name: 'namespace' },
          2: { name: 'verb' },
          3: { name: 'group' },
          4: { name: 'version' },
          5: { name: 'resource' },
          6: { name: 'subresource' },
          7: { name: 'name' },
          8: { name: 'fieldSelector', message: {} },
          9: { name: 'labelSelector', message: {} },
        },
      },
      2: { name: 'nonResourceAttributes', message: { 1: { name: 'path' }, 2: { name: 'verb' } } },
    },
  },
  3: { name: 'status', message: {} },
};

/** A name-like field of an access review: what RBAC rules name (`*` included). */
const FIELD = { type: 'string', maxLength: 253 } as const;
const META = {
  type: 'object',
  description: 'Accepted as Kubernetes clients send it (`creationTimestamp: null`); not echoed.',
} as const;

const RESOURCE_ATTRIBUTES = {
  type: 'object',
  additionalProperties: false,
  required: ['verb', 'resource'],
  properties: {
    namespace: { ...FIELD, description: 'Empty or absent: every namespace (cluster-wide).' },
    verb: {
      ...FIELD,
      minLength: 1,
      description: '`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, … or `*`.',
    },
    group: { ...FIELD, description: 'The API group; empty for the core group.' },
    version: { ...FIELD, description: 'Ignored, as by kube-apiserver: RBAC does not look at versions.' },
    resource: { ...FIELD, minLength: 1 },
    subresource: FIELD,
    name: FIELD,
  },
} as const;

const NON_RESOURCE_ATTRIBUTES = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'verb'],
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^/' },
    verb: { ...FIELD, minLength: 1 },
  },
} as const;

const REVIEW_STATUS = {
  type: 'object',
  required: ['allowed'],
  properties: {
    allowed: { type: 'boolean' },
    denied: { type: 'boolean' },
    reason: { type: 'string' },
    evaluationError: { type: 'string' },
  },
} as const;

/** authorization.k8s.io/v1 SelfSubjectRulesReview in protobuf: the spec's namespace. */
const SELF_SUBJECT_RULES_REVIEW_PROTOBUF: ProtobufMessage = {
  1: { name: 'metadata', message: {} },
  2: { name: 'spec', message: { 1: { name: 'namespace' } } },
  3: { name: 'status', message: {} },
};

const RULES_STATUS = {
  type: 'object',
  required: ['resourceRules', 'nonResourceRules', 'incomplete'],
  properties: {
    resourceRules: { type: 'array', items: { type: 'object' } },
    nonResourceRules: { type: 'array', items: { type: 'object' } },
    incomplete: { type: 'boolean' },
    evaluationError: { type: 'string' },
  },
} as const;

/** A review's request body: its kind, metadata and status as Kubernetes clients send them (not looked at), and its spec. */
function reviewRequest<const Kind extends string, const Spec extends Record<string, unknown>>(kind: Kind, spec: Spec) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['spec'],
    properties: {
      apiVersion: { const: 'authorization.k8s.io/v1' },
      kind: { const: kind },
      metadata: META,
      spec,
      status: { type: 'object', description: 'Ignored: the answer fills it.' },
    },
  } as const;
}

/** A review's answer: the spec as asked, and the status the server filled in. */
function reviewResponse<const Kind extends string, const Status extends Record<string, unknown>>(
  kind: Kind,
  status: Status,
) {
  return {
    type: 'object',
    required: ['kind', 'apiVersion', 'spec', 'status'],
    properties: {
      kind: { const: kind },
      apiVersion: { const: 'authorization.k8s.io/v1' },
      metadata: { type: 'object' },
      spec: { type: 'object' },
      status,
    },
  } as const;
}

const ANY_CALLER =
  "Any authenticated caller asks about itself (as Kubernetes' `system:basic-user` allows), answered by the authorizer the routes use: the admin by its bypass, an OIDC user with its mapped ServiceAccount's RBAC, a ServiceAccount with its own.";

/**
 * What a caller may do, asked of this server in Kubernetes' own terms (`kubectl auth can-i`, and a
 * console showing only the buttons its user may press): SelfSubjectAccessReview and
 * SelfSubjectRulesReview, served by the resources function.
 */
export function accessReviewRoutes() {
  return declareRoutes([
    {
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      target: 'resources',
      auth: 'bearer',
      operationId: 'createSelfSubjectAccessReview',
      anyAuthenticatedCaller: true,
      statusErrors: true,
      successStatus: 201,
      protobufBody: SELF_SUBJECT_ACCESS_REVIEW_PROTOBUF,
      summary: `Whether the caller may do one thing (\`kubectl auth can-i <verb> <resource>\`): \`status.allowed\`, and why. A non-resource path this server routes is answered as its route is authorized (not allowed where no route answers). ${ANY_CALLER}`,
      requestSchema: reviewRequest('SelfSubjectAccessReview', {
        type: 'object',
        additionalProperties: false,
        properties: { resourceAttributes: RESOURCE_ATTRIBUTES, nonResourceAttributes: NON_RESOURCE_ATTRIBUTES },
        // Exactly one of the two, as kube-apiserver requires.
        minProperties: 1,
        maxProperties: 1,
        description: 'Exactly one of `resourceAttributes` and `nonResourceAttributes`.',
      }),
      responseSchema: reviewResponse('SelfSubjectAccessReview', REVIEW_STATUS),
      errorResponses: { 400: 'Not a SelfSubjectAccessReview: exactly one of the attributes, each field a string.' },
    },
    {
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      target: 'resources',
      auth: 'bearer',
      operationId: 'createSelfSubjectRulesReview',
      anyAuthenticatedCaller: true,
      statusErrors: true,
      successStatus: 201,
      protobufBody: SELF_SUBJECT_RULES_REVIEW_PROTOBUF,
      summary: `The RBAC rules that apply to the caller in one namespace (\`kubectl auth can-i --list\`): the admin's are every permission; a ServiceAccount's, and an OIDC user's mapped ServiceAccounts', are read from the cluster's bindings, their non-resource URLs cut to those a route is authorized by. \`incomplete\` when a bound role is missing. ${ANY_CALLER}`,
      requestSchema: reviewRequest('SelfSubjectRulesReview', {
        type: 'object',
        additionalProperties: false,
        required: ['namespace'],
        properties: {
          // A namespace name, as a path's: it becomes a segment of the path the bindings are listed at,
          // where `..` listed every namespace's RoleBindings.
          namespace: { ...DNS_LABEL, description: 'The namespace whose rules are listed, with the cluster-wide ones.' },
        },
      }),
      responseSchema: reviewResponse('SelfSubjectRulesReview', RULES_STATUS),
      errorResponses: {
        400: 'Not a SelfSubjectRulesReview with a namespace.',
        503: 'The cluster cannot be asked for the bindings now; retry after `Retry-After`.',
      },
    },
  ]);
}
