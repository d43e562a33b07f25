// Issue 10: cold start of every function bundle (spawn to the first 200 on /healthz) and idle RSS,
// beside bare node:http and fastify + @fastify/jwt measured in the same run, starts interleaved.
// Issue 25: the resources bundle's start, to /healthz and to its first authenticated answer, with
// and without V8's compile cache (warmed as the image warms it), against both baselines started
// the same way. The machine is noisy: medians of interleaved starts (A B C A B C ...).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { FUNCTION_NAMES } from '../../shared/contract/routes/route-table.ts';
import {
  BARE_NODE_HTTP,
  FASTIFY_JWT,
  WHOAMI,
  bundleSetup,
  median,
  ratioRow,
  startToFirstAnswer,
  type BundleSetup,
  type Subject,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { REPO_ROOT } from '../support/function-servers.ts';

const ROUNDS = 5;
/** More rounds for the resources rows: their targets are tight, and the spread of one start is wide. */
const RESOURCES_ROUNDS = 9;

/** Median spawn-to-/healthz of each function bundle and both baselines, interleaved, plus the idle RSS of each. */
async function coldStarts(setup: BundleSetup): Promise<BenchRow[]> {
  const bare: Subject = { name: 'bare node:http', script: BARE_NODE_HTTP, env: {} };
  const fastify: Subject = { name: 'fastify + @fastify/jwt', script: FASTIFY_JWT, env: setup.env };
  const functions = FUNCTION_NAMES.map(
    (name): Subject => ({ name, script: setup.bundleEntry, env: { ...setup.env, FUNCTION_TARGET: name } }),
  );
  const subjects = [bare, fastify, ...functions];
  const times = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
  const rss = new Map<Subject, number>();
  // Round 0 fills the compile cache and the page cache and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const subject of subjects) {
      const result = await startToFirstAnswer(
        subject,
        setup,
        subject === bare ? '/' : '/healthz',
        {},
        round === ROUNDS,
      );
      if (round > 0) times.get(subject)!.push(result.ms);
      if (round === ROUNDS) rss.set(subject, result.rssKb);
    }
  }
  const bareMs = median(times.get(bare)!);
  const fastifyMs = median(times.get(fastify)!);
  const rows: BenchRow[] = [
    { name: 'cold start (spawn to first 200 on /healthz), bare node:http', value: bareMs, unit: 'ms' },
    ratioRow('cold start, fastify + @fastify/jwt', fastifyMs, 'ms', 'bare node:http', bareMs, ''),
  ];
  // The resources bundle's rows are its own (resourcesColdStarts); its idle RSS is below with the others'.
  for (const subject of functions.filter((candidate) => candidate.name !== 'resources')) {
    const ms = median(times.get(subject)!);
    rows.push(
      ratioRow(
        `cold start, ${subject.name} bundle`,
        ms,
        'ms',
        'fastify + @fastify/jwt',
        fastifyMs,
        '<= 1x',
        (ratio) => ratio <= 1,
      ),
    );
    rows.push(
      ratioRow(
        `cold start, ${subject.name} bundle`,
        ms,
        'ms',
        'bare node:http',
        bareMs,
        '<= 3x',
        (ratio) => ratio <= 3,
      ),
    );
  }
  const bareRss = rss.get(bare)! / 1024;
  rows.push(
    ratioRow('idle RSS, fastify + @fastify/jwt', rss.get(fastify)! / 1024, 'MB', 'bare node:http', bareRss, ''),
  );
  for (const subject of functions)
    rows.push(
      ratioRow(`idle RSS, ${subject.name} bundle`, rss.get(subject)! / 1024, 'MB', 'bare node:http', bareRss, ''),
    );
  return rows;
}

/**
 * The compile cache as the image has it: infra/tools/warm-compile-cache.ts, run beside the bundles
 * (the cache is keyed by path), starts each function once until it listens.
 */
