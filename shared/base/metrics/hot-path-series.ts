/**
 * The metrics every request updates (the HTTP histogram, authentications, token cache lookups), kept
 * in plain maps, one level per label: prom-client's own metrics validate and hash their labels on
 * each update, which costs a few microseconds a request; these cost a map lookup per label. They
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

type LabelValue = string | number;

/**
 * Series by their label values, one Map level per label. Not keyed by the values joined: joining
 * makes a new string on every update, which the map then hashes, while the values themselves are
 * the route table's, node:http's and the catalogue's own strings (and status numbers), whose hashes
 * V8 keeps (issue 25, the request path). A value's type counts: 200 and '200' are two series.
 */
class SeriesIndex<Series> {
  readonly #root = new Map<LabelValue, unknown>();
  readonly #all: Series[] = [];

  /** The series of these label values, or undefined before their first update. */
  find(values: readonly LabelValue[]): Series | undefined {
    let level: Map<LabelValue, unknown> | undefined = this.#root;
    for (let index = 0; index < values.length - 1 && level !== undefined; index++)
      level = level.get(values[index]!) as Map<LabelValue, unknown> | undefined;
    return level?.get(values[values.length - 1]!) as Series | undefined;
  }

  /** Adds the series of these label values (after `find` found none). */
  add(values: readonly LabelValue[], series: Series): Series {
    let level = this.#root;
    for (let index = 0; index < values.length - 1; index++) {
      let next = level.get(values[index]!) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[index]!, next);
      }
      level = next;
    }
    level.set(values[values.length - 1]!, series);
    this.#all.push(series);
    return series;
  }

  /** Every series, in the order they were first updated. */
  all(): readonly Series[] {
    return this.#all;
  }

  clear(): void {
    this.#root.clear();
    this.#all.length = 0;
  }
}

/** A counter by label values, in the order of `labelNames`. */
export class HotCounter implements RegistryMetric {
  readonly type = 'counter' as const;
  readonly aggregator = 'sum' as const;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #series = new SeriesIndex<{ labels: LabelValues; value: number }>();

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
  }

  inc(...values: string[]): void {
    const series =
      this.#series.find(values) ?? this.#series.add(values, { labels: labelsOf(this.labelNames, values), value: 0 });
    series.value += 1;
  }

  async get() {
    const values = this.#series.all().map(({ labels, value }) => ({ labels, value }));
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
  readonly #series = new SeriesIndex<{ labels: LabelValues; buckets: number[]; sum: number; count: number }>();

  constructor(name: string, help: string, labelNames: readonly string[], upperBounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.upperBounds = upperBounds;
  }

  observe(value: number, ...values: LabelValue[]): void {
    const series =
      this.#series.find(values) ??
      this.#series.add(values, {
        labels: labelsOf(this.labelNames, values),
        buckets: this.upperBounds.map(() => 0),
        sum: 0,
        count: 0,
      });
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
    for (const { labels, buckets, sum, count } of this.#series.all()) {
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

function labelsOf(names: readonly string[], values: readonly LabelValue[]): LabelValues {
  return Object.fromEntries(names.map((name, index) => [name, values[index]!]));
}
