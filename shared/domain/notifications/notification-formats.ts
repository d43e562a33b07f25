import { createHmac } from 'node:crypto';
import type { OutboundRequest } from '../outbound/outbound-call.ts';
import type { OutboxEvent } from '../outbound/outbox-event.ts';
import {
  type FreezeEventData,
  type NotificationEvent,
  type RolloutStageEventData,
  type RunEventData,
  subjectKindOf,
  type TokenEventData,
  type WindowEventData,
  workspaceOf,
} from './notification-events.ts';

/** What every format says about one event: the event's name, what it happened to, and where a person sees it. */
export interface NotificationMessage {
  event: OutboxEvent;
  name: NotificationEvent;
  /** The page in the console (CONSOLE_URL) of the run, the Project's tokens, the Rollout or the Project; else its record in the API. */
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

/**
 * The JSON body every format but chat carries as its data: the record of what it is about under its kind's name
 * (`run`, `token`, `rollout`, `window`, `freeze`), and a run's Workspace.
 */
function payload(message: NotificationMessage): Record<string, unknown> {
  const { event } = message;
  const workspace = workspaceOf(event);
  return {
    event: message.name,
    project: event.scope,
    ...(workspace === undefined ? {} : { workspace }),
    link: message.link,
    [subjectKindOf(event) ?? 'run']: event.data,
  };
}

/** Where the event happened, as CloudEvents' `source`: the run's Workspace, the Project's tokens, the Rollout, or the Project. */
function sourceOf(message: NotificationMessage): string {
  const { event, apiGroup } = message;
  switch (subjectKindOf(event)) {
    case 'token':
      return `/api/v1alpha1/projects/${event.scope}/tokens`;
    case 'rollout':
      return `/apis/${apiGroup}/v1alpha1/namespaces/${event.scope}/rollouts/${String(event.data.rollout)}`;
    case 'window':
    case 'freeze':
      return `/apis/${apiGroup}/v1alpha1/projects/${event.scope}`;
    default:
      return `/apis/${apiGroup}/v1alpha1/namespaces/${event.scope}/workspaces/${workspaceOf(event)}`;
  }
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
  StageAwaitingApproval: 'awaits approval',
  StageApproved: 'was approved',
  StagePromoted: 'was promoted',
  StageFailed: 'failed',
  StageApprovalWithdrawn: 'lost its approval: it was withdrawn',
  ApprovalWindowOpened: 'opened',
  ApprovalWindowClosed: 'closed',
  FreezeStarted: 'was frozen',
  FreezeLifted: 'is no longer frozen',
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

/** The chat line of a stage's event: the stage, its Rollout and revision, what happened, and who approved. */
function stageChatLine(message: NotificationMessage): string {
  const stage = message.event.data as unknown as RolloutStageEventData;
  const approvers =
    message.name === 'StageApproved' && stage.approvedBy.length > 0
      ? ` by ${stage.approvedBy.map(chatText).join(', ')}`
      : '';
  return `Stage ${chatText(stage.stage)} of rollout <${message.link}|${chatText(stage.project)}/${chatText(stage.rollout)}> (revision ${chatText(stage.revision)}) ${CHAT_WORDS[message.name]}${approvers}`;
}

/** The chat line of a window's event: the window, its kind and Project, and until when it is open. */
function windowChatLine(message: NotificationMessage): string {
  const window = message.event.data as unknown as WindowEventData;
  const until = window.change === 'opened' && window.closesAt ? ` until ${window.closesAt}` : '';
  return `Approval window ${chatText(window.window)} (${window.kind}) of <${message.link}|${chatText(window.project)}> ${CHAT_WORDS[message.name]}${until}`;
}

/** The chat line of the freeze's event: the Project, and why when it was frozen. */
function freezeChatLine(message: NotificationMessage): string {
  const freeze = message.event.data as unknown as FreezeEventData;
  const reason = freeze.frozen && freeze.reason ? `: ${chatText(freeze.reason)}` : '';
  return `Project <${message.link}|${chatText(freeze.project)}> ${CHAT_WORDS[message.name]}${reason}`;
}

const CHAT_LINES = {
  run: runChatLine,
  token: tokenChatLine,
  rollout: stageChatLine,
  window: windowChatLine,
  freeze: freezeChatLine,
} as const;

/** A Slack-compatible incoming-webhook message: one line of text with a link to what it is about, as `mrkdwn`. */
export function slackRequest(message: NotificationMessage, receiver: ResolvedReceiver): OutboundRequest {
  const text = CHAT_LINES[subjectKindOf(message.event) ?? 'run'](message);
  return {
    url: receiver.url,
    headers: { ...receiver.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  };
}
