// The per-request series (duration histogram, request counter, the original's node_* API series),
// recorded without allocating: each label set's numbers live in one record found through nested
// maps keyed by the label values themselves (strings that already exist), and prom-client reads
// them only when /metrics is scraped or the sampler takes its snapshot. prom-client's own
// observe/inc build a label object and a hash string on every call, which a request answered from
// the cache would otherwise pay for twice.
import type { Counter, Gauge, Registry } from 'prom-client';

/**
 * A nested map, label value by label value down to one record, for up to five labels. Label values
 * are passed one by one (an array per call would be an allocation per request).
 */
class Tree<V> {
  private readonly root = new Map<string, unknown>();

  constructor(readonly labelNames: readonly string[]) {}

  private level(values: readonly string[]): Map<string, unknown> {
    let level = this.root;
    for (let index = 0; index < this.labelNames.length - 1; index += 1) {
      const key = values[index]!;
      let next = level.get(key) as Map<string, unknown> | undefined;
      if (!next) level.set(key, (next = new Map()));
      level = next;
    }
    return level;
  }

  get(a: string, b = '', c = '', d = '', e = ''): V | undefined {
    let level: Map<string, unknown> | undefined = this.root;
    const depth = this.labelNames.length;
    if (depth > 1) level = level.get(a) as Map<string, unknown> | undefined;
    if (level && depth > 2) level = level.get(b) as Map<string, unknown> | undefined;
    if (level && depth > 3) level = level.get(c) as Map<string, unknown> | undefined;
    if (level && depth > 4) level = level.get(d) as Map<string, unknown> | undefined;
    return level?.get(depth === 1 ? a : depth === 2 ? b : depth === 3 ? c : depth === 4 ? d : e) as V | undefined;
  }

  /** Adds the record of these label values (the first time they are seen: allocating then is fine). */
  add(record: V, a: string, b = '', c = '', d = '', e = ''): V {
    const values = [a, b, c, d, e];
    this.level(values).set(values[this.labelNames.length - 1]!, record);
    return record;
  }

  labels(a: string, b = '', c = '', d = '', e = ''): Record<string, string> {
    const values = [a, b, c, d, e];
    return Object.fromEntries(this.labelNames.map((name, index) => [name, values[index]!]));
  }

  *records(level: Map<string, unknown> = this.root, depth = 1): Generator<V> {
    for (const value of level.values()) {
      if (depth === this.labelNames.length) yield value as V;
      else yield* this.records(value as Map<string, unknown>, depth + 1);
    }
  }
}

interface HistogramRecord {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram registered with prom-client as a metric of its own (its `get()` answers what
 * prom-client's Histogram answers), with `record` taking label values in `labelNames`' order.
 */
export class FastHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly tree: Tree<HistogramRecord>;

  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    this.tree = new Tree(labelNames);
    registry.registerMetric(this as unknown as Counter);
  }

  /** Records `value` under the label values given in `labelNames`' order. */
  record(value: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    const found = this.tree.get(a, b, c, d, e) ?? this.tree.add({ labels: this.tree.labels(a, b, c, d, e), buckets: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 }, a, b, c, d, e);
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket += 1;
    found.buckets[bucket]! += 1;
    found.sum += value;
    found.count += 1;
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const found of this.tree.records()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += found.buckets[index]!;
        values.push({ labels: { ...found.labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { ...found.labels, le: '+Inf' }, value: found.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...found.labels }, value: found.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...found.labels }, value: found.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  reset(): void {
    // The series only ever grow (like prom-client's, which nothing here resets).
  }
}

interface ValueRecord {
  labels: Record<string, string>;
  value: number;
}

/**
 * Counter or gauge values kept here and handed to a prom-client Counter/Gauge when it is read
 * (its `collect`), so that the hot path only adds to a number.
 */
export class FastValues {
  private readonly tree: Tree<ValueRecord>;

  constructor(labelNames: readonly string[]) {
    this.tree = new Tree(labelNames);
  }

  private find(a: string, b?: string, c?: string, d?: string, e?: string): ValueRecord {
    return this.tree.get(a, b, c, d, e) ?? this.tree.add({ labels: this.tree.labels(a, b, c, d, e), value: 0 }, a, b, c, d, e);
  }

  /** Adds `amount` to the value of these label values (in the order of the label names). */
  add(amount: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    this.find(a, b, c, d, e).value += amount;
  }

  set(value: number, a: string, b?: string, c?: string, d?: string, e?: string): void {
    this.find(a, b, c, d, e).value = value;
  }

  /** Copies every value into `metric` (from its `collect`). */
  copyInto(metric: Counter<string> | Gauge<string>): void {
    metric.reset();
    for (const found of this.tree.records()) {
      if ('set' in metric) metric.set(found.labels, found.value);
      else metric.inc(found.labels, found.value);
    }
  }
}
