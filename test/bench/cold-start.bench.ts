// Issue 10: cold start of every function bundle (spawn to the first 200 on /healthz), the first
// authenticated answer, and idle RSS, beside bare node:http and fastify + @fastify/jwt measured
// in the same run, starts interleaved.
import { FUNCTION_NAMES } from '../../shared/routes/route-table.ts';
import {
  BARE_NODE_HTTP,
  FASTIFY_JWT,
  WHOAMI,
  bundleSetup,
  median,
  ratioRow,
  startToFirstAnswer,
  type BundleSetup,
  type StartSubject as Subject,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const ROUNDS = 5;

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
  for (const subject of functions) {
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

/** Median spawn-to-first-200 of an admin-authenticated GET whoami on the resources bundle, beside fastify + @fastify/jwt. */
async function firstAuthenticatedAnswer(setup: BundleSetup): Promise<BenchRow> {
  const headers = { authorization: `Bearer ${setup.token}` };
  const resources: Subject = {
    name: 'resources',
    script: setup.bundleEntry,
    env: { ...setup.env, FUNCTION_TARGET: 'resources' },
  };
  const fastify: Subject = { name: 'fastify + @fastify/jwt', script: FASTIFY_JWT, env: setup.env };
  const times = { resources: [] as number[], fastify: [] as number[] };
  for (let round = 0; round <= ROUNDS; round++) {
    const resourcesMs = (await startToFirstAnswer(resources, setup, WHOAMI, headers)).ms;
    const fastifyMs = (await startToFirstAnswer(fastify, setup, WHOAMI, headers)).ms;
    if (round === 0) continue;
    times.resources.push(resourcesMs);
    times.fastify.push(fastifyMs);
  }
  return ratioRow(
    'first authenticated answer (admin GET whoami), resources bundle',
    median(times.resources),
    'ms',
    'fastify + @fastify/jwt',
    median(times.fastify),
    '<= 1x',
    (ratio) => ratio <= 1,
  );
}

export const coldStartBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  return [...(await coldStarts(setup)), await firstAuthenticatedAnswer(setup)];
};
