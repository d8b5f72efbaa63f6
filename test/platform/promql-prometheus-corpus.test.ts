// The embedded PromQL evaluator against a real Prometheus (Debian's prometheus package) over a
// generated corpus: the same two hours of samples written into the embedded metrics store (on
// PostgreSQL, the first hour compacted into chunks) and backfilled into Prometheus's TSDB with
// promtool; every expression of the corpus asked of both as an instant query at two times and,
// when it is a scalar or an instant vector, as a range query; the answers compared as Prometheus's
// JSON writes them (values as formatValue writes them), with a float tolerance. Where the two
// differ on purpose, the expression is listed in DIVERGENCES with the reason; anything else that
// differs fails. The store's reads are kept per selector and window for the run: expressions share
// a few selectors, and reading each again would make the run minutes long, reading nothing new.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { formatValue } from '../../src/platform/json/prometheus-value.js';
import { MetricsStore } from '../../src/platform/metrics-store/store.js';
import { AGGREGATIONS } from '../../src/platform/promql/aggregations.js';
import { instantQuery, rangeQuery, UnsupportedQueryError, type QueryResult, type SampleSource, type StoredSeries } from '../../src/platform/promql/evaluator.js';
import { FUNCTIONS } from '../../src/platform/promql/functions.js';
import { parsePromQL, type PromNode } from '../../src/platform/promql/parser.js';
import { children } from '../../src/platform/promql/nodes.js';
import { findBinary } from '../support/alerting.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startPrometheusWith, type RunningPrometheus } from '../support/prometheus.js';
import { corpusExpressions, corpusSamples } from '../support/promql-corpus.js';
import { describeWhenInstalled } from '../support/skip.js';

const HOUR = 3_600_000;
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const START = END - 2 * HOUR;
/** Instant queries: between two samplings near the end, and on a sampling just after a series is born. */
const INSTANTS = [END - 7 * 60_000 - 3_000, START + HOUR + 60_000];
/** A range query: 5 s off the samples' grid, 1-minute steps over the last 100 minutes. */
const RANGE = { start: START + 20 * 60_000 + 5_000, end: END, step: 60_000 };

/**
 * Expressions on which the evaluator answers otherwise than Prometheus 2.42 on purpose, and why
 * (none today: what the corpus found was fixed). Each must still differ, or the entry is stale.
 */
const DIVERGENCES: Record<string, string> = {};

const CORPUS = corpusExpressions();
const SAMPLES = corpusSamples(END);

type Answer = { status: 'success'; data: { resultType: string; result: unknown } } | { status: 'error'; error: string };
type Point = [number, string];
type Series = { metric: Record<string, string>; values?: Point[]; value?: Point };

function close(a: string, b: string): boolean {
  const [x, y] = [Number(a), Number(b)];
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

const key = (metric: Record<string, string>) => JSON.stringify(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : 1)));

/** The first difference between two answers, or undefined when they agree (series in any order unless `ordered`). */
function difference(ours: Answer, theirs: Answer, ordered: boolean): string | undefined {
  if (ours.status !== theirs.status)
    return `ours ${ours.status === 'error' ? `failed: ${ours.error}` : 'succeeded'}, Prometheus ${theirs.status === 'error' ? `failed: ${theirs.error}` : 'succeeded'}`;
  if (ours.status === 'error' || theirs.status === 'error') return undefined;
  const [a, b] = [ours.data, theirs.data];
  if (a.resultType !== b.resultType) return `result type ${a.resultType} against ${b.resultType}`;
  if (a.resultType === 'scalar' || a.resultType === 'string') {
    const [x, y] = [a.result as Point, b.result as Point];
    return x[0] === y[0] && (a.resultType === 'string' ? x[1] === y[1] : close(x[1], y[1])) ? undefined : `${JSON.stringify(x)} against ${JSON.stringify(y)}`;
  }
  const [left, right] = [a.result as Series[], b.result as Series[]];
  if (ordered && a.resultType === 'vector') {
    const [x, y] = [left.map((s) => s.value![1]), right.map((s) => s.value![1])];
    if (x.length !== y.length || x.some((v, i) => !close(v, y[i]!))) return `values in order ${JSON.stringify(x)} against ${JSON.stringify(y)}`;
  }
  const theirsByKey = new Map(right.map((series) => [key(series.metric), series]));
  const [ourKeys, theirKeys] = [left.map((s) => key(s.metric)).sort(), [...theirsByKey.keys()].sort()];
  if (JSON.stringify(ourKeys) !== JSON.stringify(theirKeys)) return `series ${ourKeys.join(' ')} against ${theirKeys.join(' ')}`;
  for (const series of left) {
    const other = theirsByKey.get(key(series.metric))!;
    const [x, y] = [series.values ?? [series.value!], other.values ?? [other.value!]];
    if (x.length !== y.length) return `${key(series.metric)}: ${x.length} points against ${y.length}`;
    const at = x.findIndex((point, i) => point[0] !== y[i]![0] || !close(point[1], y[i]![1]));
    if (at >= 0) return `${key(series.metric)} at ${x[at]![0]}: ${x[at]![1]} against ${JSON.stringify(y[at])}`;
  }
  return undefined;
}

