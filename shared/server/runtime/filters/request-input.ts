import { payloadTooLarge } from '../../../base/http/error-catalogue.ts';
import { attachRequestInput, schemaChecksPending } from '../request-validation.ts';
import { refuseImpersonation } from '../impersonation.ts';
import type { Answer, Filter, FilteredRequest, NextFilter } from './filter-chain.ts';

/**
 * Refuses a body the adapter found over the size limit (413, now that the caller is known: the refusal
 * is audited under its name), then impersonation headers, then gives the request its `input` and checks
 * it now, the query and then the body against the route's schemas: the last step before the handler,
 * after authorization, so a refused caller gets its 403 whatever it sent and a handler never runs on
 * input its route refuses.
 */
export function withRequestInput(): Filter {
  return (request, next) => {
    if (request.bodyOverLimit !== undefined) throw payloadTooLarge(request.bodyOverLimit);
    refuseImpersonation(request);
    // The schema checker is loaded by the first request whose route has schemas (request-validation.ts).
    const pending = schemaChecksPending(request.route);
    return pending ? pending.then(() => checkedInput(request, next)) : checkedInput(request, next);
  };
}

function checkedInput(request: FilteredRequest, next: NextFilter): Answer {
  attachRequestInput(request);
  request.input.query();
  request.input.body();
  return next(request);
}
