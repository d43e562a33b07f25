import { DatabaseUnavailableError } from '../database/database-unavailable-error.ts';
import { ApiError, badRequest, notFound, serviceUnavailable } from '../http/api-error.ts';
import { InvalidContinueTokenError, InvalidPhaseTransitionError, InvalidRunError, RunNotFoundError } from './run-errors.ts';

/** The HTTP error of a run-store failure (docs/run-history.md, "Failure behaviour"); other errors pass unchanged. */
export function runStoreHttpError(error: unknown): unknown {
  if (error instanceof DatabaseUnavailableError) {
    return serviceUnavailable('the run history database is unavailable; retry shortly', error.reason, error.retryAfterSeconds);
  }
  if (error instanceof RunNotFoundError) return notFound(error.message, error.reason);
  if (error instanceof InvalidPhaseTransitionError) return new ApiError(409, error.reason, error.message);
  if (error instanceof InvalidContinueTokenError || error instanceof InvalidRunError) return badRequest(error.message, error.reason);
  return error;
}
