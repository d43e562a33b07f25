import { createHmac } from 'node:crypto';
import type { OutboundRequest } from '../outbound/outbound-call.ts';
import type { OutboxEvent } from '../outbound/outbox-event.ts';
import type { NotificationEvent, RunEventData } from './notification-events.ts';

/** What every format says about one event: the event's name, the run, and where a person sees it. */
export interface NotificationMessage {
  event: OutboxEvent;
  name: NotificationEvent;
  run: RunEventData;
  /** The run's page in the console (CONSOLE_URL), else its record in the API. */
  link: string;
  /** The API group, reversed, prefixes CloudEvents types (`dev.platform.RunSucceeded`). */
  apiGroup: string;
}

/** A secret-free receiver: where to send, and what the Secrets gave (the URL may be one). */
export interface ResolvedReceiver {
  url: string;
  headers: Record<string, string>;
  signingKey?: string;
}

/** The JSON body every format but chat carries as its data. */
function payload(message: NotificationMessage): Record<string, unknown> {
  return {
    event: message.name,
    project: message.run.project,
    workspace: message.run.workspace,
    link: message.link,
    run: message.event.data,
  };
}

/** CloudEvents 1.0, structured content mode (`application/cloudevents+json`). */
export function cloudEventRequest(message: NotificationMessage, receiver: ResolvedReceiver): OutboundRequest {
  const { event, run } = message;
  const body = {
    specversion: '1.0',
    id: event.id,
    source: `/apis/${message.apiGroup}/v1alpha1/namespaces/${run.project}/workspaces/${run.workspace}`,
    type: `${message.apiGroup.split('.').reverse().join('.')}.${message.name}`,
    subject: event.subject,
    time: event.createdAt,
    datacontenttype: 'application/json',
    data: payload(message),
  };
  return {
    url: receiver.url,
    headers: { ...receiver.headers, 'content-type': 'application/cloudevents+json; charset=utf-8' },
    body: JSON.stringify(body),
  };
}

/**
 * A generic webhook signed as the Standard Webhooks specification says: `webhook-id` (the event's stable id),
 * `webhook-timestamp` (seconds), `webhook-signature` `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * keyed with the base64 after `whsec_`.
 */
export function webhookRequest(
  message: NotificationMessage,
  receiver: ResolvedReceiver,
  now: Date = new Date(),
): OutboundRequest {
  const body = JSON.stringify({ type: message.name, timestamp: now.toISOString(), data: payload(message) });
  const timestamp = String(Math.floor(now.getTime() / 1_000));
  const key = Buffer.from((receiver.signingKey ?? '').replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${message.event.id}.${timestamp}.${body}`).digest('base64');
  return {
    url: receiver.url,
    headers: {
      ...receiver.headers,
      'content-type': 'application/json',
      'webhook-id': message.event.id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
    body,
  };
}

const CHAT_WORDS: Record<NotificationEvent, string> = {
  RunCreated: 'was started',
  PlanFinished: 'finished its plan',
  PlanFinishedWithChanges: 'finished its plan: it proposes changes',
  PlanFinishedWithoutChanges: 'finished its plan: no changes',
  AwaitingApproval: 'awaits approval to apply',
  ApplyStarted: 'started applying',
  RunSucceeded: 'succeeded',
  RunFailed: 'failed',
  RunCancelled: 'was cancelled',
};

/** A Slack-compatible incoming-webhook message: one line of text with a link to the run, as `mrkdwn`. */
export function slackRequest(message: NotificationMessage, receiver: ResolvedReceiver): OutboundRequest {
  const { run } = message;
  const chatText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const status = run.statusMessage ? `: ${chatText(run.statusMessage)}` : '';
  const text = `${run.type === 'plan' ? 'Plan' : 'Apply'} <${message.link}|${run.id.slice(0, 8)}> of ${chatText(run.project)}/${chatText(run.workspace)} ${CHAT_WORDS[message.name]}${status}`;
  return {
    url: receiver.url,
    headers: { ...receiver.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  };
}
