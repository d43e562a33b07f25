// What issue 10's benchmarks share: the bundles `npm run build` makes, built once per bench run
// into a folder of their own, production settings, an admin token, and measuring helpers.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { buildConsole } from '../../infra/tools/build-console.ts';
import { buildFunctionBundles } from '../../infra/tools/build-functions.ts';
import { issueAdminToken } from '../../shared/auth/admin-token.ts';
import { parseAdminAccountSettings } from '../../shared/base/config/admin-account-settings.ts';
import { measureLoad, percentile } from './http-load.ts';
import { REPO_ROOT, freePort, spawnNodeProcess, type NodeProcessOptions } from '../support/function-servers.ts';
import type { BenchRow } from './bench-row.ts';

export const WHOAMI = '/api/v1alpha1/auth/whoami';
export const BARE_NODE_HTTP = 'test/bench/servers/bare-node-http.mjs';
export const FASTIFY_JWT = 'test/bench/servers/fastify-jwt.mjs';
const BASE_URL = 'http://bench.local';

export interface BundleSetup {
  /** dist/entry.mjs of the bundles built for this run. */
  bundleEntry: string;
  /** Production-mode settings with a cost-10 `$2a$` hash, as the spec recommends; LOG_LEVEL left at its default (info). */
  env: Record<string, string>;
  /** An admin token those settings accept. */
  token: string;
  /** Every process of the cold-start runs shares one compile cache, warmed by an uncounted first start, as the image's is. */
  compileCache: string;
}

let building: Promise<BundleSetup> | undefined;

