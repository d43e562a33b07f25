// Issue 22, item 6, "recording stays off the request's critical path": requests the default policy
// records, through the container entry (the resources bundle), with auditing off (AUDIT_POLICY=None)
// beside the default policy writing to standard output, and to standard output and PostgreSQL
// (batched inserts), all measured in the same run. Two workloads, every request of each recorded:
// - authorised writes (an admin's merge patch of a Workspace, sent on to the cluster, which runs in
//   a process of its own): what the default policy records a server's work for. Target: >= 0.9 of
//   auditing off.
// - the worst case: refusals (a GET whoami with a token the server does not accept, 401), the
//   cheapest request there is, so that auditing is the largest share of it. Shown, with no target:
//   a flood of refused tokens is not a server's throughput, and each is recorded on purpose.
//
// What is measured is the function's own cost of auditing: requests per second of the function's
// own CPU time (what one core of it serves), every configuration at one rate (LOAD_FRACTION). On a
// machine of two or more CPUs the functions run on CPU 0 alone, and the load generator, the cluster,
// PostgreSQL and the processes draining the functions' standard output (a container runtime's log
// shim) on the others, as they would run on hosts or cores of their own in production. Each subject runs as two processes (two processes of
// one configuration differ by a few per cent, as much as the effect measured); each round loads every
// process once, a subject's figure is its processes' mean, and the median of the rounds' ratios
// counts, so a slow spell of a shared machine does not decide the result. A second set of processes
// with auditing off is measured like the rest: its ratio shows how far apart two measurements of
// one configuration fall on the machine at hand.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDatabase } from '../runs/test-database.ts';
import { migrate } from '../../shared/database/migrate.ts';
import {
  type LoadSubject,
  type PairedThroughputs,
  WHOAMI,
  bundleSetup,
  confineThisProcess,
  pairedThroughputs,
} from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import type { BenchClusterReady } from './servers/kube-emulator.ts';

const TARGET = 0.9;
/**
 * Every configuration of a workload is loaded at one rate, this fraction of what the slowest
 * answered as fast as it could: the load generator, the cluster and PostgreSQL share the other
 * CPU, so loads as fast as each answers would give the configurations without PostgreSQL more
 * load, and a process under more load spends less CPU per request (PairedThroughputs.rate).
 */
const LOAD_FRACTION = 0.7;

/** The emulator in a process of its own (servers/kube-emulator.ts), with its kubeconfig in a file. */
async function startBenchCluster(): Promise<BenchClusterReady & { kubeConfigPath: string; stop(): Promise<void> }> {
  const child = fork('test/bench/servers/kube-emulator.ts', { env: { PATH: process.env.PATH }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = await new Promise<BenchClusterReady>((resolve, reject) => {
    child.once('message', (message) => resolve(message as BenchClusterReady));
    child.once('exit', (code) => reject(new Error(`the bench cluster exited with ${code} before it was ready`)));
  });
  const folder = mkdtempSync(join(tmpdir(), 'platform-api-bench-cluster-'));
  const kubeConfigPath = join(folder, 'kubeconfig');
  writeFileSync(kubeConfigPath, ready.kubeConfigYaml);
  return {
    ...ready,
    kubeConfigPath,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** One workload's rows: each sink against auditing off, and the A/A control (subjects in that order). */
function workloadRows(
  name: string,
  measured: PairedThroughputs,
  sinks: Array<[string, number]>,
  control: number,
  targeted: boolean,
): BenchRow[] {
  const baselineName = 'auditing off (median of rounds; ratio: median of per-round ratios)';
  const load = `${measured.rate} req/s to each (${LOAD_FRACTION * 100} % of what the slowest answered at saturation)`;
  const row = (label: string, index: number): BenchRow => ({
    name: `${name}, ${label}: requests per CPU second of the function at ${load}`,
    value: measured.perCpuSecond[index]!,
    unit: 'req/CPU-s',
    baselineName,
    baselineValue: measured.perCpuSecond[0]!,
    ratio: measured.cpuRatios[index]!,
  });
  return [
    ...sinks.map(([sink, index]): BenchRow => {
      const met = measured.cpuRatios[index]! >= TARGET;
      return { ...row(`audit to ${sink}`, index), ...(targeted ? { target: `>= ${TARGET}`, met } : {}) };
    }),
    row("auditing off, other processes of the same configuration (the measurement's noise)", control),
  ];
}

export const auditBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const separateCpus = availableParallelism() >= 2;
  // Before the database and the cluster start, so that their processes inherit the placement.
  const release = separateCpus ? confineThisProcess(`1-${availableParallelism() - 1}`) : () => {};
  const database = await startTestDatabase();
  const cluster = await startBenchCluster();
  try {
    await migrate(database.pool);
    const placement = separateCpus ? 'function on a CPU of its own' : 'one CPU shared by all';
    const paired = (subjects: LoadSubject[]) =>
      pairedThroughputs(subjects, {
        rounds: 5,
        seconds: 4,
        replicas: 2,
        loadFraction: LOAD_FRACTION,
        warmUpSeconds: 4,
        ...(separateCpus ? { functionCpu: 0 } : {}),
      });
    /** Auditing off, the default policy to standard output, and to PostgreSQL too, then off again (the noise). */
    const configurations = (subject: (name: string, env: Record<string, string>) => LoadSubject) => [
      subject('auditing off', { AUDIT_POLICY: 'None' }),
      subject('default policy, standard output', {}),
      subject('default policy, standard output and PostgreSQL', { DATABASE_URL: database.connectionString }),
      subject('auditing off, again', { AUDIT_POLICY: 'None' }),
    ];
    const stored = async () =>
      Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM audit_events')).rows[0]!.count);
    const sinks = (count: number): Array<[string, number]> => [
      ['standard output', 1],
      [`standard output and PostgreSQL (${count} events stored)`, 2],
    ];

    // The worst case: the cheapest request there is, every one recorded (a token the server refuses).
    const refusals = await paired(
      configurations((name, env) => ({
        name,
        script: setup.bundleEntry,
        readyPath: '/healthz',
        path: WHOAMI,
        headers: { authorization: 'Bearer not-a-token-the-server-issued' },
        expectedStatus: 401,
        env: { ...setup.env, FUNCTION_TARGET: 'resources', ...env },
      })),
    );
    // The table is append-only (even to its owner's TRUNCATE): the second workload's events are the difference.
    const refusalsStored = await stored();

    // What the default policy is for: authorised writes, every one recorded (a merge patch of a
    // Workspace by the admin, sent on to the cluster).
    const writes = await paired(
      configurations((name, env) => ({
        name,
        script: setup.bundleEntry,
        readyPath: '/healthz',
        path: cluster.workspacePath,
        headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/merge-patch+json' },
        write: { method: 'PATCH', body: JSON.stringify({ metadata: { labels: { benchmark: 'audit' } } }) },
        env: { ...setup.env, FUNCTION_TARGET: 'resources', KUBECONFIG: cluster.kubeConfigPath, ...env },
      })),
    );
    const writesStored = (await stored()) - refusalsStored;
    return [
      ...workloadRows(
        `authorised PATCH of a Workspace (each one recorded), resources bundle, cluster in its own process, ${placement}`,
        writes,
        sinks(writesStored),
        3,
        true,
      ),
      ...workloadRows(
        `worst case, refused GET whoami (each one recorded), resources bundle, ${placement}`,
        refusals,
        sinks(refusalsStored),
        3,
        false,
      ),
    ];
  } finally {
    await cluster.stop();
    await database.destroy();
    release();
  }
};
