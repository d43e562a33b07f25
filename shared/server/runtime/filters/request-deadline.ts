import { parseGoDuration } from '../../../base/config/go-duration.ts';
import { apiError } from '../../../base/http/error-catalogue.ts';
import type { RouteDefinition } from '../../../contract/routes/route-definition.ts';
import { isWatchRequest } from '../../../contract/routes/route-authorization.ts';
import { readsTimeout } from '../../../contract/routes/closed-input.ts';
import type { Filter } from './filter-chain.ts';

/** The longest deadline a request may ask for, and what `timeout=0` (none of the client's) gets: kube-apiserver's default `--request-timeout`. */
export const MAX_REQUEST_TIMEOUT_MS = 60_000;

// kube-apiserver's words, which client-go and kubectl print as they come.
const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';
const TIMED_OUT = 'Timeout: request did not complete within requested timeout - context deadline exceeded';

/**
 * kube-apiserver's `timeout` (WithRequestDeadline), which client-go sends on every request
 * (`kubectl --request-timeout=20s` is `?timeout=20s`): the request's deadline, a Go duration counted from
 * now, at most MAX_REQUEST_TIMEOUT_MS (a longer one, zero or a negative one is that maximum, as
 * kube-apiserver caps it). The handler gets it as `request.deadline`, which the calls it awaits carry
 * (the cluster's, the database's); past it the request is answered 504 `Timeout` whatever it still
 * awaits. A malformed value is 400. A watch and the run-log stream are long-running, as kube-apiserver's
 * watches: their `timeout` is checked, not applied (a watch lasts `timeoutSeconds`). Without `timeout`,
 * nothing is set: no timer on the requests that do not ask for one.
 */
export function withRequestDeadline(): Filter {
  return (request, next) => {
    const value = request.route && readsTimeout(request.route) && request.query.get('timeout');
    if (!value) return next(request);
    const route = request.route!;
    const asked = parseGoDuration(value);
    if (asked === null) throw apiError('BadRequest', `${INVALID_TIMEOUT} - time: invalid duration "${value}"`);
    if (isLongRunning(route, request.query)) return next(request);
    const timeoutMs = asked > 0 && asked < MAX_REQUEST_TIMEOUT_MS ? asked : MAX_REQUEST_TIMEOUT_MS;
    const expired = apiError('Timeout', TIMED_OUT);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(expired), timeoutMs);
    request.deadline = deadline.signal;
    let answer: ReturnType<typeof next>;
    try {
      answer = next(request);
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    if (!(answer instanceof Promise)) {
      clearTimeout(timer);
      return answer;
    }
    // Whichever comes first: the answer, or the deadline (what the handler awaits is aborted with it).
    return new Promise((resolve, reject) => {
      deadline.signal.addEventListener('abort', () => reject(expired), { once: true });
      answer.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  };
}

/** A watch (`?watch`) or a stream: open for as long as it lasts, as kube-apiserver's long-running requests. */
function isLongRunning(route: RouteDefinition, query: URLSearchParams): boolean {
  return route.target === 'run-logs' || (route.resource?.operation === 'list' && isWatchRequest(query));
}
