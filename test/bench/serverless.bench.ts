// Issue 10's benchmark: the function bundles (npm run build) as Knative runs them. Cold start of
// every function, the first authenticated answer, throughput with the request log on and off,
// idle RSS, and 2,000 open run-log streams; each beside a baseline measured in the same run:
// a bare node:http process and fastify + @fastify/jwt.
import { spawn } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { buildFunctionBundles } from '../../infra/tools/build-functions.ts';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { parseAdminAccountSettings } from '../../shared/config/admin-account-settings.ts';
import { FUNCTION_NAMES } from '../../shared/routes/route-table.ts';
import { RunStore } from '../../shared/runs/run-store.ts';
import { REPO_ROOT, freePort, spawnNodeProcess, type FunctionProcess } from '../support/function-servers.ts';
import { startTestDatabase } from '../runs/test-database.ts';
import { measureThroughput, percentile } from './http-load.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const BASE_URL = 'http://bench.local';
const WHOAMI = '/api/v1alpha1/auth/whoami';
const COLD_START_ROUNDS = 5;
const STREAMS = 2_000;
const BARE_NODE_HTTP = 'test/bench/servers/bare-node-http.ts';
const FASTIFY_JWT = 'test/bench/servers/fastify-jwt.ts';

interface Setup {
  bundleEntry: string;
  env: Record<string, string>;
  token: string;
  /** Every process of the run shares one compile cache, warmed by an uncounted first start, as the image's is. */
  compileCache: string;
}

interface Subject {
  name: string;
  script: string;
  env: Record<string, string>;
}

/** Production-mode settings with a cost-10 `$2a$` hash, as the spec recommends; LOG_LEVEL left at its default (info). */
function productionEnv(): Record<string, string> {
  return {
    NODE_ENV: 'production',
    API_BASE_URL: BASE_URL,
    ADMIN_ACCOUNT_PASSWORD_HASH: bcrypt.hashSync('bench password', 10).replace(/^\$2b\$/, '$2a$'),
    ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'b'.repeat(64),
    ADMIN_ACCOUNT_TOKEN_TTL: '1h',
  };
}

function ratioRow(name: string, value: number, unit: string, baselineName: string, baselineValue: number, target: string, meets?: (ratio: number) => boolean): BenchRow {
  const ratio = value / baselineValue;
  return { name, value, unit, baselineName, baselineValue, ratio, target, met: meets?.(ratio) };
}

function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

/** The status of one GET on a fresh connection, or 0 when nothing listens yet. */
function statusOf(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = request({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', () => resolve(0));
    outgoing.end();
  });
}

function residentKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, ''));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds from spawn to the first 200 on `path`, polled every 2 ms on fresh connections;
 * with `idleRss`, also the resident memory after a second of idleness. The process is stopped after.
 */
