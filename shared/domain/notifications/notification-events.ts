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
  'StageAwaitingApproval',
  'StageApproved',
  'StagePromoted',
  'StageFailed',
  'StageApprovalWithdrawn',
  'ApprovalWindowOpened',
  'ApprovalWindowClosed',
  'FreezeStarted',
  'FreezeLifted',
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

/** A Rollout stage as the outbox records it (`data` of a `rollout.stage_*` event, shared/domain/cluster-events/). */
export interface RolloutStageEventData {
  project: string;
  rollout: string;
  uid: string;
  labels: Record<string, string>;
  stage: string;
  stageIndex: number;
  revision: string;
  phase: string;
  rolloutPhase: string | null;
  state: string;
  previousState: string | null;
  approvedBy: string[];
}

/** A window of a Project's approval policy that opened or closed (`data` of a `window.*` event). */
export interface WindowEventData {
  project: string;
  window: string;
  kind: 'allow' | 'deny';
  change: 'opened' | 'closed';
  openedAt: string | null;
  closesAt?: string;
  closedAt?: string | null;
}

/** The Project's freeze that started or was lifted (`data` of a `freeze.*` event). */
export interface FreezeEventData {
  project: string;
  frozen: boolean;
  reason: string | null;
  since: string | null;
}

/** What an outbox event is about: a run, a Project token, a Rollout stage, or a gate of the Project's approval policy. */
export type EventSubjectKind = 'run' | 'token' | 'rollout' | 'window' | 'freeze';

const SUBJECT_KINDS: readonly string[] = ['run', 'token', 'rollout', 'window', 'freeze'] satisfies EventSubjectKind[];

/** The kind of what an event is about, by its type's prefix (`run.created`: a run); undefined for another family's. */
export function subjectKindOf(event: OutboxEvent): EventSubjectKind | undefined {
  const prefix = event.type.slice(0, event.type.indexOf('.'));
  return SUBJECT_KINDS.includes(prefix) ? (prefix as EventSubjectKind) : undefined;
}

/** A Rollout stage's event names its Rollout (filters by Rollout name and labels apply to it alone). */
export function rolloutOf(event: OutboxEvent): RolloutStageEventData | undefined {
  return subjectKindOf(event) === 'rollout' ? (event.data as unknown as RolloutStageEventData) : undefined;
}

/** A run's events carry its Workspace; a token's belong to the Project alone (Workspace filters do not apply). */
export function workspaceOf(event: OutboxEvent): string | undefined {
  return subjectKindOf(event) === 'run' ? (event.data as unknown as RunEventData).workspace : undefined;
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
    case 'rollout.stage_awaiting_approval':
      return ['StageAwaitingApproval'];
    case 'rollout.stage_approved':
      return ['StageApproved'];
    case 'rollout.stage_promoted':
      return ['StagePromoted'];
    case 'rollout.stage_failed':
      return ['StageFailed'];
    case 'rollout.stage_approval_withdrawn':
      return ['StageApprovalWithdrawn'];
    case 'window.opened':
      return ['ApprovalWindowOpened'];
    case 'window.closed':
      return ['ApprovalWindowClosed'];
    case 'freeze.started':
      return ['FreezeStarted'];
    case 'freeze.lifted':
      return ['FreezeLifted'];
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