/** A query's answer as Prometheus's HTTP API writes it. */
function asJson(result: QueryResult, timeMs: number): Answer {
  const point = (t: number, value: number): Point => [t / 1000, formatValue(value)];
  switch (result.resultType) {
    case 'scalar':
      return { status: 'success', data: { resultType: 'scalar', result: point(timeMs, result.result) } };
    case 'string':
      return { status: 'success', data: { resultType: 'string', result: [timeMs / 1000, result.result] } };
    case 'vector':
      return { status: 'success', data: { resultType: 'vector', result: result.result.map((sample) => ({ metric: sample.labels, value: point(timeMs, sample.value) })) } };
    case 'matrix':
      return {
        status: 'success',
        data: { resultType: 'matrix', result: result.result.map((series) => ({ metric: series.labels, values: Array.from(series.times, (t, i) => point(t, series.values[i]!)) })) },
      };
  }
}

/** The store, each selector's read over each window made once for the run. */
function keptReads(store: MetricsStore): SampleSource {
  const reads = new Map<string, Promise<StoredSeries[]>>();
  return {
    select(matchers, fromMs, toMs) {
      const key = JSON.stringify([matchers, fromMs, toMs]);
      let read = reads.get(key);
      if (!read) reads.set(key, (read = store.select(matchers, fromMs, toMs)));
      return read;
    },
  };
}

/** Every function, aggregation and operator an expression uses. */
function vocabulary(node: PromNode, into = new Set<string>()): Set<string> {
  if (node.kind === 'call') into.add(node.name);
  if (node.kind === 'aggregate') into.add(node.op);
  if (node.kind === 'binary') into.add(node.bool ? `${node.op} bool` : node.op);
  if (node.kind === 'binary' && node.matching)
    into.add(node.matching.card === 'one-to-one' ? (node.matching.on ? 'on' : 'ignoring') : node.matching.card === 'many-to-one' ? 'group_left' : 'group_right');
  if (node.kind === 'unary') into.add(`unary ${node.op}`);
  if (node.kind === 'subquery') into.add('subquery');
  if ('offsetMs' in node && node.offsetMs !== 0) into.add('offset');
  if ('at' in node && node.at !== undefined) into.add('@');
  for (const child of children(node)) vocabulary(child, into);
  return into;
}

const prometheusBinary = findBinary('prometheus');
const promtool = findBinary('promtool');
const maybe = describeWhenInstalled(prometheusBinary && promtool, 'prometheus');

