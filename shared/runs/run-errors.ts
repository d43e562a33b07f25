import type { RunPhase } from './run.ts';

/** No run with this id exists (in this project). HTTP: 404. */
export class RunNotFoundError extends Error {
  readonly reason = 'RunNotFound';

  constructor(runId: string) {
    super(`run ${runId} not found`);
    this.name = 'RunNotFoundError';
  }
}

/** The requested phase change is not allowed from the run's current phase. HTTP: 409. */
export class InvalidPhaseTransitionError extends Error {
  readonly reason = 'InvalidPhaseTransition';
  readonly from: RunPhase;
  readonly to: RunPhase;

  constructor(runId: string, from: RunPhase, to: RunPhase) {
    super(`run ${runId} cannot move from ${from} to ${to}`);
    this.name = 'InvalidPhaseTransitionError';
    this.from = from;
    this.to = to;
  }
}

/** A `continue` token that this service did not issue (or that was altered). HTTP: 400. */
export class InvalidContinueTokenError extends Error {
  readonly reason = 'InvalidContinueToken';

  constructor() {
    super('the continue token is malformed; start again from the first page');
    this.name = 'InvalidContinueTokenError';
  }
}

/** The fields of a new run are missing or inconsistent. HTTP: 400. */
export class InvalidRunError extends Error {
  readonly reason = 'InvalidRun';

  constructor(detail: string) {
    super(`invalid run: ${detail}`);
    this.name = 'InvalidRunError';
  }
}