function warmCompileCacheAsTheImageDoes(setup: BundleSetup): void {
  const warmed = spawnSync(process.execPath, [join(REPO_ROOT, 'infra/tools/warm-compile-cache.ts')], {
    cwd: dirname(dirname(setup.bundleEntry)),
    env: { PATH: process.env.PATH, NODE_COMPILE_CACHE: setup.compileCache },
    encoding: 'utf8',
  });
  if (warmed.status !== 0) throw new Error(`warming the compile cache failed: ${warmed.stderr}`);
}

/** The median of each measurement over `rounds` interleaved rounds; a first, uncounted round fills the page cache. */
async function interleavedMedians<T extends Array<() => Promise<number>>>(
  measurements: [...T],
  rounds: number,
): Promise<{ [K in keyof T]: number }> {
  const times = measurements.map((): number[] => []);
  for (let round = 0; round <= rounds; round++)
    for (const [index, measure] of measurements.entries()) {
      const ms = await measure();
      if (round > 0) times[index]!.push(ms);
    }
  return times.map(median) as { [K in keyof T]: number };
}

/**
 * Issue 25: the resources bundle from spawn to the first 200 on /healthz and to its first answer to
 * an admin-authenticated GET whoami, beside bare node:http (its first answer) and fastify +
 * @fastify/jwt (/healthz, and GET whoami verifying the same token): without V8's compile cache
 * (every process compiles what it loads), then with it (the bundles' warmed as the image's is;
 * each baseline's by its uncounted first start).
 */
async function resourcesColdStarts(setup: BundleSetup): Promise<BenchRow[]> {
  const admin = { authorization: `Bearer ${setup.token}` };
  const rows: BenchRow[] = [];
  for (const compileCache of [false, true]) {
    const mode = compileCache ? 'with compile cache' : 'no compile cache';
    const bare: Subject = { name: 'bare node:http', script: BARE_NODE_HTTP, env: {}, compileCache };
    const fastify: Subject = { name: 'fastify + @fastify/jwt', script: FASTIFY_JWT, env: setup.env, compileCache };
    const resources: Subject = {
      name: 'resources',
      script: setup.bundleEntry,
      env: { ...setup.env, FUNCTION_TARGET: 'resources' },
      compileCache,
    };
    const startTo =
      (subject: Subject, path: string, headers: Record<string, string> = {}) =>
      async () =>
        (await startToFirstAnswer(subject, setup, path, headers)).ms;
    const [bareMs, fastifyMs, resourcesMs, fastifyWhoAmIMs, resourcesWhoAmIMs] = await interleavedMedians(
      [
        startTo(bare, '/'),
        startTo(fastify, '/healthz'),
        startTo(resources, '/healthz'),
        startTo(fastify, WHOAMI, admin),
        startTo(resources, WHOAMI, admin),
      ],
      RESOURCES_ROUNDS,
    );
    const withinTwiceBare = (ratio: number) => ratio <= 2;
    const withinThreeQuartersOfFastify = (ratio: number) => ratio <= 0.75;
    const healthz = `cold start to /healthz, resources bundle, ${mode}`;
    const whoAmI = `cold start to first authenticated answer (admin GET whoami), resources bundle, ${mode}`;
    rows.push(
      ratioRow(healthz, resourcesMs, 'ms', `bare node:http, ${mode}`, bareMs, '<= 2x', withinTwiceBare),
      ratioRow(
        healthz,
        resourcesMs,
        'ms',
        `fastify + @fastify/jwt /healthz, ${mode}`,
        fastifyMs,
        '<= 0.75x',
        withinThreeQuartersOfFastify,
      ),
      ratioRow(whoAmI, resourcesWhoAmIMs, 'ms', `bare node:http, ${mode}`, bareMs, '<= 2x', withinTwiceBare),
      ratioRow(
        whoAmI,
        resourcesWhoAmIMs,
        'ms',
        `fastify + @fastify/jwt GET whoami, ${mode}`,
        fastifyWhoAmIMs,
        '<= 0.75x',
        withinThreeQuartersOfFastify,
      ),
    );
  }
  return rows;
}

export const coldStartBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  warmCompileCacheAsTheImageDoes(setup);
  return [...(await coldStarts(setup)), ...(await resourcesColdStarts(setup))];
};
