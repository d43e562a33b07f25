import type { OutboxEvent } from '../outbound/outbox-event.ts';

/** The events a Notification may ask for (its CRD's `spec.events`). */
export const NOTIFICATION_EVENTS = [
  'RunCreated',
  'PlanFinished',
  'PlanFinishedWithChanges',
  'PlanFinishedWithoutChanges',
  'AwaitingApproval',
  'ApplyStarted',
  'RunSucceeded',
  'RunFailed',
  'RunCancelled',
  'OverrideUsed',
  'TokenCreated',
  'TokenRevoked',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The run as the outbox records it (`data` of a `run.*` event). */
export interface RunEventData {
  id: string;
  project: string;
  workspace: string;
  type: 'plan' | 'apply';
  phase: string;
  principal: string;
  message: string;
  statusMessage: string;
  /** A succeeded plan's report: changes proposed, none, or null when its controller did not say. */
  planHasChanges?: boolean | null;
  /** Set on `run.override_used`: who let the apply through a closed window or freeze, why, and what it overrode. */
  override?: { by: string; reason: string; overrode: string } | null;
}

/** A Project token as the outbox records it (`data` of a `token.*` event): what the token list shows, never the token. */
export interface TokenEventData {
  project: string;
  name: string;
  description: string;
  role: string;
  creator: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

/** A run's events carry its Workspace; a token's belong to the Project alone (Workspace filters do not apply). */
export function workspaceOf(event: OutboxEvent): string | undefined {
  return event.type.startsWith('run.') ? (event.data as unknown as RunEventData).workspace : undefined;
}

/**
 * The notification events an outbox event is, most specific first: a plan that succeeded is a finished plan
 * that awaits approval to apply, and a run that succeeded; with changes or without when its controller said
 * which. A run queued again after a lapsed lease is none.
 */
export function notificationEventsOf(event: OutboxEvent): NotificationEvent[] {
  const run = event.data as unknown as RunEventData;
  switch (event.type) {
    case 'run.created':
      return ['RunCreated'];
    case 'run.running':
      return run.type === 'apply' ? ['ApplyStarted'] : [];
    case 'run.succeeded':
      return run.type === 'plan'
        ? [...planFinished(run), 'PlanFinished', 'AwaitingApproval', 'RunSucceeded']
        : ['RunSucceeded'];
    case 'run.failed':
      return ['RunFailed'];
    case 'run.cancelled':
      return ['RunCancelled'];
    case 'run.override_used':
      return ['OverrideUsed'];
    case 'token.created':
      return ['TokenCreated'];
    case 'token.revoked':
      return ['TokenRevoked'];
    default:
      return [];
  }
}

/** `PlanFinishedWithChanges` or `PlanFinishedWithoutChanges` as the controller reported; neither when it did not. */
function planFinished(run: RunEventData): NotificationEvent[] {
  if (run.planHasChanges === true) return ['PlanFinishedWithChanges'];
  if (run.planHasChanges === false) return ['PlanFinishedWithoutChanges'];
  return [];
}