maybe(`the evaluator against Prometheus ${prometheusBinary ? 'found' : 'not installed: apt-get install -y prometheus'} over a generated corpus of ${CORPUS.length} expressions`, () => {
  let gw: TestGateway;
  let pool: pg.Pool;
  let prometheus: RunningPrometheus;
  /** The first difference of each expression (undefined: it agrees). */
  const outcomes = new Map<string, string | undefined>();
  /** Expressions whose answers held something (a sample, a scalar, a string) at least once. */
  const answered = new Set<string>();

  async function theirs(path: string, params: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${prometheus.url}${path}?${new URLSearchParams(params).toString()}`);
    return (await response.json()) as Answer;
  }

  async function ours(source: SampleSource, path: string, params: Record<string, string>): Promise<Answer> {
    try {
      const query = params.query!;
      if (path === '/api/v1/query') return asJson(await instantQuery(source, query, Number(params.time) * 1000), Number(params.time) * 1000);
      return asJson(await rangeQuery(source, query, RANGE.start, RANGE.end, RANGE.step), RANGE.end);
    } catch (error) {
      if (error instanceof UnsupportedQueryError) return { status: 'error', error: error.message };
      throw error;
    }
  }

  async function compare(source: SampleSource, expression: string): Promise<string | undefined> {
    const parsed = parsePromQL(expression);
    const top = parsed.tree?.kind === 'call' ? parsed.tree.name : undefined;
    const ordered = top === 'sort' || top === 'sort_desc';
    const asked: [string, Record<string, string>][] = INSTANTS.map((t) => ['/api/v1/query', { query: expression, time: String(t / 1000) }]);
    if (parsed.type === 'vector' || parsed.type === 'scalar') {
      asked.push(['/api/v1/query_range', { query: expression, start: String(RANGE.start / 1000), end: String(RANGE.end / 1000), step: String(RANGE.step / 1000) }]);
    }
    for (const [path, params] of asked) {
      const [a, b] = await Promise.all([ours(source, path, params), theirs(path, params)]);
      if (a.status === 'success' && (!Array.isArray(a.data.result) || a.data.result.length > 0)) answered.add(expression);
      const found = difference(a, b, ordered);
      if (found) return `${path} ${params.time ?? ''}: ${found}`;
    }
    return undefined;
  }

  beforeAll(async () => {
    [gw, prometheus] = await Promise.all([startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0' }), startPrometheusWith(prometheusBinary!, promtool!, SAMPLES)]);
    pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 2 });
    const store = new MetricsStore(pool);
    const byTime = new Map<number, { labels: Record<string, string>; value: number }[]>();
    for (const series of SAMPLES) {
      Array.from(series.times).forEach((t, i) => {
        if (!byTime.has(t)) byTime.set(t, []);
        byTime.get(t)!.push({ labels: series.labels, value: series.values[i]! });
      });
    }
    const batches = [...byTime].sort(([a], [b]) => a - b).map(([atMs, samples]) => ({ atMs, samples }));
    for (let i = 0; i < batches.length; i += 100) await store.write(...batches.slice(i, i + 100));
    // The first hour as chunks, the second as rows: both of the store's ways of reading.
    await store.compact(START + HOUR, START);
    const source = keptReads(new MetricsStore(pool));
    const queue = [...CORPUS];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let expression = queue.shift(); expression !== undefined; expression = queue.shift()) outcomes.set(expression, await compare(source, expression));
      }),
    );
    const agreeing = [...outcomes.values()].filter((found) => found === undefined).length;
    process.stdout.write(
      `PromQL corpus: ${outcomes.size} expressions, ${agreeing} agree with Prometheus, ${Object.keys(DIVERGENCES).length} documented divergences, ${answered.size} with a non-empty answer\n`,
    );
  }, 240_000);

  afterAll(async () => {
    await pool?.end();
    await Promise.all([gw?.stop(), prometheus?.stop()]);
  });

  it('covers every function, aggregation, operator and modifier the evaluator answers, in at least 500 expressions', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(500);
    const used = new Set<string>();
    for (const expression of CORPUS) {
      const parsed = parsePromQL(expression);
      expect(parsed.problem).toBeUndefined();
      vocabulary(parsed.tree!, used);
    }
    const operators = ['+', '-', '*', '/', '%', '^', 'atan2', '==', '!=', '>', '<', '>=', '<='];
    const expected = [
      ...Object.keys(FUNCTIONS),
      ...Object.keys(AGGREGATIONS),
      ...operators,
      ...operators.slice(7).map((op) => `${op} bool`),
      ...['and', 'or', 'unless', 'on', 'ignoring', 'group_left', 'group_right', 'unary -', 'unary +', 'subquery', 'offset', '@'],
    ];
    expect(expected.filter((name) => !used.has(name))).toEqual([]);
  });

  it('answers every expression as Prometheus does, but the documented divergences, which still differ', () => {
    const unexpected = [...outcomes].filter(([expression, found]) => found !== undefined && !(expression in DIVERGENCES)).map(([expression, found]) => `${expression}\n    ${found}`);
    expect(unexpected).toEqual([]);
    // A divergence listed that no longer differs is a stale entry.
    expect(Object.keys(DIVERGENCES).filter((expression) => outcomes.get(expression) === undefined)).toEqual([]);
    expect(outcomes.size).toBe(CORPUS.length);
    // A corpus of empty answers would agree too: nearly every expression answers something.
    expect(answered.size).toBeGreaterThan(0.9 * CORPUS.length);
  });
});
