// Issues 10 and 25: authenticated GET whoami through the container entry (the resources bundle) with the
// request log on (the default) and off, beside bare node:http and fastify + @fastify/jwt with
// its pino request log, all running at once and measured in the same run.
//
// Each subject runs as four processes (two processes of one configuration differ by up to 15 % on
// the shared machine); each of 10 rounds loads each process once, in turn, a subject's figure in a
// round is its processes' mean, and each ratio is the median of the rounds' ratios, so a slow spell of a shared machine
// does not decide it. Standard output goes to a separate drain, as a container runtime's log shim
// reads it, not to the load generator. A second set of processes with the request log on is
// measured like the rest: its ratio to the first shows how far apart two measurements of one
// configuration fall on the machine at hand.
import {
  BARE_NODE_HTTP,
  FASTIFY_JWT,
  WHOAMI,
  bundleSetup,
  medianRoundRatio,
  pairedThroughputs,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

export const requestLogBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const auth = { authorization: `Bearer ${setup.token}` };
  const resources = { script: setup.bundleEntry, readyPath: '/healthz', path: WHOAMI, headers: auth };
  const logged = {
    name: 'resources, request log on',
    ...resources,
    env: { ...setup.env, FUNCTION_TARGET: 'resources' },
  };
  const measured = await pairedThroughputs(
    [
      { name: 'bare node:http', script: BARE_NODE_HTTP, env: {}, readyPath: '/', path: WHOAMI, headers: {} },
      {
        name: 'fastify + @fastify/jwt, pino request log',
        script: FASTIFY_JWT,
        env: { ...setup.env, FASTIFY_REQUEST_LOG: 'on' },
        readyPath: '/healthz',
        path: WHOAMI,
        headers: auth,
      },
      logged,
      {
        name: 'resources, LOG_LEVEL=warn',
        ...resources,
        env: { ...setup.env, FUNCTION_TARGET: 'resources', LOG_LEVEL: 'warn' },
      },
      logged,
    ],
    // Four processes per subject, ten rounds: with two processes per subject and 15 rounds, the
    // request-log-on processes of the A/A row came out 0.83 to 1.13 times the others' in five runs:
    // what differs between processes of one configuration (where the scheduler keeps them, how V8
    // sized their heaps) outweighed the rounds. A subject's mean over four processes evens that
    // out (A/A 1.00 and 0.96 in two runs); the rounds still take each ratio's median over time.
    { rounds: 10, seconds: 2, replicas: 4 },
  );
  const [bare, fastify, on, warn, onAgain] = [0, 1, 2, 3, 4];
  const name = 'authenticated GET whoami, resources bundle (container entry)';
  const perRound = '(median of rounds; ratio: median of per-round ratios)';
  /** `subject` against `baseline`: the median of the rounds' ratios of the two. */
  const row = (subject: number, label: string, baseline: number, baselineName: string, target?: number): BenchRow => {
    const ratio = medianRoundRatio(measured.perRound, subject, baseline);
    return {
      name: `${name}, ${label}`,
      value: measured.throughputs[subject]!,
      unit: 'req/s',
      baselineName: `${baselineName} ${perRound}`,
      baselineValue: measured.throughputs[baseline]!,
      ratio,
      ...(target === undefined ? {} : { target: `>= ${target}`, met: ratio >= target }),
    };
  };
  return [
    row(on, 'request log on (default)', bare, 'bare node:http', 0.65),
    row(on, 'request log on (default)', fastify, 'fastify + @fastify/jwt with its pino request log', 2.2),
    row(warn, 'request log off (LOG_LEVEL=warn)', bare, 'bare node:http', 0.75),
    row(
      onAgain,
      "request log on, other processes of the same configuration (the measurement's noise)",
      on,
      'request log on',
    ),
  ];
};
