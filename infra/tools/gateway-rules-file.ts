import { gatewayRules } from '../../shared/contract/routes/gateway-routing.ts';
import { routeTable } from '../../shared/contract/routes/route-table.ts';

/**
 * Stands for the API group in the generated rules: the group is a chart value (`api.group`),
 * so the template substitutes it when it renders the HTTPRoute.
 */
export const API_GROUP_PLACEHOLDER = '__API_GROUP__';

/** The contents of `infra/chart/files/gateway-rules.json`: the gateway's path rules from the route table. */
export function gatewayRulesFile(): string {
  return `${JSON.stringify(gatewayRules(routeTable(API_GROUP_PLACEHOLDER)), null, 2)}\n`;
}
