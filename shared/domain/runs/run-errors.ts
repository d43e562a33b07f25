import { CatalogueError } from '../../base/http/error-catalogue.ts';
import type { RunPhase } from './run.ts';

/** No run with this id exists (in this project). HTTP: 404. */
export class RunNotFoundError extends CatalogueError {
  constructor(runId: string) {
    super('RunNotFound', `run ${runId} not found`);
    this.name = 'RunNotFoundError';
  }
}

/** The requested phase change is not allowed from the run's current phase. HTTP: 409. */
export class InvalidPhaseTransitionError extends CatalogueError {
  readonly from: RunPhase;
  readonly to: RunPhase;

  constructor(runId: string, from: RunPhase, to: RunPhase) {
    super('InvalidPhaseTransition', `run ${runId} cannot move from ${from} to ${to}`);
    this.name = 'InvalidPhaseTransitionError';
    this.from = from;
    this.to = to;
  }
}

/** The fields of a new run are missing or inconsistent. HTTP: 400. */
export class InvalidRunError extends CatalogueError {
  constructor(detail: string) {
    super('InvalidRun', `invalid run: ${detail}`);
    this.name = 'InvalidRunError';
  }
}

/** The call carries a lease that is not the run's current, unexpired one. HTTP: 409. */
export class LeaseNotHeldError extends CatalogueError {
  constructor(runId: string, detail: string) {
    super('LeaseNotHeld', `the lease is not the current holder's for run ${runId}: ${detail}`);
    this.name = 'LeaseNotHeldError';
  }
}

/** A log chunk starts after the next expected line: lines in between would be missing. HTTP: 409. */
export class LogSequenceGapError extends CatalogueError {
  readonly nextSeq: number;

  constructor(runId: string, firstSeq: number, nextSeq: number) {
    super(
      'LogSequenceGap',
      `run ${runId}: a chunk starting at line ${firstSeq} leaves a gap; the next line is ${nextSeq}`,
    );
    this.name = 'LogSequenceGapError';
    this.nextSeq = nextSeq;
  }
}

/** A log chunk overlaps stored lines with other text: it is not the chunk that stored them. HTTP: 409. */
export class LogChunkConflictError extends CatalogueError {
  /** `differingSeq`: the first line of the chunk whose text is not the stored line's. */
  constructor(runId: string, firstSeq: number, differingSeq: number, nextSeq: number) {
    super(
      'LogChunkConflict',
      `run ${runId}: line ${differingSeq} of the chunk starting at line ${firstSeq} differs from the stored line ${differingSeq} (the next line is ${nextSeq})`,
    );
    this.name = 'LogChunkConflictError';
  }
}

/** A run approved for apply that is not a succeeded plan run. HTTP: 409. */
export class NotASucceededPlanError extends CatalogueError {
  constructor(runId: string, type: string, phase: RunPhase) {
    super(
      'NotASucceededPlan',
      `run ${runId} is a ${phase} ${type} run; only a Succeeded plan run can be approved for apply`,
    );
    this.name = 'NotASucceededPlanError';
  }
}

/** A plan approved for apply whose Workspace is no longer the object and spec it was planned for. HTTP: 409. */
export class PlanWorkspaceChangedError extends CatalogueError {
  constructor(runId: string, change: string) {
    super(
      'PlanWorkspaceChanged',
      `plan run ${runId} cannot be applied: ${change}; plan again and approve the new plan`,
    );
    this.name = 'PlanWorkspaceChangedError';
  }
}

/** A plan approved for apply that is no longer what would be applied: superseded or too old. HTTP: 409. */
export class PlanStaleError extends CatalogueError {
  constructor(runId: string, detail: string) {
    super('PlanStale', `plan run ${runId} is stale: ${detail}; plan again and approve the new plan`);
    this.name = 'PlanStaleError';
  }
}

/** An approver approving a plan for apply a second time (issue 45, item 2): each approver counts once. HTTP: 409. */
export class PlanAlreadyApprovedError extends CatalogueError {
  constructor(runId: string, approver: string) {
    super(
      'AlreadyApproved',
      `${approver} has already approved plan run ${runId} for apply; it needs another approver (withdraw first to approve again)`,
    );
    this.name = 'PlanAlreadyApprovedError';
  }
}

/** A withdrawal of a plan approval that was never given (or was withdrawn already). HTTP: 404. */
export class PlanApprovalNotFoundError extends CatalogueError {
  constructor(runId: string, approver: string) {
    super('ApprovalNotFound', `${approver} has no approval of plan run ${runId} for apply to withdraw`);
    this.name = 'PlanApprovalNotFoundError';
  }
}

/** A withdrawal of a plan approval once the approvals started its apply run: it cannot be taken back. HTTP: 409. */
export class ApplyAlreadyStartedError extends CatalogueError {
  constructor(runId: string, applyRun: string) {
    super(
      'ApplyAlreadyStarted',
      `plan run ${runId} was approved for apply and its apply run ${applyRun} exists; an approval cannot be withdrawn once the apply started (cancel the apply run instead)`,
    );
    this.name = 'ApplyAlreadyStartedError';
  }
}

/** The run's log was removed by RUN_LOG_RETENTION; the run record stays. HTTP: 410. */
export class RunLogRemovedError extends CatalogueError {
  /** When retention removed it (ISO 8601). */
  readonly removedAt: string;

  constructor(runId: string, removedAt: string) {
    super('RunLogRemoved', `the log of run ${runId} was removed at ${removedAt} (RUN_LOG_RETENTION)`);
    this.name = 'RunLogRemovedError';
    this.removedAt = removedAt;
  }
}
