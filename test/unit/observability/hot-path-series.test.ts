// Issue 23: the metrics every request updates are kept outside prom-client's own metrics, for speed
// (shared/base/metrics/hot-path-series.ts). Their exposition must be exactly what prom-client's would be.
import { describe, expect, it } from 'vitest';
import Counter from 'prom-client/lib/counter.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';
import { HotCounter, HotHistogram } from '../../../shared/base/metrics/hot-path-series.ts';

const BOUNDS = [0.01, 0.1, 1];
const OBSERVATIONS: Array<[number, string, number]> = [
  [0.005, '/a/{name}', 200],
  [0.01, '/a/{name}', 200],
  [0.5, '/a/{name}', 200],
  [7, '/a/{name}', 200],
  [0.05, 'unmatched', 404],
];

describe('issue 23: the hot-path series expose exactly what prom-client would', () => {
  it('a histogram: cumulative buckets with le, +Inf, _sum and _count per label set', async () => {
    const ours = new Registry();
    const hot = new HotHistogram('latency_seconds', 'Latency.', ['route', 'status'], BOUNDS);
    ours.registerMetric(hot as never);
    const theirs = new Registry();
    const reference = new Histogram({
      name: 'latency_seconds',
      help: 'Latency.',
      labelNames: ['route', 'status'],
      buckets: BOUNDS,
      registers: [theirs],
    });
    for (const [value, route, status] of OBSERVATIONS) {
      hot.observe(value, route, status);
      reference.observe({ route, status }, value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('a counter by label values', async () => {
    const ours = new Registry();
    const hot = new HotCounter('attempts_total', 'Attempts.', ['type', 'result']);
    ours.registerMetric(hot as never);
    const theirs = new Registry();
    const reference = new Counter({
      name: 'attempts_total',
      help: 'Attempts.',
      labelNames: ['type', 'result'],
      registers: [theirs],
    });
    for (const [type, result] of [
      ['admin', 'success'],
      ['oidc', 'success'],
      ['admin', 'success'],
      ['unknown', 'MissingToken'],
    ] as const) {
      hot.inc(type, result);
      reference.inc({ type, result });
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
