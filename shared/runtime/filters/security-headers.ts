import type { Filter } from './filter-chain.ts';
import { whenAnswered } from './filter-chain.ts';

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** Every answer, errors and preflights included, tells the browser not to sniff types and not to leak the URL. */
export function withSecurityHeaders(): Filter {
  return (request, next) =>
    whenAnswered(next(request), (response) => {
      Object.assign(response.headers, SECURITY_HEADERS);
      return response;
    });
}
