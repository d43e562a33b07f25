// Issue 22, item 6, "recording stays off the request's critical path": requests the default policy
// records (refusals: a GET whoami with a token the server does not accept, 401), through the container
// entry (the resources bundle), with auditing off (AUDIT_POLICY=None) beside the default policy
// writing to standard output, and to standard output and PostgreSQL (batched inserts), all measured
// in the same run. Target: >= 0.9 of auditing off.
//
// What is measured is the function's own cost of auditing: requests per second of the function's
// own CPU time (what one core of it serves), beside the wall-clock throughput. On a machine of two or more CPUs the
// functions run on CPU 0 alone, and the load generator, PostgreSQL and the processes draining the
// functions' standard output (a container runtime's log shim) on the others, as they would run on
// hosts or cores of their own in production. Each subject runs as two processes (two processes of
// one configuration differ by a few per cent, as much as the effect measured); each round loads every
// process once, a subject's figure is its processes' mean, and the median of the rounds' ratios
// counts, so a slow spell of a shared machine does not decide the result. A second set of processes
// with auditing off is measured like the rest: its ratio shows how far apart two measurements of
// one configuration fall on the machine at hand.
import { availableParallelism } from 'node:os';
import { startTestDatabase } from '../runs/test-database.ts';
import { migrate } from '../../shared/database/migrate.ts';
import { WHOAMI, bundleSetup, confineThisProcess, pairedThroughputs } from './bundle-setup.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';

const TARGET = 0.9;

export const auditBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const separateCpus = availableParallelism() >= 2;
  // Before the database starts, so that its processes inherit the placement.
  const release = separateCpus ? confineThisProcess(`1-${availableParallelism() - 1}`) : () => {};
  const database = await startTestDatabase();
  try {
    await migrate(database.pool);
    const refused = { authorization: 'Bearer not-a-token-the-server-issued' };
    const subject = (name: string, env: Record<string, string>) => ({
      name,
      script: setup.bundleEntry,
      readyPath: '/healthz',
      path: WHOAMI,
      headers: refused,
      expectedStatus: 401,
      env: { ...setup.env, FUNCTION_TARGET: 'resources', ...env },
    });
    const measured = await pairedThroughputs(
      [
        subject('auditing off', { AUDIT_POLICY: 'None' }),
        subject('default policy, standard output', {}),
        subject('default policy, standard output and PostgreSQL', { DATABASE_URL: database.connectionString }),
        // The same as the first: how far apart the figures of one configuration fall (the noise).
        subject('auditing off, again', { AUDIT_POLICY: 'None' }),
      ],
      { rounds: 5, seconds: 2, replicas: 2, ...(separateCpus ? { functionCpu: 0 } : {}) },
    );
    const { rows } = await database.pool.query<{ count: string }>('SELECT count(*) FROM audit_events');
    const placement = separateCpus ? 'function on a CPU of its own' : 'one CPU shared by all';
    const name = `refused GET whoami (each one recorded), resources bundle, ${placement}`;
    const sinks: Array<[string, number]> = [
      ['standard output', 1],
      [`standard output and PostgreSQL (${rows[0]!.count} events stored)`, 2],
    ];
    // The target is on what one core of the function serves (requests per second of its own CPU
    // time). Wall-clock throughput is shown beside it: on a two-CPU machine the load generator shares
    // its CPU with PostgreSQL, so there it also measures the load generator's share of that CPU.
    const baselineName = 'auditing off (median of rounds; ratio: median of per-round ratios)';
    const control: BenchRow = {
      name: `${name}, auditing off, other processes of the same configuration (the measurement's noise)`,
      value: measured.perCpuSecond[3]!,
      unit: 'req/CPU-s',
      baselineName,
      baselineValue: measured.perCpuSecond[0]!,
      ratio: measured.cpuRatios[3]!,
    };
    const rowsOfSinks = sinks.flatMap(([sink, index]): BenchRow[] => [
      {
        name: `${name}, audit to ${sink}: requests per CPU second of the function`,
        value: measured.perCpuSecond[index]!,
        unit: 'req/CPU-s',
        baselineName,
        baselineValue: measured.perCpuSecond[0]!,
        ratio: measured.cpuRatios[index]!,
        target: `>= ${TARGET}`,
        met: measured.cpuRatios[index]! >= TARGET,
      },
      {
        name: `${name}, audit to ${sink}: wall-clock throughput`,
        value: measured.throughputs[index]!,
        unit: 'req/s',
        baselineName,
        baselineValue: measured.throughputs[0]!,
        ratio: measured.ratios[index]!,
      },
    ]);
    return [...rowsOfSinks, control];
  } finally {
    await database.destroy();
    release();
  }
};
