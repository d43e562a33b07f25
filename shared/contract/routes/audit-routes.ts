import { declareRoutes } from './route-definition.ts';

/** An RFC 3339 time from 1970 on (a JavaScript date and PostgreSQL both hold it). */
const TIME = {
  type: 'string',
  pattern: '^(19[7-9]\\d|[2-9]\\d{3})-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$',
  maxLength: 40,
} as const;
const TEXT = { type: 'string', maxLength: 253 } as const;

/** An audit event as stored: the `audit.k8s.io/v1` Event (docs/audit.md). */
const AUDIT_EVENT_SCHEMA = {
  type: 'object',
  required: ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user'],
  properties: {
    kind: { const: 'Event' },
    apiVersion: { const: 'audit.k8s.io/v1' },
    level: { enum: ['Metadata', 'Request'] },
    auditID: { type: 'string' },
    stage: { enum: ['RequestReceived', 'ResponseStarted', 'ResponseComplete'] },
    requestURI: { type: 'string' },
    verb: { type: 'string' },
    user: { type: 'object' },
    impersonatedUser: { type: 'object' },
    sourceIPs: { type: 'array', items: { type: 'string' } },
    userAgent: { type: 'string' },
    objectRef: { type: 'object' },
    responseStatus: { type: 'object' },
    requestReceivedTimestamp: { type: 'string' },
    stageTimestamp: { type: 'string' },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;

/** The audit trail's routes (served by the resources function, which has the database). */
export function auditRoutes() {
  return declareRoutes([
    {
      method: 'GET',
      path: '/api/v1alpha1/audit/events',
      target: 'resources',
      auth: 'bearer',
      operationId: 'listAuditEvents',
      // Not the non-resource URL /api/v1alpha1/audit/*: every cluster grants `get` on `/api/*` to every
      // authenticated user (the system:discovery ClusterRole), so that would open the trail to anyone.
      authorization: { attributes: { verb: 'list', group: 'audit.k8s.io', resource: 'events' } },
      summary:
        'Audit events, oldest first, in keyset pages (docs/audit.md). Authorized as `list` on `events` in the API group `audit.k8s.io` (cluster-wide), which no default ClusterRole but `cluster-admin` grants; the admin bypasses.',
      querySchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          since: { ...TIME, description: 'Events at or after this time (RFC 3339).' },
          until: { ...TIME, description: 'Events before this time (RFC 3339).' },
          user: {
            ...TEXT,
            description: '`user.username`, exactly (`admin`, an OIDC username, `system:serviceaccount:…`).',
          },
          verb: { ...TEXT, description: 'The verb, exactly (`create`, `delete`, `post`, …).' },
          resource: { ...TEXT, description: '`objectRef.resource` (`workspaces`, `projects`, …).' },
          namespace: { ...TEXT, description: '`objectRef.namespace`: the Project.' },
          name: { ...TEXT, description: '`objectRef.name`.' },
          run: {
            type: 'string',
            pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
            description: "A run's id (`objectRef.uid`).",
          },
          outcome: {
            enum: ['success', 'failure', 'refused'],
            description: '`success` (status below 400), `failure` (400 and above), `refused` (401, 403, 429).',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: 500,
            default: 100,
            description: 'At most this many events.',
            'x-error-reason': 'InvalidLimit',
          },
          continue: {
            type: 'string',
            maxLength: 200,
            description: 'The `metadata.continue` of the page before (`InvalidContinueToken` when it is not one).',
          },
        },
      },
      responseSchema: {
        type: 'object',
        required: ['kind', 'apiVersion', 'metadata', 'items'],
        properties: {
          kind: { const: 'EventList' },
          apiVersion: { const: 'audit.k8s.io/v1' },
          metadata: { type: 'object', properties: { continue: { type: 'string' } } },
          items: { type: 'array', items: AUDIT_EVENT_SCHEMA },
        },
      },
      errorResponses: {
        400: 'A bad filter, `limit` or `continue`.',
        503: 'The database is unavailable, or none is configured; retry after `Retry-After`.',
      },
    },
  ]);
}
