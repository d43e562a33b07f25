// The `audit.k8s.io/v1` Event as kube-apiserver writes it and its readers parse it, transcribed from
// k8s.io/apiserver/pkg/apis/audit/v1/types.go (Event, ObjectReference), k8s.io/api/authentication/v1
// (UserInfo) and k8s.io/apimachinery (Status, MicroTime). Unknown fields are refused, as a strict
// decoder refuses them, so a field we invent (or misname) fails here rather than in a SIEM.
import { Ajv } from 'ajv';

const MICRO_TIME = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}(Z|[+-]\\d{2}:\\d{2})$',
};
const STRING_LIST = { type: 'array', items: { type: 'string' } };

const USER_INFO = {
  type: 'object',
  additionalProperties: false,
  properties: {
    username: { type: 'string' },
    uid: { type: 'string' },
    groups: STRING_LIST,
    extra: { type: 'object', additionalProperties: STRING_LIST },
  },
};

const OBJECT_REFERENCE = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resource: { type: 'string' },
    namespace: { type: 'string' },
    name: { type: 'string' },
    uid: { type: 'string' },
    apiGroup: { type: 'string' },
    apiVersion: { type: 'string' },
    resourceVersion: { type: 'string' },
    subresource: { type: 'string' },
  },
};

const STATUS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    kind: { type: 'string' },
    apiVersion: { type: 'string' },
    metadata: { type: 'object' },
    status: { enum: ['Success', 'Failure'] },
    message: { type: 'string' },
    reason: { type: 'string' },
    details: { type: 'object' },
    code: { type: 'integer' },
  },
};

export const KUBE_AUDIT_EVENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user'],
  properties: {
    kind: { const: 'Event' },
    apiVersion: { const: 'audit.k8s.io/v1' },
    level: { enum: ['None', 'Metadata', 'Request', 'RequestResponse'] },
    auditID: { type: 'string', minLength: 1 },
    stage: { enum: ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] },
    requestURI: { type: 'string' },
    verb: { type: 'string' },
    user: USER_INFO,
    impersonatedUser: USER_INFO,
    sourceIPs: STRING_LIST,
    userAgent: { type: 'string' },
    objectRef: OBJECT_REFERENCE,
    responseStatus: STATUS,
    requestObject: {},
    responseObject: {},
    requestReceivedTimestamp: MICRO_TIME,
    stageTimestamp: MICRO_TIME,
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(KUBE_AUDIT_EVENT_SCHEMA);

/** Why an event is not a valid `audit.k8s.io/v1` Event; empty when it is. */
export function kubeAuditEventErrors(event: unknown): string[] {
  if (validate(event)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
}
