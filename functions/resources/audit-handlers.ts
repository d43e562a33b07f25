import type { AppContext } from '../../shared/app/app-context.ts';
import { jsonResponse } from '../../shared/http/api-request.ts';
import { apiError } from '../../shared/http/error-catalogue.ts';
import type { DeclaredRoute } from '../../shared/routes/route-table.ts';
import type { RouteRequest } from '../../shared/runtime/typed-handlers.ts';

type AuditRoute = Extract<DeclaredRoute, { operationId: 'listAuditEvents' }>;

/** `GET /api/v1alpha1/audit/events`: the stored audit trail, filtered, as an `audit.k8s.io/v1` EventList. */
export function auditHandlers(context: Pick<AppContext, 'auditStore'>) {
  return {
    async listAuditEvents(request: RouteRequest<AuditRoute>) {
      const { since, until, limit, ...filters } = request.input.query();
      const page = await (await context.auditStore()).list({
        ...filters,
        ...(since !== undefined ? { since: time('since', since) } : {}),
        ...(until !== undefined ? { until: time('until', until) } : {}),
        limit: limit ?? 100,
      });
      return jsonResponse(200, {
        kind: 'EventList',
        apiVersion: 'audit.k8s.io/v1',
        metadata: page.continue ? { continue: page.continue } : {},
        items: page.items,
      });
    },
  };
}

/** A time filter as a date; a pattern-valid text that is no date (month 13) is refused as the field. */
function time(field: 'since' | 'until', text: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw apiError('BadRequest', `query parameter "${field}" is not a date: "${text}"`);
  return date;
}
