// Issue 23, item 5: the Grafana dashboard in the chart is built on metrics the server exports, and
// docs/observability.md documents exactly those metrics. A panel querying a metric that was renamed or
// never existed, or a metric added without its row in the document, fails here.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../shared/base/metrics/metrics.ts';
import { REPO_ROOT } from '../../support/function-servers.ts';
import { documentedMetrics } from '../../support/observability-doc.ts';

const DASHBOARD = join(REPO_ROOT, 'infra/chart/files/grafana-dashboard.json');
const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);
const HISTOGRAM_SERIES = /_(bucket|count|sum)$/;

/** The metric names of the server's registry, from its exposition's `# TYPE` lines. */
async function exportedMetrics(): Promise<Map<string, string>> {
  const metrics = createMetrics(true);
  // The run queue's gauges appear once a function's run database answers, the outbound backlog's once a
  // sweeping process's does (issue 47).
  metrics.collectOnScrape({
    runQueue: async () => ({ depth: 0, oldestAgeSeconds: 0 }),
    outboundQueue: async () => ({ pending: 0, oldestAgeSeconds: 0 }),
  });
  const { body } = await metrics.exposition();
  return new Map([...body.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
}

/** The metric names a PromQL expression selects (label matchers, ranges, groupings and functions left out). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?/g)]
    .filter(([, name, call]) => !call && !PROMQL_WORDS.has(name!) && !/^\d/.test(name!))
    .map(([, name]) => name!);
}

/** Every PromQL expression of the dashboard's panels. */
async function dashboardExpressions(): Promise<string[]> {
  const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr?: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).flatMap((target) => target.expr ?? []));
}

describe('issue 23: the Grafana dashboard queries only metrics the server exports', () => {
  it('reads metric names out of PromQL (and would see a wrong one)', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, function) (rate(http_server_request_duration_seconds_bucket{http_route!="a{b}"}[5m])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket']);
    expect(metricNames('sum(rate(a_total[$__rate_interval])) / sum(rate(b_total[5m])) > 0.5')).toEqual([
      'a_total',
      'b_total',
    ]);
  });

  it('every expression names at least one metric, and each is in the registry (histogram series by their histogram)', async () => {
    const exported = await exportedMetrics();
    const expressions = await dashboardExpressions();
    expect(expressions.length).toBeGreaterThanOrEqual(10);
    for (const expr of expressions) {
      const names = metricNames(expr);
      expect(names, expr).not.toEqual([]);
      for (const name of names) {
        const histogram = name.replace(HISTOGRAM_SERIES, '');
        const known = exported.has(name) || (exported.get(histogram) === 'histogram' && name !== histogram);
        expect(known, `${name} in ${expr}`).toBe(true);
      }
    }
  });

  it('covers what the issue asks of it: request rate, errors, latency, logins and refusals, queue depth, streams', async () => {
    const all = (await dashboardExpressions()).join('\n');
    for (const needed of [
      'http_server_request_duration_seconds_count',
      'http_response_status_code=~"5..',
      'histogram_quantile(0.99',
      'platform_api_logins_total',
      'platform_api_login_throttle_refusals_total',
      'platform_api_run_queue_depth',
      'platform_api_open_streams',
    ])
      expect(all).toContain(needed);
  });
});

describe('issue 23: docs/observability.md documents exactly the metrics the server exports, with their types', () => {
  it('has one row per exported metric, of its type', async () => {
    expect(await documentedMetrics()).toEqual(await exportedMetrics());
  });
});
