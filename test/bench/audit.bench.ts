// Issue 22, item 6, "recording stays off the request's critical path": requests the default policy
// records, through the container entry (the resources bundle), with auditing off (AUDIT_POLICY=None)
// beside the default policy writing to standard output, and to standard output and PostgreSQL
// (batched inserts), all measured in the same run. Two workloads, every request of each recorded:
// - authorized writes (an admin's merge patch of a Workspace, sent on to the cluster, which runs in
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
// shim) on the others, as they would run on hosts or cores of their own in production. Each
// subject runs as two processes (two processes of one configuration differ by a few per cent, as
// much as the effect measured); each of 15 rounds loads every process once for 2 s, a subject's
// figure is its processes' mean, and the median of the rounds' ratios counts, so a slow spell of a
// shared machine does not decide the result. A second set of processes with auditing off is
// measured like the rest: its ratio shows how far apart two measurements of one configuration fall
// on the machine at hand.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDatabase } from '../support/test-database.ts';
import { migrate } from '../../shared/base/database/migrate.ts';
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

/** The workload's configurations, in the order `paired` measures them. */
const [OFF, STDOUT, STDOUT_AND_DATABASE, OFF_AGAIN] = [0, 1, 2, 3];

/** One workload's rows: each sink against auditing off, and the A/A control. */
function workloadRows(name: string, measured: PairedThroughputs, stored: number, targeted: boolean): BenchRow[] {
  const baselineName = 'auditing off (median of rounds; ratio: median of per-round ratios)';
  const load = `${measured.rate} req/s to each (${LOAD_FRACTION * 100} % of what the slowest answered at saturation)`;
  const row = (label: string, index: number): BenchRow => ({
    name: `${name}, ${label}: requests per CPU second of the function at ${load}`,
    value: measured.perCpuSecond[index]!,
    unit: 'req/CPU-s',
    baselineName,
    baselineValue: measured.perCpuSecond[OFF]!,
    ratio: measured.cpuRatios[index]!,
  });
  const sinks: Array<[string, number]> = [
    ['standard output', STDOUT],
    [`standard output and PostgreSQL (${stored} events stored)`, STDOUT_AND_DATABASE],
  ];
  return [
    ...sinks.map(([sink, index]): BenchRow => {
      const met = measured.cpuRatios[index]! >= TARGET;
      return { ...row(`audit to ${sink}`, index), ...(targeted ? { target: `>= ${TARGET}`, met } : {}) };
    }),
    row("auditing off, other processes of the same configuration (the measurement's noise)", OFF_AGAIN),
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
    /**
     * One workload (a request to the resources bundle) measured with auditing off, the default
     * policy to standard output, to standard output and PostgreSQL, and off again (the noise).
     */
    const paired = (request: Pick<LoadSubject, 'path' | 'headers' | 'write' | 'expectedStatus'>, env = {}) => {
      const subject = (name: string, configuration: Record<string, string>): LoadSubject => ({
        name,
        script: setup.bundleEntry,
        readyPath: '/healthz',
        ...request,
        env: { ...setup.env, FUNCTION_TARGET: 'resources', ...env, ...configuration },
      });
      return pairedThroughputs(
        [
          subject('auditing off', { AUDIT_POLICY: 'None' }),
          subject('default policy, standard output', {}),
          subject('default policy, standard output and PostgreSQL', { DATABASE_URL: database.connectionString }),
          subject('auditing off, again', { AUDIT_POLICY: 'None' }),
        ],
        {
          // Many short rounds rather than a few long ones: two loads of one process a few seconds
          // apart differ by up to 10 % on a shared virtual machine, so a ratio's precision comes
          // from the number of rounds (writes with PostgreSQL: medians of five rounds fell from
          // 0.82 to 0.98 between runs, of 15 from 0.92 to 1.00), and short loads keep the
          // processes compared in a round close in time.
          rounds: 15,
          seconds: 2,
          replicas: 2,
          loadFraction: LOAD_FRACTION,
          warmUpSeconds: 4,
          ...(separateCpus ? { functionCpu: 0 } : {}),
        },
      );
    };
    const stored = async () =>
      Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM audit_events')).rows[0]!.count);

    // The worst case: the cheapest request there is, every one recorded (a token the server refuses).
    const refusals = await paired({
      path: WHOAMI,
      headers: { authorization: 'Bearer not-a-token-the-server-issued' },
      expectedStatus: 401,
    });
    // The table is append-only (even to its owner's TRUNCATE): the second workload's events are the difference.
    const refusalsStored = await stored();

    // What the default policy is for: authorized writes, every one recorded (a merge patch of a
    // Workspace by the admin, sent on to the cluster).
    const writes = await paired(
      {
        path: cluster.workspacePath,
        headers: { authorization: `Bearer ${setup.token}`, 'content-type': 'application/merge-patch+json' },
        write: { method: 'PATCH', body: JSON.stringify({ metadata: { labels: { benchmark: 'audit' } } }) },
      },
      { KUBECONFIG: cluster.kubeConfigPath },
    );
    const writesStored = (await stored()) - refusalsStored;
    return [
      ...workloadRows(
        `authorized PATCH of a Workspace (each one recorded), resources bundle, cluster in its own process, ${placement}`,
        writes,
        writesStored,
        true,
      ),
      ...workloadRows(
        `worst case, refused GET whoami (each one recorded), resources bundle, ${placement}`,
        refusals,
        refusalsStored,
        false,
      ),
    ];
  } finally {
    await cluster.stop();
    await database.destroy();
    release();
  }
};
