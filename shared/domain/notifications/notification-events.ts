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
