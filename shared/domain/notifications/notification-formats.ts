import { createHmac } from 'node:crypto';
import type { OutboundRequest } from '../outbound/outbound-call.ts';
import type { OutboxEvent } from '../outbound/outbox-event.ts';
import { type NotificationEvent, type RunEventData, type TokenEventData, workspaceOf } from './notification-events.ts';

/** What every format says about one event: the event's name, what it happened to, and where a person sees it. */
export interface NotificationMessage {
  event: OutboxEvent;
  name: NotificationEvent;
  /** The run's (or the Project's tokens') page in the console (CONSOLE_URL), else its record in the API. */
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

const isTokenEvent = (event: OutboxEvent) => event.type.startsWith('token.');

/** The JSON body every format but chat carries as its data: the run's record, or the token's (`token`). */
function payload(message: NotificationMessage): Record<string, unknown> {
  const { event } = message;
  const workspace = workspaceOf(event);
  return {
    event: message.name,
    project: event.scope,
    ...(workspace === undefined ? {} : { workspace }),
    link: message.link,
    [isTokenEvent(event) ? 'token' : 'run']: event.data,
  };
}

/** Where the event happened, as CloudEvents' `source`: the run's Workspace, or the Project's tokens. */
function sourceOf(message: NotificationMessage): string {
  const { event } = message;
  const workspace = workspaceOf(event);
  return workspace === undefined
    ? `/api/v1alpha1/projects/${event.scope}/tokens`
    : `/apis/${message.apiGroup}/v1alpha1/namespaces/${event.scope}/workspaces/${workspace}`;
}

/** CloudEvents 1.0, structured content mode (`application/cloudevents+json`). */
export function cloudEventRequest(message: NotificationMessage, receiver: ResolvedReceiver): OutboundRequest {
  const { event } = message;
  const body = {
    specversion: '1.0',
    id: event.id,
    source: sourceOf(message),
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
  OverrideUsed: 'was let through by an override',
  TokenCreated: 'was created',
  TokenRevoked: 'was revoked',
};

const chatText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The chat line of a run's event: the run, its Workspace, what happened, and the status or the override's reason. */
function runChatLine(message: NotificationMessage): string {
  const run = message.event.data as unknown as RunEventData;
  const said = run.override
    ? ` by ${chatText(run.override.by)} (${chatText(run.override.overrode)}): ${chatText(run.override.reason)}`
    : run.statusMessage
      ? `: ${chatText(run.statusMessage)}`
      : '';
  return `${run.type === 'plan' ? 'Plan' : 'Apply'} <${message.link}|${run.id.slice(0, 8)}> of ${chatText(run.project)}/${chatText(run.workspace)} ${CHAT_WORDS[message.name]}${said}`;
}

/** The chat line of a token's event: the token, its Project, what happened, its role and creator. */
function tokenChatLine(message: NotificationMessage): string {
  const token = message.event.data as unknown as TokenEventData;
  return `Token <${message.link}|${chatText(token.name)}> of ${chatText(token.project)} ${CHAT_WORDS[message.name]} (${chatText(token.role)}, created by ${chatText(token.creator)})`;
}

/** A Slack-compatible incoming-webhook message: one line of text with a link to the run or the tokens, as `mrkdwn`. */
export function slackRequest(message: NotificationMessage, receiver: ResolvedReceiver): OutboundRequest {
  const text = isTokenEvent(message.event) ? tokenChatLine(message) : runChatLine(message);
  return {
    url: receiver.url,
    headers: { ...receiver.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  };
}
