import type { AppContext } from '../../../shared/server/app/app-context.ts';
import { jsonResponse } from '../../../shared/base/http/api-request.ts';
import { apiError } from '../../../shared/base/http/error-catalogue.ts';
import type { DeclaredRoute } from '../../../shared/contract/routes/route-table.ts';
import type { RouteRequest } from '../../../shared/server/runtime/typed-handlers.ts';

type AuditRoute = Extract<DeclaredRoute, { operationId: 'listAuditEvents' }>;

/** `GET /api/v1alpha1/audit/events`: the stored audit trail, filtered, as an `audit.k8s.io/v1` EventList. */
export function auditHandlers(context: Pick<AppContext, 'auditStore'>) {
  return {
    async listAuditEvents(request: RouteRequest<AuditRoute>) {
      const { since, until, limit, ...filters } = request.input.query();
      const page = await (await context.auditStore()).list(
        {
          ...filters,
          ...(since !== undefined ? { since: time('since', since) } : {}),
          ...(until !== undefined ? { until: time('until', until) } : {}),
          limit: limit ?? 100,
        },
        request.deadline,
      );
      return jsonResponse(200, {
        kind: 'EventList',
        apiVersion: 'audit.k8s.io/v1',
        metadata: page.continue ? { continue: page.continue } : {},
        items: page.items,
      });
    },
  };
}

/**
 * A time filter as a date; a pattern-valid text that is no calendar time (month 13, 30 February,
 * 24:00) is refused as the field, where JavaScript's Date would roll it over to another day.
 */
function time(field: 'since' | 'until', text: string): Date {
  const date = new Date(text);
  const [year, month, day, hour, minute, second] = text.split(/\D/, 6).map(Number) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  const onTheCalendar = month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth;
  const onTheClock = hour! <= 23 && minute! <= 59 && second! <= 59;
  if (Number.isNaN(date.getTime()) || !onTheCalendar || !onTheClock)
    throw apiError('BadRequest', `query parameter "${field}" is not a date: "${text}"`);
  return date;
}
