// Issue 23: what the Prometheus metrics cost. Authenticated GET whoami through the container entry
// (the resources bundle) with METRICS=on (the default) beside METRICS=off, all running at once and
// measured in the same run: the metrics may cost at most 5 % of the throughput. Each setting runs
// twice, in mirrored positions (on, off, off, on), so the order of loading favours neither.
// And the cold start (spawn to the first 200 on /healthz) of the public-config bundle, on beside
// off, alternating (reported: both load the same code, METRICS=on only builds the registry).
import {
  WHOAMI,
  bundleSetup,
  median,
  ratioRow,
  startToFirstAnswer,
  throughputs,
  type BundleSetup,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const COLD_START_ROUNDS = 10;

async function throughput(setup: BundleSetup): Promise<BenchRow> {
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
  return ratioRow(
    'authenticated GET whoami, resources bundle, METRICS=on (default)',
    (on! + onAgain!) / 2,
    'req/s',
    'METRICS=off',
    (off! + offAgain!) / 2,
    '>= 0.95',
    (ratio) => ratio >= 0.95,
  );
}

async function coldStart(setup: BundleSetup): Promise<BenchRow> {
  const subject = (metrics: 'on' | 'off') => ({
    name: `public-config, METRICS=${metrics}`,
    script: setup.bundleEntry,
    env: { ...setup.env, FUNCTION_TARGET: 'public-config', METRICS: metrics },
  });
  const times = { on: [] as number[], off: [] as number[] };
  // Round 0 fills the compile cache and is not counted; the order alternates, so neither starts first always.
  for (let round = 0; round <= COLD_START_ROUNDS; round++) {
    for (const metrics of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const { ms } = await startToFirstAnswer(subject(metrics), setup, '/healthz');
      if (round > 0) times[metrics].push(ms);
    }
  }
  return ratioRow(
    'cold start (spawn to first 200 on /healthz), public-config bundle, METRICS=on',
    median(times.on),
    'ms',
    'METRICS=off',
    median(times.off),
    // Reported, not judged: the one difference is building the registry (1 to 2 ms, measured alone),
    // well inside the spread of spawn times on a shared machine.
    '',
  );
}

export const metricsBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  return [await throughput(setup), await coldStart(setup)];
};
