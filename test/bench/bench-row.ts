/** One line of the `npm run bench` table: a measurement beside the baseline measured in the same run. */
export interface BenchRow {
  /** What was measured, e.g. "authenticated GET, container adapter". */
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run, e.g. bare node:http. */
  baselineName?: string;
  baselineValue?: number;
  /** value / baselineValue (or its inverse where lower is better), as the target is phrased. */
  ratio?: number;
  /** The target as text, e.g. ">= 0.6" or "<= 5 ms". */
  target?: string;
  /** Whether the target was met; undefined when there is no target. */
  met?: boolean;
}

/** A benchmark module's entry point: measures and returns its rows. */
export type Benchmark = () => Promise<BenchRow[]>;
