import type { RunPhase } from './run.ts';

/**
 * Who moves a run: a user on the public routes, the controller holding its lease, the lapse of that lease, or
 * the run's tasks (issue 48: their callbacks and their timeout).
 */
export type PhaseActor = 'user' | 'controller' | 'lease lapse' | 'run tasks';

/** One row of the phase machine. */
export interface PhaseTransition {
  from: RunPhase;
  to: RunPhase;
  by: PhaseActor;
  /** The call, and what it needs, in the words of the docs. */
  requires: string;
}

/** Claims a run may have; a lease that lapses on the last one fails the run instead of queueing it again. */
export const MAX_RUN_ATTEMPTS = 3;

/**
 * The phase machine of a run: the code takes the legal "from" phases of every change out of this
 * table, and docs/run-history.md shows it as `phaseMachineTable()` renders it (a test keeps them equal).
 */
export const PHASE_TRANSITIONS: readonly PhaseTransition[] = [
  {
    from: 'AwaitingTasks',
    to: 'Pending',
    by: 'run tasks',
    requires:
      'every run task of the stage answered `passed`, or `failed` (or no answer within `RUN_TASK_TIMEOUT`) only where advisory or overridden (docs/run-tasks.md); a run with no task at its stage is recorded `Pending` at once',
  },
  {
    from: 'AwaitingTasks',
    to: 'Failed',
    by: 'run tasks',
    requires:
      'every run task of the stage answered, and a mandatory one `failed` or gave no answer within `RUN_TASK_TIMEOUT`: `statusMessage` names it',
  },
  {
    from: 'AwaitingTasks',
    to: 'Cancelled',
    by: 'user',
    requires: '`POST /api/v1alpha1/projects/{project}/runs/{run}/cancel`, allowed to start runs in the Workspace',
  },
  {
    from: 'Failed',
    to: 'Pending',
    by: 'user',
    requires:
      '`POST /api/v1alpha1/projects/{project}/runs/{run}/override-tasks` with a reason, allowed to `override` runs in the Workspace, on a run that failed on a mandatory run task before any claim',
  },
  {
    from: 'Pending',
    to: 'Running',
    by: 'controller',
    requires:
      '`POST /internal/runs/claim`: the oldest Pending run (of a Project or Workspace, if named) gets a new lease; `attempts` + 1; the controller is recorded',
  },
  {
    from: 'Running',
    to: 'Succeeded',
    by: 'controller',
    requires:
      "`POST /internal/runs/{run}/phase` with the current, unexpired lease; a plan may add `hasChanges` (true or false: the run's `planHasChanges`; 400 `InvalidPlanChanges` with another phase or on an apply)",
  },
  {
    from: 'Running',
    to: 'Failed',
    by: 'controller',
    requires: '`POST /internal/runs/{run}/phase` with the current, unexpired lease',
  },
  {
    from: 'Running',
    to: 'Cancelled',
    by: 'controller',
    requires:
      '`POST /internal/runs/{run}/phase` with the current, unexpired lease, once a cancellation was requested (the acknowledgement)',
  },
  {
    from: 'Pending',
    to: 'Cancelled',
    by: 'user',
    requires: '`POST /api/v1alpha1/projects/{project}/runs/{run}/cancel`, allowed to start runs in the Workspace',
  },
  {
    from: 'Running',
    to: 'Running',
    by: 'user',
    requires: 'the same call: records `cancelRequestedAt`; the controller sees `cancelRequested` at its next renewal',
  },
  {
    from: 'Running',
    to: 'Pending',
    by: 'lease lapse',
    requires: `the lease expired, no cancellation was requested, \`attempts\` < ${MAX_RUN_ATTEMPTS}: back in the queue (collected by the next claim)`,
  },
  {
    from: 'Running',
    to: 'Failed',
    by: 'lease lapse',
    requires: `the lease expired on attempt ${MAX_RUN_ATTEMPTS}: the run fails, saying why in \`statusMessage\``,
  },
  {
    from: 'Running',
    to: 'Cancelled',
    by: 'lease lapse',
    requires: 'the lease expired after a cancellation was requested',
  },
];

/** The phases `by` may move a run to `to` from, per the table. */
export function phasesFrom(to: RunPhase, by: PhaseActor): RunPhase[] {
  return PHASE_TRANSITIONS.filter((transition) => transition.to === to && transition.by === by).map(
    (transition) => transition.from,
  );
}

/** The table as the Markdown docs/run-history.md carries. */
export function phaseMachineTable(): string {
  const rows = PHASE_TRANSITIONS.map(({ from, to, by, requires }) => `| ${from} | ${to} | ${by} | ${requires} |`);
  return ['| from | to | who | what is required |', '|---|---|---|---|', ...rows].join('\n');
}
