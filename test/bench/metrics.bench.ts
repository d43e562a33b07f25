// Issue 23: what the Prometheus metrics cost. Authenticated GET whoami through the container entry
// (the resources bundle) with METRICS=on (the default) beside METRICS=off, all running at once and
// measured in the same run: the metrics may cost at most 5 % of the throughput. Each setting runs
// twice, in mirrored positions (on, off, off, on), so the order of loading favours neither.
import { WHOAMI, bundleSetup, ratioRow, throughputs } from './bundle-setup.ts';
import type { Benchmark } from './bench-row.ts';

export const metricsBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const subject = (metrics: 'on' | 'off') => ({
    name: `resources, METRICS=${metrics}`,
    script: setup.bundleEntry,
    readyPath: '/healthz',
    path: WHOAMI,
    headers: { authorization: `Bearer ${setup.token}` },
    env: { ...setup.env, FUNCTION_TARGET: 'resources', METRICS: metrics },
  });
  const [on, off, offAgain, onAgain] = await throughputs([
    subject('on'),
    subject('off'),
    subject('off'),
    subject('on'),
  ]);
  return [
    ratioRow(
      'authenticated GET whoami, resources bundle, METRICS=on (default)',
      (on! + onAgain!) / 2,
      'req/s',
      'METRICS=off',
      (off! + offAgain!) / 2,
      '>= 0.95',
      (ratio) => ratio >= 0.95,
    ),
  ];
};
