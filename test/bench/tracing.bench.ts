// Issue 23: "tracing off costs nothing measurable in cold start". Each function bundle's cold
// start with OTEL unset is measured beside bare node:http in the same run, interleaved, as
// cold-start.bench.ts does; and with an OTLP endpoint (tracing on: the SDK chunk loaded), for what
// turning it on costs. A build without the tracing code path does not exist, so to compare with the
// code before tracing, point BASELINE_BUNDLE_ENTRY at the dist/entry.mjs that `npm run build`
// made from an earlier commit: its bundles are then started in the same interleaved rounds.
import type { FUNCTION_NAMES } from '../../shared/contract/routes/route-table.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import type { Benchmark, BenchRow } from './bench-row.ts';
import { BARE_NODE_HTTP, bundleSetup, median, ratioRow, startToFirstAnswer, type Subject } from './bundle-setup.ts';

const ROUNDS = 14;
/** The lightest function and the one that loads the most at start. */
const MEASURED = ['login', 'resources'] as const satisfies ReadonlyArray<(typeof FUNCTION_NAMES)[number]>;
const BASELINE_ENTRY = process.env.BASELINE_BUNDLE_ENTRY;

export const tracingColdStartBenchmark: Benchmark = async () => {
  const setup = await bundleSetup();
  const receiver = await startOtlpReceiver();
  try {
    const bare: Subject = { name: 'bare node:http', script: BARE_NODE_HTTP, env: {} };
    const variants = MEASURED.map((name) => {
      const env = { ...setup.env, FUNCTION_TARGET: name };
      return {
        name,
        off: { name, script: setup.bundleEntry, env },
        on: { name, script: setup.bundleEntry, env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } },
        baseline: BASELINE_ENTRY ? { name, script: BASELINE_ENTRY, env } : undefined,
      };
    });
    const subjects = [
      bare,
      ...variants.flatMap(({ off, on, baseline }) => (baseline ? [off, on, baseline] : [off, on])),
    ];
    const times = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
    // Round 0 fills the compile cache and the page cache and is not counted. Each round starts one
    // subject later, so that no subject always follows the same one (a predecessor's exit overlaps).
    for (let round = 0; round <= ROUNDS; round++) {
      for (let step = 0; step < subjects.length; step++) {
        const subject = subjects[(step + round) % subjects.length]!;
        const { ms } = await startToFirstAnswer(subject, setup, subject === bare ? '/' : '/healthz');
        if (round > 0) times.get(subject)!.push(ms);
      }
    }
    const bareMs = median(times.get(bare)!);
    const rows: BenchRow[] = [];
    for (const { name, off, on, baseline } of variants) {
      const offMs = median(times.get(off)!);
      rows.push(
        ratioRow(
          `cold start, ${name} bundle, tracing off (OTEL unset)`,
          offMs,
          'ms',
          'bare node:http',
          bareMs,
          '<= 3x',
          (r) => r <= 3,
        ),
        ratioRow(
          `cold start, ${name} bundle, tracing on (OTLP endpoint)`,
          median(times.get(on)!),
          'ms',
          'tracing off',
          offMs,
          '',
        ),
      );
      if (baseline) {
        const baselineMs = median(times.get(baseline)!);
        rows.push(
          ratioRow(
            `cold start, ${name} bundle of BASELINE_BUNDLE_ENTRY`,
            baselineMs,
            'ms',
            'bare node:http',
            bareMs,
            '',
          ),
          ratioRow(`cold start, ${name} bundle, tracing off`, offMs, 'ms', 'BASELINE_BUNDLE_ENTRY', baselineMs, ''),
        );
      }
    }
    return rows;
  } finally {
    await receiver.close();
  }
};
