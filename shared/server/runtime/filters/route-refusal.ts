import type { Filter } from './filter-chain.ts';

/** Answers what routing could not serve (404, 405, 400 for an invalid path parameter), now that the caller is known. */
export function withRouteRefusal(): Filter {
  return (request, next) => {
    if (request.lookupFailure) throw request.lookupFailure;
    return next(request);
  };
}
