import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import { ApiError, badRequest, notFound, serviceUnavailable } from '../http/api-error.ts';
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
    return serviceUnavailable('the run history database is unavailable; retry shortly', error.reason, error.retryAfterSeconds);
  }
  if (error instanceof RunNotFoundError) return notFound(error.message, error.reason);
  const conflicts = [InvalidPhaseTransitionError, LeaseNotHeldError, LogSequenceGapError, LogChunkConflictError];
  if (conflicts.some((kind) => error instanceof kind)) {
    const { reason, message } = error as Error & { reason: string };
    return new ApiError(409, reason, message);
  }
  if (error instanceof InvalidContinueTokenError || error instanceof InvalidRunError) return badRequest(error.message, error.reason);
  return error;
}