/** Builds the bundles once per bench run (removed when the process exits). */
export function bundleSetup(): Promise<BundleSetup> {
  building ??= (async () => {
    const folder = mkdtempSync(join(tmpdir(), 'platform-api-bench-bundles-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    await buildFunctionBundles(join(folder, 'dist'));
    // After the bundles (which empty their folder), where the image has it: the image's compile-cache warm-up starts it too.
    await buildConsole(join(folder, 'dist', 'console'));
    const env = {
      NODE_ENV: 'production',
      API_BASE_URL: BASE_URL,
      ADMIN_ACCOUNT_PASSWORD_HASH: bcrypt.hashSync('bench password', 10).replace(/^\$2b\$/, '$2a$'),
      ADMIN_ACCOUNT_TOKEN_SIGNING_KEY: 'b'.repeat(64),
      ADMIN_ACCOUNT_TOKEN_TTL: '1h',
    };
    return {
      bundleEntry: join(folder, 'dist', 'entry.mjs'),
      env,
      token: await issueAdminToken(parseAdminAccountSettings(env), BASE_URL),
      compileCache: join(folder, 'compile-cache'),
    };
  })();
  return building;
}

export function ratioRow(
  name: string,
  value: number,
  unit: string,
  baselineName: string,
  baselineValue: number,
  target: string,
  meets?: (ratio: number) => boolean,
): BenchRow {
  const ratio = value / baselineValue;
  return { name, value, unit, baselineName, baselineValue, ratio, target, met: meets?.(ratio) };
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** A process's resident memory, in KB. */
export function residentKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, ''));
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LoadSubject {
  name: string;
  script: string;
  env: Record<string, string>;
  readyPath: string;
  path: string;
  headers: Record<string, string>;
  /** The request's method and body, when it is not a GET (the body's type goes in `headers`). */
  write?: { method: string; body: string };
  /** The status every answer has; default any 2xx. */
  expectedStatus?: number;
}

/**
 * Requests per second of each subject, all running at once and loaded in turn (autocannon, 32
 * connections) for three rotating rounds; the best round of each counts. Every process writes
 * its stdout into a pipe this process drains, as a container runtime does.
 */
export async function throughputs(subjects: LoadSubject[]): Promise<number[]> {
  const running = await startLoadSubjects(subjects, { discardStdout: true });
  try {
    return (await running.rounds(3, 2)).map((loads) => Math.max(...loads.map((load) => load.perSecond)));
  } finally {
    await running.stop();
  }
}

/** Starts every subject, warms each with `warmUpSeconds` of load, and returns what loads them in rounds. */
async function startLoadSubjects(subjects: LoadSubject[], options: NodeProcessOptions, warmUpSeconds = 1) {
  const processes = await Promise.all(
    subjects.map((subject) => spawnNodeProcess(subject.script, subject.env, subject.readyPath, options)),
  );
  const load = async (index: number, seconds: number, rate?: number): Promise<SubjectLoad> => {
    const pid = processes[index]!.child.pid!;
    const cpuBefore = cpuSeconds(pid);
    const { path, headers, write, expectedStatus } = subjects[index]!;
    const answered = await measureLoad(`${processes[index]!.url}${path}`, headers, {
      seconds,
      ...(write ?? {}),
      ...(rate ? { rate } : {}),
      ...(expectedStatus !== undefined ? { expectedStatus } : {}),
    });
    return { perSecond: answered.perSecond, perCpuSecond: answered.total / (cpuSeconds(pid) - cpuBefore) };
  };
  const stop = () => Promise.all(processes.map((child) => child.stop()));
  /**
   * Each subject's throughput in each round; every round loads each subject once, in an order that
   * rotates. With `rate`, every load sends that many requests per second instead of as many as answered.
   */
  const rounds = async (count: number, seconds: number, rate?: number) => {
    const measured = subjects.map((): SubjectLoad[] => []);
    for (let round = 0; round < count; round++) {
      for (let step = 0; step < subjects.length; step++) {
        const index = (step + round) % subjects.length;
        measured[index]![round] = await load(index, seconds, rate);
      }
    }
    return measured;
  };
  try {
    for (let index = 0; index < subjects.length; index++) await load(index, warmUpSeconds);
  } catch (error) {
    await stop();
    throw error;
  }
  return { rounds, stop };
}

/** One subject under one load: requests answered per second, and per second of its own CPU time. */
interface SubjectLoad {
  perSecond: number;
  perCpuSecond: number;
}

/** User and system CPU time of a process so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

export interface PairedThroughputs {
  /** Median requests per second of each subject over the rounds. */
  throughputs: number[];
  /** Per subject, the median over the rounds of its throughput divided by the first subject's in the same round. */
  ratios: number[];
  /** Median requests per second of the subject's own CPU time: what one core of it serves. */
  perCpuSecond: number[];
  /** Per subject, the median over the rounds of its requests per CPU second divided by the first subject's. */
  cpuRatios: number[];
  /** Per subject, its requests per second in each round (for ratios between any two subjects). */
  perRound: number[][];
  /**
   * The fixed rate every load sent, with `loadFraction`. A process loaded as fast as it answers
   * spends more CPU per request the less load it gets (fewer requests share a turn of the event
   * loop, a system call, a collection); on a machine where the load generator shares a CPU with
   * what a configuration adds there (PostgreSQL), the faster configurations would be measured at
   * a higher load. One rate below every subject's saturation compares them at equal load.
   */
  rate?: number;
}

/** The median over the rounds of `subject`'s figure divided by `baseline`'s in the same round. */
export function medianRoundRatio(perRound: number[][], subject: number, baseline: number): number {
  return median(perRound[subject]!.map((value, round) => value / perRound[baseline]![round]!));
}

/**
 * Throughput ratios robust to a noisy machine: every round loads each subject once (the order
 * rotates), each round's throughputs are divided by the first subject's of that round, and the
 * median of those ratios counts, so a slow spell hits a ratio's both sides or only one round.
 * With `functionCpu`, the subjects run on that CPU alone and this process (the load generator),
 * its children started from now on (a database, the stdout drains) run on the others: the
 * server's own cost is what is measured, as with a database and a log shipper on hosts of their own.
 * With `replicas`, each subject runs as that many processes, loaded in turn, and a round's figure
 * of a subject is their mean.
 */
