// `kubectl platform notifications deliveries NOTIFICATION [--limit N]`: a Notification's recent delivery
// attempts (issue 47, docs/notifications.md), oldest of the newest N first, as the delivery log keeps them.
import type { LoggedAttempt } from '../../shared/contract/rules/delivery-log.ts';
import { usageError } from '../plugin/command-line.ts';
import { printObject } from '../plugin/printed-objects.ts';
import { formatTable } from '../plugin/table.ts';
import { type PluginCommand, stringFlag } from './plugin-command.ts';

const DEFAULT_LIMIT = 20;

export const notificationsDeliveries: PluginCommand = {
  words: ['notifications', 'deliveries'],
  arguments: ['NOTIFICATION'],
  summary: "List a Notification's recent delivery attempts: event, state, status code, latency, error",
  flags: [
    {
      name: 'limit',
      value: 'N',
      description: `how many of the newest attempts (default ${DEFAULT_LIMIT}, at most 500)`,
    },
  ],
  outputs: ['wide', 'json', 'yaml'],
  examples: ['kubectl platform notifications deliveries prod-failures -n team-a'],
  async run(context) {
    const limit = Number(stringFlag(context, 'limit') ?? DEFAULT_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw usageError(`--limit must be a whole number from 1 to 500, not "${stringFlag(context, 'limit')}"`);
    const connection = context.connection();
    const name = context.line.positionals[0]!;
    const path = `/api/v1alpha1/projects/${encodeURIComponent(connection.namespace)}/notifications/${encodeURIComponent(name)}/deliveries?limit=${limit}`;
    const { items } = (await connection.call('GET', path)).body as { items: LoggedAttempt[] };
    if (context.output === 'json' || context.output === 'yaml') {
      context.stdout(printObject({ items }, context.output));
      return 0;
    }
    if (items.length === 0) {
      context.stderr(`No deliveries of Notification ${name} in ${connection.namespace} namespace.\n`);
      return 0;
    }
    const wide = context.output === 'wide';
    const headers = ['TIME', 'DELIVERY', 'EVENT', 'SUBJECT', 'ATTEMPT', 'STATE', 'STATUS', 'LATENCY', 'ERROR'];
    const rows = [...items]
      .reverse()
      .map((item) => [
        item.startedAt,
        item.delivery,
        item.eventType,
        item.subject,
        String(item.attempt),
        item.state,
        item.statusCode === undefined ? '<none>' : String(item.statusCode),
        `${item.latencyMs}ms`,
        item.error ?? '',
        ...(wide ? [item.event, JSON.stringify(item.answer)] : []),
      ]);
    context.stdout(formatTable(wide ? [...headers, 'EVENT-ID', 'ANSWER'] : headers, rows));
    return 0;
  },
};
