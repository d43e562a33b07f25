import { attachRequestInput } from '../request-validation.ts';
import { refuseImpersonation } from '../impersonation.ts';
import type { Filter } from './filter-chain.ts';

/**
 * Refuses impersonation headers, then gives the request its `input` and checks it now, the query and
 * then the body against the route's schemas: the last step before the handler, after authorisation,
 * so a refused caller gets its 403 whatever it sent and a handler never runs on input its route refuses.
 */
export function withRequestInput(): Filter {
  return (request, next) => {
    refuseImpersonation(request);
    attachRequestInput(request);
    request.input.query();
    request.input.body();
    return next(request);
  };
}
