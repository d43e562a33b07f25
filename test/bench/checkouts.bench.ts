// Issue 43 ("npm run bench before and after"): this tree's bundles beside those of another checkout,
// measured in the same run: every function's cold start (the console's too) and the request path.
//   git worktree add --detach /tmp/before 1744710 && cp -al node_modules /tmp/before/
//   npm run bench -- checkouts --before=/tmp/before
// The other checkout builds its own bundles with its own build (infra/tools/build-functions.ts and
// Vite, into its dist/), so each side is what `npm run build` made of it. Without --before, no rows.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FUNCTION_NAMES } from '../../shared/contract/routes/route-table.ts';
import {
  WHOAMI,
  bundleSetup,
  median,
  medianRoundRatio,
  pairedThroughputs,
  ratioRow,
  startToFirstAnswer,
  type BundleSetup,
  type LoadSubject,
  type Subject,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

/** Interleaved starts per subject (after an uncounted first one): the machine is shared and noisy. */
const ROUNDS = 7;
/**
 * "No slower", within what this bench can tell apart: two starts of one bundle interleaved on a
 * shared two-core machine differ by several per cent, and throughput rounds by up to 10 % (audit.bench.ts).
 */
const NO_SLOWER_START = '<= 1.1x';
const NO_SLOWER_THROUGHPUT = '>= 0.9';
const CONSOLE_ENV = { CONSOLE_API_BASE_URL: 'http://api.bench.local' };

/** The checkout given as `--before=<folder>`, or undefined. */
function beforeCheckout(): string | undefined {
  const flag = process.argv.find((arg) => arg.startsWith('--before='));
  return flag ? resolve(flag.slice('--before='.length)) : undefined;
}

/** Builds the other checkout's bundles and console with its own tools, into its dist/; answers its dist/entry.mjs. */
function buildCheckout(checkout: string): string {
  if (!existsSync(join(checkout, 'node_modules')))
    throw new Error(`${checkout} has no node_modules: cp -al node_modules ${checkout}/ (hard links, no copy)`);
  const run = (args: string[]) => {
    const built = spawnSync(process.execPath, args, { cwd: checkout, encoding: 'utf8', env: process.env });
    if (built.status !== 0) throw new Error(`${args.join(' ')} in ${checkout} failed: ${built.stderr}`);
  };
  run(['infra/tools/build-functions.ts']);
  run([
    'node_modules/vite/bin/vite.js',
    'build',
    '--config',
    'functions/console/app/vite.config.ts',
    '--logLevel',
    'warn',
  ]);
  return join(checkout, 'dist', 'entry.mjs');
}

/**
 * Each function's start to its first 200 on /healthz, before and after interleaved, without and with
 * V8's compile cache; beside it the same bundle after against itself (an A/A row: the noise of the run).
 */
async function coldStarts(setup: BundleSetup, beforeEntry: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const compileCache of [false, true]) {
    const mode = compileCache ? 'with compile cache' : 'no compile cache';
    const triples = [...FUNCTION_NAMES, 'console'].map((name) => {
      const env = { ...setup.env, FUNCTION_TARGET: name, ...(name === 'console' ? CONSOLE_ENV : {}) };
      const side = (label: string, script: string): Subject => ({
        name: `${name} ${label}`,
        script,
        env,
        compileCache,
      });
      return {
        name,
        before: side('before', beforeEntry),
        after: side('after', setup.bundleEntry),
        again: side('after, again', setup.bundleEntry),
      };
    });
    const times = new Map<Subject, number[]>(
      triples.flatMap(({ before, after, again }) => [before, after, again].map((subject) => [subject, []])),
    );
    const cpuTimes = new Map<Subject, number[]>([...times.keys()].map((subject) => [subject, []]));
    // Round 0 fills the page cache (and the compile cache) and is not counted; the order rotates within a round.
    for (let round = 0; round <= ROUNDS; round++)
      for (const { before, after, again } of triples) {
        const order = [before, after, again];
        for (let step = 0; step < order.length; step++) {
          const subject = order[(step + round) % order.length]!;
          const { ms, cpuMs } = await startToFirstAnswer(subject, setup, '/healthz');
          if (round > 0) {
            times.get(subject)!.push(ms);
            cpuTimes.get(subject)!.push(cpuMs);
          }
        }
      }
    for (const { name, before, after, again } of triples) {
      /** The after side against the before side, and against itself (A/A), of one measurement. */
      const beforeAndAfter = (measurement: string, figures: Map<Subject, number[]>): BenchRow[] => {
        const [beforeMs, afterMs, againMs] = [before, after, again].map((subject) => median(figures.get(subject)!));
        return [
          ratioRow(
            `${measurement}, ${name}, after, ${mode}`,
            afterMs!,
            'ms',
            `${name}, before`,
            beforeMs!,
            NO_SLOWER_START,
            (ratio) => ratio <= 1.1,
          ),
          ratioRow(`${measurement}, ${name}, after again (A/A)`, againMs!, 'ms', `${name}, after`, afterMs!, ''),
        ];
      };
      // The CPU time to the first 200 is what the start costs the process itself, whatever else the machine runs.
      rows.push(
        ...beforeAndAfter('cold start to /healthz', times),
        ...beforeAndAfter('CPU time to /healthz', cpuTimes),
      );
    }
  }
  return rows;
}

/** Requests per second through the whole chain of each side's resources bundle (authenticated) and public-config (anonymous). */
async function requestPath(setup: BundleSetup, beforeEntry: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const requests = [
    { name: 'authenticated GET whoami, resources', target: 'resources', path: WHOAMI, authorized: true },
    { name: 'anonymous GET public-config', target: 'public-config', path: '/api/v1alpha1/system/public-config' },
  ];
  for (const request of requests) {
    const subject = (side: string, script: string): LoadSubject => ({
      name: `${request.name}, ${side}`,
      script,
      env: { ...setup.env, FUNCTION_TARGET: request.target },
      readyPath: '/healthz',
      path: request.path,
      headers: request.authorized ? { authorization: `Bearer ${setup.token}` } : {},
    });
    const paired = await pairedThroughputs(
      [subject('before', beforeEntry), subject('after', setup.bundleEntry), subject('after, again', setup.bundleEntry)],
      { rounds: 9, seconds: 2, warmUpSeconds: 3 },
    );
    rows.push({
      ...ratioRow(
        `${request.name}, after`,
        paired.throughputs[1]!,
        'req/s',
        'before',
        paired.throughputs[0]!,
        NO_SLOWER_THROUGHPUT,
        (ratio) => ratio >= 0.9,
      ),
      // The median of the rounds' ratios, not the ratio of the medians: a slow spell hits both sides of a round.
      ratio: paired.ratios[1]!,
      met: paired.ratios[1]! >= 0.9,
    });
    rows.push({
      name: `${request.name}, after again (A/A)`,
      value: paired.throughputs[2]!,
      unit: 'req/s',
      baselineName: 'after',
      baselineValue: paired.throughputs[1]!,
      ratio: medianRoundRatio(paired.perRound, 2, 1),
    });
  }
  return rows;
}

export const checkoutsBenchmark: Benchmark = async () => {
  const before = beforeCheckout();
  if (!before) {
    process.stderr.write('checkouts: no --before=<checkout> given, nothing to compare\n');
    return [];
  }
  const beforeEntry = buildCheckout(before);
  const setup = await bundleSetup();
  return [...(await coldStarts(setup, beforeEntry)), ...(await requestPath(setup, beforeEntry))];
};
