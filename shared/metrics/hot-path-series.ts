/**
 * The metrics every request updates (the HTTP histogram, authentications, token cache lookups), kept
 * in plain maps keyed by the label values joined: prom-client's own metrics validate and hash their
 * labels on each update, which costs a few microseconds a request; these cost a map lookup. They
 * hand prom-client's registry what its own metrics would (`get()`), so the exposition is the same.
 */

type LabelValues = Record<string, string | number>;

interface Sample {
  value: number;
  labels: LabelValues;
  metricName?: string;
}

/** What prom-client's registry reads of a metric (`registerMetric`, `metrics()`). */
interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
  reset(): void;
}

// A separator no label value of these metrics holds (route templates, methods, reasons, names).
const SEPARATOR = '\u0000';

/** A counter by label values, in the order of `labelNames`. */
export class HotCounter implements RegistryMetric {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #series = new Map<string, { labels: LabelValues; value: number }>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  inc(...values: string[]): void {
    const key = values.join(SEPARATOR);
    const series = this.#series.get(key);
    if (series) series.value += 1;
    else this.#series.set(key, { labels: labelsOf(this.labelNames, values), value: 1 });
  }

  async get() {
    const values = [...this.#series.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.#series.clear();
  }
}

/** A histogram by label values, in the order of `labelNames`, with fixed upper bounds. */
export class HotHistogram implements RegistryMetric {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly upperBounds: readonly number[];
  readonly #series = new Map<string, { labels: LabelValues; buckets: number[]; sum: number; count: number }>();

  constructor(name: string, help: string, labelNames: readonly string[], upperBounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.upperBounds = upperBounds;
  }

  observe(value: number, ...values: Array<string | number>): void {
    const key = values.join(SEPARATOR);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: labelsOf(this.labelNames, values), buckets: this.upperBounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // The first bound at or above the value; past the last, only +Inf (the count) holds it.
    // A loop, not findIndex with a closure: this runs on every request.
    const bounds = this.upperBounds;
    for (let bucket = 0; bucket < bounds.length; bucket++) {
      if (value <= bounds[bucket]!) {
        series.buckets[bucket]! += 1;
        break;
      }
    }
    series.sum += value;
    series.count += 1;
  }

  async get() {
    const values: Sample[] = [];
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, index) => {
        cumulative += buckets[index]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le: bound, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.#series.clear();
  }
}

function labelsOf(names: readonly string[], values: ReadonlyArray<string | number>): LabelValues {
  return Object.fromEntries(names.map((name, index) => [name, values[index]!]));
}
