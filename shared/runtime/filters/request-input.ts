import { attachRequestInput } from '../request-validation.ts';
import type { Filter } from './filter-chain.ts';

/**
 * Gives the request its `input` (query and body checked against the route's schemas). The checks
 * run when the handler first reads them, after it has authorised the caller, so a refused caller
 * gets its 403 whatever it sent.
 */
export function withRequestInput(): Filter {
  return (request, next) => {
    attachRequestInput(request);
    return next(request);
  };
}
