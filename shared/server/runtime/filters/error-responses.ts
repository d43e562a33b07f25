import { ApiError } from '../../../base/http/api-error.ts';
import type { ApiResponse } from '../../../base/http/api-request.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import { classifyDatabaseError } from '../../../base/database/database-unavailable-error.ts';
import type { Logger } from '../../../base/logging/logger.ts';
import { redactPathAndQuery } from '../../../base/logging/redaction.ts';
import { errorAnswer } from '../../../contract/routes/error-dress.ts';
import type { Filter, FilteredRequest } from './filter-chain.ts';

/**
 * Turns what the rest of the chain throws into an answer: an ApiError into its JSON body, dressed as
 * its route declares (a Kubernetes `Status` or `{error, reason}`: error-dress.ts, the one place that
 * decides), anything else (a bug) into a 500 with no detail, logged. Filters outside this one always
 * get an answer.
 */
export function withErrorResponses(logger: Logger): Filter {
  return (request, next) => {
    const toResponse = (error: unknown) => errorResponse(error, request, logger);
    try {
      const answer = next(request);
      return answer instanceof Promise ? answer.catch(toResponse) : answer;
    } catch (error) {
      return toResponse(error);
    }
  };
}

function errorResponse(thrown: unknown, request: FilteredRequest, logger: Logger): ApiResponse {
  // Domain errors are ApiErrors (CatalogueError); a database connection failure not yet classified
  // by the store that met it is one too. Nothing is mapped per function.
  const error = classifyDatabaseError(thrown);
  if (error instanceof ApiError) return errorAnswer(error, request);
  logger.error('unhandled error', {
    error,
    method: request.method,
    path: redactPathAndQuery(request.path, request.query),
  });
  return apiError('InternalError', 'internal error').toResponse();
}
