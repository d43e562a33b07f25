import { declareRoutes } from './route-definition.ts';
import { DATABASE_ERRORS } from './run-routes.ts';

/** `verb` on the Notification the path names, in the Project's namespace. */
const notificationOf = <const Verb extends string>(verb: Verb) =>
  ({
    attributes: {
      verb,
      group: 'platform',
      resource: 'notifications',
      namespaceParameter: 'project',
      nameParameter: 'notification',
    },
  }) as const;

const ATTEMPT_SCHEMA = {
  type: 'object',
  required: ['delivery', 'event', 'eventType', 'subject', 'state', 'attempt', 'startedAt', 'latencyMs'],
  properties: {
    delivery: { type: 'string', description: 'The delivery (one event to this Notification): what redelivery names.' },
    event: { type: 'string', format: 'uuid', description: "The event's stable id (CloudEvents `id`, `webhook-id`)." },
    eventType: { type: 'string', description: 'The outbox event, e.g. `run.failed`.' },
    subject: { type: 'string', description: '`runs/<id>`.' },
    state: { enum: ['pending', 'delivered', 'failed'], description: 'Where the delivery stands now.' },
    attempt: { type: 'integer' },
    startedAt: { type: 'string', format: 'date-time' },
    statusCode: { type: 'integer', description: "The receiver's status; absent when no answer came." },
    latencyMs: { type: 'integer' },
    error: { type: 'string', description: 'Why the attempt did not deliver; absent when it did.' },
    answer: { type: 'string', description: 'The first 512 bytes of the answer.' },
  },
};

/** The delivery log of a Notification (issue 47, item 3; docs/notifications.md), served by the resources function. */
export function notificationRoutes() {
  const notification = '/api/v1alpha1/projects/{project}/notifications/{notification}';
  return declareRoutes([
    {
      method: 'GET',
      path: `${notification}/deliveries`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'listNotificationDeliveries',
      authorization: notificationOf('get'),
      querySchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 500, default: 50, 'x-error-reason': 'InvalidLimit' },
        },
      },
      summary:
        "A Notification's recent delivery attempts, newest first: each with its time, status code, latency, error and the first bytes of the answer. Query: `limit` (1..500, default 50). Authorized as `get` on the Notification.",
      responseSchema: {
        type: 'object',
        required: ['items'],
        properties: { items: { type: 'array', items: ATTEMPT_SCHEMA } },
      },
      errorResponses: {
        400: 'Bad `limit`.',
        404: 'No such Notification, and no delivery of one of that name is kept (`NotFound`).',
        ...DATABASE_ERRORS,
      },
    },
    {
      method: 'POST',
      path: `${notification}/deliveries/{delivery}/redeliver`,
      target: 'resources',
      auth: 'bearer',
      operationId: 'redeliverNotification',
      authorization: notificationOf('update'),
      summary:
        'Send one event to the Notification again: a new delivery of the same event (same id) with attempts of its own, due at the next sweep. No body. Authorized as `update` on the Notification.',
      successStatus: 201,
      responseSchema: {
        type: 'object',
        required: ['delivery', 'event'],
        properties: { delivery: { type: 'string' }, event: { type: 'string', format: 'uuid' } },
      },
      errorResponses: { 404: 'No such delivery of this Notification (`NotFound`).', ...DATABASE_ERRORS },
    },
  ]);
}
