import type { Filter } from './filter-chain.ts';
import { whenAnswered } from './filter-chain.ts';

/** Every answer, errors and preflights included, tells the browser not to sniff types and not to leak the URL. */
export function withSecurityHeaders(): Filter {
  return (request, next) =>
    whenAnswered(next(request), (response) => {
      // Two stores, not Object.assign of a constant object: this runs on every answer.
      const { headers } = response;
      headers['x-content-type-options'] = 'nosniff';
      headers['referrer-policy'] = 'no-referrer';
      return response;
    });
}