async function startToFirstAnswer(subject: Subject, setup: Setup, path: string, headers: Record<string, string> = {}, idleRss = false): Promise<{ ms: number; rssKb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [subject.script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...subject.env, PORT: String(port), NODE_COMPILE_CACHE: setup.compileCache },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${subject.name} exited with ${child.exitCode}: ${errors}`);
      if ((await statusOf(port, path, headers)) === 200) break;
      if (performance.now() - started > 30_000) throw new Error(`${subject.name} gave no 200 on ${path} within 30 s: ${errors}`);
      await pause(2);
    }
    const ms = performance.now() - started;
    if (!idleRss) return { ms, rssKb: 0 };
    await pause(1_000);
    return { ms, rssKb: residentKb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Median spawn-to-/healthz of each function bundle and both baselines, interleaved, plus the idle RSS of each. */
async function coldStarts(setup: Setup): Promise<BenchRow[]> {
  const bare: Subject = { name: 'bare node:http', script: BARE_NODE_HTTP, env: {} };
  const fastify: Subject = { name: 'fastify + @fastify/jwt', script: FASTIFY_JWT, env: setup.env };
  const functions = FUNCTION_NAMES.map((name): Subject => ({ name, script: setup.bundleEntry, env: { ...setup.env, FUNCTION_TARGET: name } }));
  const subjects = [bare, fastify, ...functions];
  const times = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
  const rss = new Map<Subject, number>();
  // Round 0 fills the compile cache and the page cache and is not counted.
  for (let round = 0; round <= COLD_START_ROUNDS; round++) {
    for (const subject of subjects) {
      const result = await startToFirstAnswer(subject, setup, subject === bare ? '/' : '/healthz', {}, round === COLD_START_ROUNDS);
      if (round > 0) times.get(subject)!.push(result.ms);
      if (round === COLD_START_ROUNDS) rss.set(subject, result.rssKb);
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
    rows.push(ratioRow(`cold start, ${subject.name} bundle`, ms, 'ms', 'fastify + @fastify/jwt', fastifyMs, '<= 1x', (ratio) => ratio <= 1));
    rows.push(ratioRow(`cold start, ${subject.name} bundle`, ms, 'ms', 'bare node:http', bareMs, '<= 3x', (ratio) => ratio <= 3));
  }
  const bareRss = rss.get(bare)! / 1024;
  rows.push(ratioRow('idle RSS, fastify + @fastify/jwt', rss.get(fastify)! / 1024, 'MB', 'bare node:http', bareRss, ''));
  for (const subject of functions) rows.push(ratioRow(`idle RSS, ${subject.name} bundle`, rss.get(subject)! / 1024, 'MB', 'bare node:http', bareRss, ''));
  return rows;
}

/** Median spawn-to-first-200 of an admin-authenticated GET whoami on the resources bundle, beside fastify + @fastify/jwt. */
async function firstAuthenticatedAnswer(setup: Setup): Promise<BenchRow> {
  const headers = { authorization: `Bearer ${setup.token}` };
  const resources: Subject = { name: 'resources', script: setup.bundleEntry, env: { ...setup.env, FUNCTION_TARGET: 'resources' } };
  const fastify: Subject = { name: 'fastify + @fastify/jwt', script: FASTIFY_JWT, env: setup.env };
  const times = { resources: [] as number[], fastify: [] as number[] };
  for (let round = 0; round <= COLD_START_ROUNDS; round++) {
    const resourcesMs = (await startToFirstAnswer(resources, setup, WHOAMI, headers)).ms;
    const fastifyMs = (await startToFirstAnswer(fastify, setup, WHOAMI, headers)).ms;
    if (round === 0) continue;
    times.resources.push(resourcesMs);
    times.fastify.push(fastifyMs);
  }
  return ratioRow('first authenticated answer (admin GET whoami), resources bundle', median(times.resources), 'ms', 'fastify + @fastify/jwt', median(times.fastify), '<= 1x', (ratio) => ratio <= 1);
}

interface LoadSubject extends Subject {
  readyPath: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * Requests per second of each subject, all running at once and loaded in turn (autocannon, 32
 * connections) for three rotating rounds; the best round of each counts. Every process writes
 * its stdout into a pipe this process drains, as a container runtime does.
 */
async function throughputs(subjects: LoadSubject[]): Promise<number[]> {
  const processes = await Promise.all(subjects.map((subject) => spawnNodeProcess(subject.script, subject.env, subject.readyPath, { discardStdout: true })));
  try {
    const load = (index: number, seconds: number) => measureThroughput(`${processes[index]!.url}${subjects[index]!.path}`, subjects[index]!.headers, { seconds });
    for (let index = 0; index < subjects.length; index++) await load(index, 1);
    const best = subjects.map(() => 0);
    for (let round = 0; round < 3; round++) {
      for (let step = 0; step < subjects.length; step++) {
        const index = (step + round) % subjects.length;
        best[index] = Math.max(best[index]!, await load(index, 2));
      }
    }
    return best;
  } finally {
    await Promise.all(processes.map((child) => child.stop()));
  }
}

async function requestLogThroughput(setup: Setup): Promise<BenchRow[]> {
  const auth = { authorization: `Bearer ${setup.token}` };
  const resources = { script: setup.bundleEntry, readyPath: '/healthz', path: WHOAMI, headers: auth };
  const [bare, fastifyLogged, logged, quiet] = await throughputs([
    { name: 'bare node:http', script: BARE_NODE_HTTP, env: {}, readyPath: '/', path: WHOAMI, headers: {} },
    { name: 'fastify + @fastify/jwt, pino request log', script: FASTIFY_JWT, env: { ...setup.env, FASTIFY_REQUEST_LOG: 'on' }, readyPath: '/healthz', path: WHOAMI, headers: auth },
    { name: 'resources, request log on', ...resources, env: { ...setup.env, FUNCTION_TARGET: 'resources' } },
    { name: 'resources, LOG_LEVEL=warn', ...resources, env: { ...setup.env, FUNCTION_TARGET: 'resources', LOG_LEVEL: 'warn' } },
  ]);
  const name = 'authenticated GET whoami, resources bundle (container entry)';
  return [
    ratioRow(`${name}, request log on (default)`, logged!, 'req/s', 'bare node:http', bare!, '>= 0.62', (ratio) => ratio >= 0.62),
    ratioRow(`${name}, request log on (default)`, logged!, 'req/s', 'fastify + @fastify/jwt with its pino request log', fastifyLogged!, '>= 2', (ratio) => ratio >= 2),
    ratioRow(`${name}, request log off (LOG_LEVEL=warn)`, quiet!, 'req/s', 'bare node:http', bare!, '>= 0.7', (ratio) => ratio >= 0.7),
  ];
}

/** One open run-log stream, noting when each awaited marker arrives. */
interface OpenStream {
  arrivals: Map<string, number>;
  response: IncomingMessage;
}

function openStream(url: string, token: string, markers: string[]): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`run-log stream answered ${response.statusCode}`));
        response.resume();
        return;
      }
      const stream: OpenStream = { arrivals: new Map(), response };
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        for (const marker of markers) if (!stream.arrivals.has(marker) && chunk.includes(marker)) stream.arrivals.set(marker, performance.now());
      });
      response.on('error', () => undefined);
      resolve(stream);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function waitForAll(streams: OpenStream[], marker: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (streams.some((stream) => !stream.arrivals.has(marker))) {
    if (Date.now() > deadline) throw new Error(`"${marker}" reached ${streams.filter((stream) => stream.arrivals.has(marker)).length} of ${streams.length} streams within 60 s`);
    await pause(20);
  }
}

/**
 * 2,000 concurrent run-log streams on one run-logs bundle: memory per stream above the process
 * with one stream open, the p99 delay from a log append to its arrival on every stream (beside
 * the same with one stream), and memory per stream once each has carried 100 KB more log.
 */
async function runLogStreams(setup: Setup): Promise<BenchRow[]> {
  const database = await startTestDatabase();
  let server: FunctionProcess | undefined;
  const streams: OpenStream[] = [];
  try {
    const store = new RunStore(database.pool);
    const run = await store.createRun({ project: 'bench', workspace: 'ws', type: 'apply', principal: 'admin', principalType: 'admin' });
    await store.appendLogLines(run.id, ['first line']);
    server = await spawnNodeProcess(setup.bundleEntry, { ...setup.env, FUNCTION_TARGET: 'run-logs', DATABASE_URL: database.connectionString }, '/healthz', { discardStdout: true });
    const url = `${server.url}/api/v1alpha1/run-logs/bench/${run.id}`;
    const appends = Array.from({ length: 5 }, (_, index) => `delivery-marker-${index}`);
    const markers = ['first line', 'single-stream-marker', ...appends, 'last-of-the-long-log'];

    const delay = async (targets: OpenStream[], marker: string) => {
      const appendedAt = performance.now();
      await store.appendLogLines(run.id, [marker]);
      await waitForAll(targets, marker);
      return targets.map((stream) => stream.arrivals.get(marker)! - appendedAt);
    };

    const first = await openStream(url, setup.token, markers);
    streams.push(first);
    await waitForAll(streams, 'first line');
    const singleDelays = await delay([first], 'single-stream-marker');
    await pause(1_000);
    const oneStreamKb = residentKb(server.child.pid!);

    // Opened in batches so that the listen backlog never overflows.
    while (streams.length < STREAMS + 1) {
      const batch = await Promise.all(Array.from({ length: Math.min(200, STREAMS + 1 - streams.length) }, () => openStream(url, setup.token, markers)));
      streams.push(...batch);
      await waitForAll(batch, 'first line');
    }
    await pause(2_000);
    const openKb = residentKb(server.child.pid!);

    const delays: number[] = [];
    for (const marker of appends) delays.push(...(await delay(streams, marker)));

    // 100 KB more log through every stream: a stream that kept what it sent would grow by as much.
    const longLine = 'x'.repeat(200);
    for (let batch = 0; batch < 5; batch++) await store.appendLogLines(run.id, Array.from({ length: 100 }, () => longLine));
    await store.appendLogLines(run.id, ['last-of-the-long-log']);
    await waitForAll(streams, 'last-of-the-long-log');
    await pause(2_000);
    const afterLogKb = residentKb(server.child.pid!);

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    return [
      { name: 'run-logs bundle RSS with one stream open (the idle level)', value: oneStreamKb / 1024, unit: 'MB' },
      { name: `memory per stream, ${STREAMS} concurrent run-log streams, above that level`, value: (openKb - oneStreamKb) / STREAMS, unit: 'KB', target: '<= 20 KB', met: (openKb - oneStreamKb) / STREAMS <= 20 },
      {
        name: `memory per stream after 100 KB more log through each of the ${STREAMS}`,
        value: (afterLogKb - oneStreamKb) / STREAMS,
        unit: 'KB',
        target: '<= 20 KB',
        met: (afterLogKb - oneStreamKb) / STREAMS <= 20,
      },
      ratioRow(`p99 append to arrival on all of ${STREAMS} streams (5 appends)`, percentile(sorted(delays), 0.99), 'ms', 'one stream', percentile(sorted(singleDelays), 0.99), ''),
    ];
  } finally {
    for (const stream of streams) stream.response.destroy();
    await server?.stop();
    await database.destroy();
  }
}

export const serverlessBenchmark: Benchmark = async () => {
  const folder = mkdtempSync(join(tmpdir(), 'platform-api-bench-bundles-'));
  try {
    await buildFunctionBundles(join(folder, 'dist'));
    const env = productionEnv();
    const setup: Setup = {
      bundleEntry: join(folder, 'dist', 'entry.mjs'),
      env,
      token: await issueAdminToken(parseAdminAccountSettings(env), BASE_URL),
      compileCache: join(folder, 'compile-cache'),
    };
    return [...(await coldStarts(setup)), await firstAuthenticatedAnswer(setup), ...(await requestLogThroughput(setup)), ...(await runLogStreams(setup))];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};
