import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import { apiError, retryAfter } from '../http/error-catalogue.ts';
import {
  InvalidContinueTokenError,
  InvalidPhaseTransitionError,
  InvalidRunError,
  LeaseNotHeldError,
  LogChunkConflictError,
  LogSequenceGapError,
  RunNotFoundError,
} from './run-errors.ts';

/** The HTTP error of a run-store failure (docs/run-history.md, "Failure behaviour"); other errors pass unchanged. */
export function runStoreHttpError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) {
    return apiError(
      error.reason,
      'the run history database is unavailable; retry shortly',
      retryAfter(error.retryAfterSeconds),
    );
  }
  const answered = [
    RunNotFoundError,
    InvalidPhaseTransitionError,
    LeaseNotHeldError,
    LogSequenceGapError,
    LogChunkConflictError,
    InvalidContinueTokenError,
    InvalidRunError,
  ];
  if (answered.some((kind) => error instanceof kind)) {
    const { reason, message } = error as InstanceType<(typeof answered)[number]>;
    return apiError(reason, message);
  }
  return error;
}
