import type { ApiResponse } from '../../../base/http/api-request.ts';
import { answeredFailure } from '../../../base/http/answered-failure.ts';
import { LAPSED_LEASES_ANNOTATION, LOGIN_OUTCOME_ANNOTATION } from '../../../domain/audit/audit-annotations.ts';
import { UNMATCHED_ROUTE, type Metrics } from '../../../base/metrics/metrics.ts';
import { whenAnswered, type Filter, type FilteredRequest } from './filter-chain.ts';

/**
 * Records each answer in the metrics (docs/observability.md): the HTTP server histogram under the
 * route TEMPLATE the chain resolved (never the raw path), and what the chain and the handlers noted
 * on the request (the principal, a login's outcome, a claim's lapsed leases), so the domain's
 * counters need no hook inside the handlers. Just inside the request's span, beside the access log: it sees every answer.
 * A stream's duration is until its headers are answered; its lifetime is the open-streams gauge.
 */
export function withMetrics(metrics: Metrics, functionName: string): Filter | undefined {
  if (!metrics.enabled) return undefined;
  return (request, next) => {
    const startedAt = performance.now();
    return whenAnswered(next(request), (response) => {
      metrics.httpRequest(
        {
          function: functionName,
          method: request.method,
          route: request.route?.path ?? UNMATCHED_ROUTE,
          status: response.status,
        },
        (performance.now() - startedAt) / 1000,
      );
      recordDomainOutcomes(metrics, request, response);
      return response;
    });
  };
}

function recordDomainOutcomes(metrics: Metrics, request: FilteredRequest, response: ApiResponse): void {
  // Open routes set a null principal: no authentication was attempted.
  if (request.principal) metrics.authentication(request.principal.type, 'success');
  else if (request.principal === undefined && response.status === 401)
    metrics.authentication('unknown', refusalReason(response));
  const operation = request.route?.operationId;
  if (operation === 'login') {
    metrics.login(request.auditAnnotations?.[LOGIN_OUTCOME_ANNOTATION] ?? 'malformed');
  } else if (operation === 'claimRun' && response.status < 300) {
    if (response.status === 200) metrics.runClaim('claimed', claimedAttempt(response));
    else metrics.runClaim('empty');
    const lapsed = request.auditAnnotations?.[LAPSED_LEASES_ANNOTATION];
    if (lapsed) for (const _ of lapsed.split(',')) metrics.leaseLapsed();
  }
}

/** The attempt number of a claimed run, from the claim's answer (`lease.attempt`); undefined if unreadable. */
function claimedAttempt(response: ApiResponse): number | undefined {
  if (typeof response.body !== 'string') return undefined;
  try {
    const attempt = (JSON.parse(response.body) as { lease?: { attempt?: unknown } }).lease?.attempt;
    return typeof attempt === 'number' && Number.isInteger(attempt) && attempt > 0 ? attempt : undefined;
  } catch {
    return undefined;
  }
}

/** The `result` of a 401 whose answer names no reason: one fixed value, as every label value is bounded. */
const UNNAMED_REASON = 'unnamed';

/** The catalogue reason of a 401 (MissingToken, InvalidToken, ...): a bounded set, read from the JSON answer. */
function refusalReason(response: ApiResponse): string {
  const { reason } = answeredFailure(response);
  return reason !== undefined && /^[A-Za-z]{1,64}$/.test(reason) ? reason : UNNAMED_REASON;
}