export async function pairedThroughputs(
  subjects: LoadSubject[],
  options: {
    rounds?: number;
    seconds?: number;
    functionCpu?: number;
    replicas?: number;
    /**
     * Load every subject at this fraction of what the slowest answered as fast as it could (in a
     * first round after the warm-up), the same rate for all: see `PairedThroughputs.rate`.
     */
    loadFraction?: number;
    /**
     * Seconds of load each process gets before anything is measured (default 1). A function's
     * first seconds under load are slower while V8 is still compiling its hot paths: a round
     * measured then is an outlier of its process alone.
     */
    warmUpSeconds?: number;
  } = {},
): Promise<PairedThroughputs> {
  const { rounds = 5, seconds = 2, replicas = 1 } = options;
  const cpus = options.functionCpu === undefined ? undefined : String(options.functionCpu);
  // Replicas of a subject are processes of their own: two processes of one configuration differ by a
  // few per cent (what V8 compiled, where memory lies), as much as some effects measured here.
  // Subjects alternate in the loading order (one replica of each, then the next), so neighbours in
  // time are different subjects and a slow spell falls on all of them.
  const processes = Array.from({ length: replicas }, () => subjects).flat();
  const running = await startLoadSubjects(
    processes,
    { drainStdoutElsewhere: true, ...(cpus ? { cpus } : {}) },
    options.warmUpSeconds,
  );
  try {
    const rate = options.loadFraction
      ? Math.round(
          Math.min(...(await running.rounds(1, seconds)).map(([load]) => load!.perSecond)) * options.loadFraction,
        )
      : undefined;
    const measured = await running.rounds(rounds, seconds, rate);
    /** Each subject's loads per round, its replicas' figures averaged. */
    const perSubject = (field: keyof SubjectLoad) =>
      subjects.map((_, subject) =>
        Array.from({ length: rounds }, (_, round) => {
          const loads = Array.from(
            { length: replicas },
            (_, replica) => measured[replica * subjects.length + subject]![round]![field],
          );
          return loads.reduce((sum, value) => sum + value, 0) / loads.length;
        }),
      );
    const medianOf = (field: keyof SubjectLoad) => perSubject(field).map(median);
    const ratiosOf = (field: keyof SubjectLoad) => {
      const figures = perSubject(field);
      return figures.map((_, subject) => medianRoundRatio(figures, subject, 0));
    };
    return {
      throughputs: medianOf('perSecond'),
      ratios: ratiosOf('perSecond'),
      perCpuSecond: medianOf('perCpuSecond'),
      cpuRatios: ratiosOf('perCpuSecond'),
      perRound: perSubject('perSecond'),
      ...(rate ? { rate } : {}),
    };
  } finally {
    await running.stop();
  }
}

/** Runs this process, and what it starts from now on, on `cpus` only (`taskset`); returns what undoes it. */
export function confineThisProcess(cpus: string): () => void {
  const all = `0-${availableParallelism() - 1}`;
  execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
  return () => execFileSync('taskset', ['-a', '-cp', all, String(process.pid)], { stdio: 'ignore' });
}

/** A process whose cold start is measured. */
export interface Subject {
  name: string;
  script: string;
  env: Record<string, string>;
  /** False: started without V8's compile cache; otherwise with the run's shared one (BundleSetup.compileCache). */
  compileCache?: boolean;
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

/**
 * Milliseconds from spawn to the first 200 on `path`, polled every 2 ms on fresh connections, and
 * the CPU time the process had spent by then (steadier than wall time on a busy machine); with
 * `idleRss`, also the resident memory after a second of idleness. The process is stopped after.
 */
export async function startToFirstAnswer(
  subject: Subject,
  setup: BundleSetup,
  path: string,
  headers: Record<string, string> = {},
  idleRss = false,
): Promise<{ ms: number; cpuMs: number; rssKb: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [subject.script], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      ...subject.env,
      PORT: String(port),
      ...(subject.compileCache === false ? {} : { NODE_COMPILE_CACHE: setup.compileCache }),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${subject.name} exited with ${child.exitCode}: ${errors}`);
      if ((await statusOf(port, path, headers)) === 200) break;
      if (performance.now() - started > 30_000)
        throw new Error(`${subject.name} gave no 200 on ${path} within 30 s: ${errors}`);
      await pause(2);
    }
    const ms = performance.now() - started;
    const cpuMs = cpuSeconds(child.pid!) * 1000;
    if (!idleRss) return { ms, cpuMs, rssKb: 0 };
    await pause(1_000);
    return { ms, cpuMs, rssKb: residentKb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
