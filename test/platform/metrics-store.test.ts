// The embedded metrics store on PostgreSQL: what the sampler writes is what queries read, before
// and after completed hours are compacted into chunks, with two gateways' series side by side, and
// retention drops what is old.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { Counter, Registry } from 'prom-client';
import { createLogger } from '../../src/logger.js';
import { rangeQuery } from '../../src/platform/promql/evaluator.js';
import { MetricsSampler } from '../../src/platform/metrics-store/sampler.js';
import { MetricsStore } from '../../src/platform/metrics-store/store.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const HOUR = 3_600_000;
const STEP = 15_000;
// Two whole hours, ending on an hour.
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const START = END - 2 * HOUR;

let gw: TestGateway;
let pool: pg.Pool;

beforeAll(async () => {
  // The gateway only makes the database (its own sampling is off); the store is driven directly.
  gw = await startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0' });
  pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await gw?.stop();
});

/** Two gateways' samplers, each with its own counter and clock, writing to the same store. */
function gatewaySampler(instance: string, clock: { now: number }) {
  const registry = new Registry();
  const counter = new Counter({ name: 'events_total', help: 'h', labelNames: ['dataset'], registers: [registry] });
  const sampler = new MetricsSampler(new MetricsStore(pool), () => registry.getMetricsAsJSON(), {
    intervalMs: STEP,
    retentionMs: 7 * 24 * HOUR,
    instance,
    logger: createLogger('silent'),
    now: () => clock.now,
  });
  return { counter, sampler };
}

describe('the embedded metrics store', () => {
  const clock = { now: START };
  const query = 'sum by (instance) (increase(events_total{dataset="d"}[5m]))';
  let before: Awaited<ReturnType<typeof rangeQuery>>;

  beforeAll(async () => {
    const one = gatewaySampler('g1:1', clock);
    const two = gatewaySampler('g2:2', clock);
    for (let t = START + STEP; t <= END; t += STEP) {
      clock.now = t;
      one.counter.inc({ dataset: 'd' }, 2);
      if (t > START + HOUR) two.counter.inc({ dataset: 'd' }, 1);
      await one.sampler.sample();
      await two.sampler.sample();
    }
    before = await rangeQuery(new MetricsStore(pool), query, START, END, 5 * 60_000);
  }, 120_000);

  it('reads back what two gateways sampled, each under its instance, the first increase counted from zero', async () => {
    const byInstance = Object.fromEntries(before.result.map((series) => [series.labels.instance, series]));
    expect(Object.keys(byInstance).sort()).toEqual(['g1:1', 'g2:2']);
    // 5 minutes of 15-second samples, 2 events each; the second gateway started an hour later.
    expect(byInstance['g1:1']!.values.slice(2)).toEqual(byInstance['g1:1']!.values.slice(2).map(() => 40));
    expect(byInstance['g2:2']!.times[0]).toBeGreaterThan(START + HOUR);
    expect(byInstance['g2:2']!.values.at(-1)).toBe(20);
  });

  it('writes up{job="gateway", instance} = 1 at every sampling of each gateway, as a Prometheus scrape does', async () => {
    const up = await rangeQuery(new MetricsStore(pool), 'up{job="gateway"}', START + STEP, END, 5 * 60_000);
    expect(up.result.map((series) => series.labels.instance).sort()).toEqual(['g1:1', 'g2:2']);
    for (const series of up.result) expect(new Set(series.values)).toEqual(new Set([1]));
    const count = await rangeQuery(new MetricsStore(pool), 'count(up{job="gateway"} == 1)', END, END, STEP);
    expect(Array.from(count.result[0]!.values)).toEqual([2]);
  });

  it('answers the same after completed hours move into chunks, from chunks and raw samples together', async () => {
    const store = new MetricsStore(pool);
    const moved = await store.compact(END - HOUR, START);
    expect(moved).toBeGreaterThan(0);
    const counts = await pool.query<{ raw: string; chunks: string }>('SELECT (SELECT count(*) FROM metric_samples) AS raw, (SELECT count(*) FROM metric_chunks) AS chunks');
    expect(Number(counts.rows[0]!.raw)).toBeGreaterThan(0);
    // One chunk per series and hour: over the first hour g1's events series (g2's counter had not
    // started) and each gateway's `up`.
    expect(Number(counts.rows[0]!.chunks)).toBe(3);
    expect(await rangeQuery(store, query, START, END, 5 * 60_000)).toEqual(before);
    await store.compact(END + 1, START);
    expect(await rangeQuery(store, query, START, END, 5 * 60_000)).toEqual(before);
    const series = await store.series([], START, END);
    expect(
      series
        .filter((labels) => labels.__name__ === 'events_total')
        .map((labels) => labels.instance)
        .sort(),
    ).toEqual(['g1:1', 'g2:2']);
    expect(
      series
        .filter((labels) => labels.__name__ === 'up')
        .map((labels) => labels.instance)
        .sort(),
    ).toEqual(['g1:1', 'g2:2']);
  });

  it('reads a sample that is both in a chunk and written again as a row once, as the chunk holds it', async () => {
    const store = new MetricsStore(pool);
    await store.compact(END + 1, START);
    // The first sample of g1's first chunk: the row and the chunk start at the same time.
    const at = START;
    const matchers = [{ label: 'instance', op: '=' as const, value: 'g1:1' }];
    const [chunked] = await store.select(matchers, at, at + STEP);
    await pool.query(`INSERT INTO metric_samples (series_id, at_ms, value) SELECT id, $1, -1 FROM metric_series WHERE labels->>'instance' = 'g1:1'`, [at]);
    try {
      const [read] = await store.select(matchers, at, at + STEP);
      expect(Array.from(read!.times)).toEqual([at, at + STEP]);
      expect(Array.from(read!.values)).toEqual(Array.from(chunked!.values));
      expect(Array.from(read!.values)).not.toContain(-1);
    } finally {
      await pool.query('DELETE FROM metric_samples WHERE at_ms = $1', [at]);
    }
  });

  it('reads a selection of hundreds of series (several statements at once) with every series whole, from chunks and rows', async () => {
    const store = new MetricsStore(pool);
    const name = 'many_series_probe';
    // 320 series, each with its own values, half an hour in chunks and the minutes after as rows.
    const series = Array.from({ length: 320 }, (_, i) => ({ __name__: name, n: String(i) }));
    const times = Array.from({ length: 150 }, (_, i) => START + i * STEP);
    try {
      const sampling = (at: number) => ({ atMs: at, samples: series.map((labels, i) => ({ labels, value: i * 1_000 + (at - START) / STEP })) });
      for (let from = 0; from < times.length; from += 25) await store.write(...times.slice(from, from + 25).map(sampling));
      await store.compact(START + HOUR / 2, START);
      const read = await store.select([{ label: '__name__', op: '=', value: name }], START, END);
      expect(read.map((one) => Number(one.labels.n)).sort((a, b) => a - b)).toEqual(series.map((_, i) => i));
      for (const one of read) {
        const i = Number(one.labels.n);
        expect(Array.from(one.times)).toEqual(times);
        expect(Array.from(one.values)).toEqual(times.map((at) => i * 1_000 + (at - START) / STEP));
      }
    } finally {
      const probe = `(SELECT id FROM metric_series WHERE name = '${name}')`;
      await pool.query(`DELETE FROM metric_samples WHERE series_id IN ${probe}`);
      await pool.query(`DELETE FROM metric_chunks WHERE series_id IN ${probe}`);
      await pool.query('DELETE FROM metric_series WHERE name = $1', [name]);
    }
  });

  it('reads chunks of evenly spaced samples, unevenly spaced ones and single samples back time for time', async () => {
    const store = new MetricsStore(pool);
    const labels = { __name__: 'spacing_probe', instance: 'g3:3' };
    // An hour at 10 s, an hour with gaps of 10, 15 and 20 s, an hour with one sample; then raw rows of the hour after.
    const even = Array.from({ length: 360 }, (_, i) => START + i * 10_000);
    const uneven = Array.from({ length: 40 }, (_, i) => START + HOUR + i * 15_000 + (i % 3) * 5_000);
    const times = [...even, ...uneven, END + 7_000, END + HOUR + 1_000, END + HOUR + 2_000];
    const selector = [{ label: '__name__', op: '=' as const, value: labels.__name__ }];
    try {
      for (const [i, at] of times.entries()) await store.write({ atMs: at, samples: [{ labels, value: i * 1.5 }] });
      await store.compact(END + HOUR, START);
      const steps = await pool.query<{ step_ms: number | null }>('SELECT step_ms FROM metric_chunks c JOIN metric_series s ON s.id = c.series_id WHERE s.name = $1 ORDER BY start_ms', [
        labels.__name__,
      ]);
      expect(steps.rows.map((row) => row.step_ms)).toEqual([10_000, null, null]);
      const [read] = await store.select(selector, START, END + 2 * HOUR);
      expect(Array.from(read!.times)).toEqual(times);
      expect(Array.from(read!.values)).toEqual(times.map((_, i) => i * 1.5));
      const [inside] = await store.select(selector, START + HOUR - 5_000, START + HOUR + 30_000);
      expect(Array.from(inside!.times)).toEqual(times.filter((t) => t >= START + HOUR - 5_000 && t <= START + HOUR + 30_000));
      // A range query reads each series' chunks and rows through buffers of its own (readInto),
      // the step path joined into the series' arrays: the same answer either way.
      for (const expression of ['rate(spacing_probe[1m])', 'sum(spacing_probe) * 2']) {
        const stepped = await rangeQuery(store, expression, START, END + 2 * HOUR, 20_000, { stepByStep: true });
        expect(stepped.result[0]!.values.length).toBeGreaterThan(200);
        expect(await rangeQuery(store, expression, START, END + 2 * HOUR, 20_000)).toEqual(stepped);
      }
    } finally {
      const probe = "(SELECT id FROM metric_series WHERE name = 'spacing_probe')";
      await pool.query(`DELETE FROM metric_samples WHERE series_id = ${probe}`);
      await pool.query(`DELETE FROM metric_chunks WHERE series_id = ${probe}`);
      await pool.query("DELETE FROM metric_series WHERE name = 'spacing_probe'");
    }
  });

  it("tells the evaluator a series' spacing and whether it never falls from its chunks, and a reset or a gap anywhere undoes it", async () => {
    const store = new MetricsStore(pool);
    const name = 'facts_probe';
    // Two hours at 15 s (an evenly spaced chunk each) and 10 minutes of rows, each series bent one way.
    const times = Array.from({ length: 2 * 240 + 40 }, (_, i) => START + i * 15_000);
    const shapes: Record<string, { times: number[]; values: number[]; spacing: number | undefined; neverFalls: boolean }> = {
      steady: { times, values: times.map((_, i) => i * 2), spacing: 15_000, neverFalls: true },
      'reset in a chunk': { times, values: times.map((_, i) => (i < 100 ? i * 2 : (i - 100) * 3)), spacing: 15_000, neverFalls: false },
      'reset where a chunk starts': { times, values: times.map((_, i) => (i < 240 ? 1_000 + i : i - 240)), spacing: 15_000, neverFalls: false },
      'reset among the rows': { times, values: times.map((_, i) => (i < 500 ? 1_000 + i : i)), spacing: 15_000, neverFalls: false },
      'gap where a chunk starts': { times: times.filter((_, i) => i !== 240), values: times.filter((_, i) => i !== 240).map((_, i) => i), spacing: undefined, neverFalls: true },
      'gap among the rows': { times: times.filter((_, i) => i !== 490), values: times.filter((_, i) => i !== 490).map((_, i) => i), spacing: undefined, neverFalls: true },
    };
    try {
      // Every shape's sample of a time in one sampling, as the sampler writes them.
      const samplings = new Map<number, { labels: Record<string, string>; value: number }[]>();
      for (const [shape, { times: at, values }] of Object.entries(shapes)) {
        for (const [i, t] of at.entries()) samplings.set(t, [...(samplings.get(t) ?? []), { labels: { __name__: name, shape }, value: values[i]! }]);
      }
      for (const [atMs, samples] of samplings) await store.write({ atMs, samples });
      await store.compact(START + 2 * HOUR, START);
      const selector = [{ label: '__name__', op: '=' as const, value: name }];
      const read = await store.select(selector, START, START + 3 * HOUR);
      expect(Object.fromEntries(read.map((series) => [series.labels.shape, [series.evenSpacing, series.neverFalls]]))).toEqual(
        Object.fromEntries(Object.entries(shapes).map(([shape, facts]) => [shape, [facts.spacing, facts.neverFalls]])),
      );
      // What the column path skips looking for, it must find as the step path does; from the
      // first sample, and from inside the first chunk (its times counted from there).
      for (const from of [START + 30_000, START + HOUR / 2 + 7_000]) {
        for (const expression of [`rate(${name}[1m])`, `increase(${name}[5m])`, `sum(rate(${name}[2m]))`]) {
          const stepped = await rangeQuery(store, expression, from, START + 2 * HOUR + 9 * 60_000, 15_000, { stepByStep: true });
          expect(stepped.result).toHaveLength(expression.startsWith('sum') ? 1 : 6);
          expect(await rangeQuery(store, expression, from, START + 2 * HOUR + 9 * 60_000, 15_000)).toEqual(stepped);
        }
      }
    } finally {
      const probe = `(SELECT id FROM metric_series WHERE name = '${name}')`;
      await pool.query(`DELETE FROM metric_samples WHERE series_id IN ${probe}`);
      await pool.query(`DELETE FROM metric_chunks WHERE series_id IN ${probe}`);
      await pool.query('DELETE FROM metric_series WHERE name = $1', [name]);
    }
  });

  it('reads chunks that overlap (two gateways compacting one hour at once) in order of their start, the earlier kept where they meet', async () => {
    const store = new MetricsStore(pool);
    const labels = { __name__: 'overlap_probe', instance: 'g6:6' };
    const selector = [{ label: '__name__', op: '=' as const, value: labels.__name__ }];
    // An hour no other test writes; one chunk of four samples, then one inside it (listed first: it ends first).
    const base = END + 5 * HOUR;
    const packed = (numbers: number[]) => `decode('${Buffer.concat(numbers.map((n) => Buffer.from(new Float64Array([n]).buffer).reverse())).toString('hex')}', 'hex')`;
    try {
      for (const at of [0, 10_000, 20_000, 30_000]) await store.write({ atMs: base + at, samples: [{ labels, value: at / 1_000 }] });
      await store.compact(base + HOUR, base);
      const inside = [5_000, 15_000, 25_000].map((at) => base + at);
      await pool.query(
        `INSERT INTO metric_chunks (series_id, start_ms, end_ms, samples, step_ms, times, values)
         SELECT id, $1, $2, 3, NULL, ${packed(inside)}, ${packed([-1, -1, -1])} FROM metric_series WHERE name = $3`,
        [inside[0], inside[2], labels.__name__],
      );
      const [read] = await store.select(selector, base, base + HOUR);
      expect(Array.from(read!.times)).toEqual([0, 10_000, 20_000, 30_000].map((at) => base + at));
      expect(Array.from(read!.values)).toEqual([0, 10, 20, 30]);
    } finally {
      const probe = `(SELECT id FROM metric_series WHERE name = '${labels.__name__}')`;
      await pool.query(`DELETE FROM metric_samples WHERE series_id = ${probe}`);
      await pool.query(`DELETE FROM metric_chunks WHERE series_id = ${probe}`);
      await pool.query(`DELETE FROM metric_series WHERE name = '${labels.__name__}'`);
    }
  });

  it('drops samples, chunks and then series past the retention', async () => {
    const store = new MetricsStore(pool);
    expect(await store.deleteBefore(START + HOUR + 1)).toBeGreaterThan(0);
    const left = await rangeQuery(store, 'count_over_time(events_total[3h])', END, END, 60_000);
    // The first hour's chunk ended before the cutoff and went; each series keeps its samples from START + HOUR to END.
    expect(left.result.map((series) => series.values[0])).toEqual([HOUR / STEP + 1, HOUR / STEP + 1]);
    await store.deleteBefore(END + HOUR);
    const rows = await pool.query<{ n: string }>('SELECT (SELECT count(*) FROM metric_series) + (SELECT count(*) FROM metric_samples) + (SELECT count(*) FROM metric_chunks) AS n');
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });
});

describe('the chunk cache of the embedded metrics store', () => {
  const name = 'cache_probe';
  const selector = [{ label: '__name__', op: '=' as const, value: name }];
  // Three hours at 1-minute steps: two to be compacted, the last left as rows.
  const times = Array.from({ length: 180 }, (_, i) => START + i * 60_000);

  afterAll(async () => {
    await pool.query(`DELETE FROM metric_samples WHERE series_id IN (SELECT id FROM metric_series WHERE name = $1)`, [name]);
    await pool.query(`DELETE FROM metric_chunks WHERE series_id IN (SELECT id FROM metric_series WHERE name = $1)`, [name]);
    await pool.query('DELETE FROM metric_series WHERE name = $1', [name]);
  });

  it('keeps the chunks it read, and sees at its next query the chunks another gateway compacted or dropped since', async () => {
    const reader = new MetricsStore(pool);
    const other = new MetricsStore(pool);
    for (const [i, at] of times.entries()) await other.write({ atMs: at, samples: [{ labels: { __name__: name, instance: 'g4:4' }, value: i }] });
    const read = async () => {
      const [series] = await reader.select(selector, START, START + 3 * HOUR);
      return { times: Array.from(series!.times), values: Array.from(series!.values) };
    };

    await other.compact(START + HOUR, START);
    expect(await read()).toEqual({ times, values: times.map((_, i) => i) });
    expect(reader.chunkCache.chunks).toBe(1);

    // The second hour becomes a chunk after the first read: read from its chunk now, not its rows.
    await other.compact(START + 2 * HOUR, START);
    expect(await read()).toEqual({ times, values: times.map((_, i) => i) });
    expect(reader.chunkCache.chunks).toBe(2);

    // Retention drops the first hour's chunk; the reader still holds it, and must not answer from it.
    await other.deleteBefore(START + HOUR);
    const kept = times.filter((t) => t >= START + HOUR);
    expect(await read()).toEqual({ times: kept, values: kept.map((t) => (t - START) / 60_000) });
  });

  it('holds at most its size in bytes, dropping the chunks least recently read first', async () => {
    const { ChunkCache } = await import('../../src/platform/metrics-store/chunk-cache.js');
    const chunk = (startMs: number) => ({ startMs, count: 100, stepMs: 1_000, times: null, values: new Float64Array(100) });
    // Room for two chunks of 100 values (800 bytes and the entry's overhead each), not three.
    const cache = new ChunkCache(2_500);
    cache.put(1, chunk(0));
    cache.put(1, chunk(1_000));
    expect(cache.get(1, 0, 100)).toBeDefined();
    cache.put(2, chunk(0));
    expect(cache.bytes).toBeLessThanOrEqual(2_500);
    expect(cache.get(1, 1_000, 100)).toBeUndefined();
    expect(cache.get(1, 0, 100)).toBeDefined();
    expect(cache.get(2, 0, 100)).toBeDefined();
    // A chunk listed with another count than the one cached is not the cached one.
    expect(cache.get(2, 0, 101)).toBeUndefined();
    expect(cache.size).toBe(1);
    // Chunks are found by series and start: another series' chunk of the same start, or the series' chunk of another, is not it.
    const keyed = new ChunkCache(10_000);
    keyed.put(3, chunk(5_000));
    expect(keyed.get(3, 6_000, 100)).toBeUndefined();
    expect(keyed.get(4, 5_000, 100)).toBeUndefined();
    keyed.put(3, chunk(6_000));
    expect([keyed.get(3, 6_000, 100)?.startMs, keyed.get(3, 5_000, 100)?.startMs]).toEqual([6_000, 5_000]);
    expect(keyed.size).toBe(2);
  });
});

describe("a range query's answer written as JSON text", () => {
  const name = 'answer_probe';
  afterAll(async () => {
    await pool.query(`DELETE FROM metric_samples WHERE series_id IN (SELECT id FROM metric_series WHERE name = $1)`, [name]);
    await pool.query('DELETE FROM metric_series WHERE name = $1', [name]);
  });

  it('is the JSON of the answer GraphQL serialises, label values that need escaping and NaN and infinities included', async () => {
    const { createEmbeddedPrometheusApi } = await import('../../src/platform/metrics-store/prometheus-read-api.js');
    const { WrittenJson } = await import('../../src/platform/json/written-json.js');
    const store = new MetricsStore(pool);
    const values = [1.5, NaN, Infinity, -Infinity, 0.1 + 0.2, 42];
    for (const [i, value] of values.entries()) {
      await store.write({
        atMs: START + i * STEP,
        samples: [
          { labels: { __name__: name, quote: 'say "hi"\n\\ \u2028 é' }, value },
          { labels: { __name__: name, quote: 'plain' }, value: i },
          // A value like the one before is written once and reused: a NaN first, repeats, zeros of both signs.
          { labels: { __name__: name, quote: 'repeats' }, value: [NaN, NaN, 0, -0, 7, 7][i]! },
          // Where JavaScript writes an exponent (below 1e-6, from 1e21), Prometheus writes the digits out.
          { labels: { __name__: name, quote: 'exponents' }, value: [1e-7, -2.5e-8, 1.5e21, 0.000001, 1e21, -1.2345e-10][i]! },
        ],
      });
    }
    const api = createEmbeddedPrometheusApi(store, { retentionMs: 7 * 24 * HOUR });
    const answer = await api.get('/api/v1/query_range', { query: name, start: String(START / 1000), end: String((START + 10 * STEP) / 1000), step: '7.5' });
    expect(answer).toBeInstanceOf(WrittenJson);
    const text = (answer as InstanceType<typeof WrittenJson>).bytes().toString('utf8');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(answer)));
    const parsed = JSON.parse(text) as { data: { result: { metric: Record<string, string>; values: [number, string][] }[] } };
    const quoted = parsed.data.result.find((series) => series.metric.quote!.startsWith('say'))!;
    expect(quoted.metric.quote).toBe('say "hi"\n\\ \u2028 é');
    // Every 7.5 s step over a sample's 5-minute lookback: the samples' values as Prometheus writes them.
    expect(quoted.values.filter((_, i) => i % 2 === 0).map(([, value]) => value)).toEqual(['1.5', 'NaN', '+Inf', '-Inf', '0.30000000000000004', '42', '42', '42', '42', '42', '42']);
    expect(quoted.values[1]).toEqual([(START + STEP / 2) / 1000, '1.5']);
    const repeats = parsed.data.result.find((series) => series.metric.quote === 'repeats')!;
    // A -0 sample is stored as 0 (parameters travel as text); one computed keeps its sign, below.
    expect(repeats.values.filter((_, i) => i % 2 === 0).map(([, value]) => value)).toEqual(['NaN', 'NaN', '0', '0', '7', '7', '7', '7', '7', '7', '7']);
    // Negative zero written with its sign, as Go's FormatFloat writes it.
    expect(JSON.parse(JSON.stringify(await api.get('/api/v1/query', { query: '0 * -1', time: String(START / 1000) })))).toEqual({
      status: 'success',
      data: { resultType: 'scalar', result: [START / 1000, '-0'] },
    });
    const exponents = parsed.data.result.find((series) => series.metric.quote === 'exponents')!;
    expect(exponents.values.filter((_, i) => i % 2 === 0 && i <= 10).map(([, value]) => value)).toEqual([
      '0.0000001',
      '-0.000000025',
      '1500000000000000000000',
      '0.000001',
      '1000000000000000000000',
      '-0.00000000012345',
    ]);
  });
});

describe('compacting the current hour as it goes', () => {
  const name = 'growing_probe';
  const selector = [{ label: '__name__', op: '=' as const, value: name }];
  const labels = { __name__: name, instance: 'g5:5' };
  afterAll(async () => {
    for (const table of ['metric_samples', 'metric_chunks']) await pool.query(`DELETE FROM ${table} WHERE series_id IN (SELECT id FROM metric_series WHERE name = $1)`, [name]);
    await pool.query('DELETE FROM metric_series WHERE name = $1', [name]);
  });
  const chunks = async () =>
    (
      await pool.query<{ start_ms: string; end_ms: string; samples: number; step_ms: number | null; times_bytes: number | null }>(
        'SELECT start_ms, end_ms, samples, step_ms, octet_length(times) AS times_bytes FROM metric_chunks c JOIN metric_series s ON s.id = c.series_id WHERE s.name = $1 ORDER BY start_ms',
        [name],
      )
    ).rows.map((row) => ({ start: Number(row.start_ms), end: Number(row.end_ms), samples: row.samples, step: row.step_ms, timesBytes: row.times_bytes }));

  it("appends each compaction to the hour's chunk, evenly spaced (its times not stored) while the samples are, and reads back every sample once", async () => {
    const store = new MetricsStore(pool);
    const reader = new MetricsStore(pool);
    // 10 s apart for the hour's first 20 minutes, then a gap of 25 s, then 10 s again.
    const times = [...Array.from({ length: 120 }, (_, i) => START + i * 10_000), ...Array.from({ length: 30 }, (_, i) => START + 1_215_000 + i * 10_000)];
    for (const [i, at] of times.entries()) await store.write({ atMs: at, samples: [{ labels, value: i }] });
    const read = async () => {
      const [series] = await reader.select(selector, START, START + HOUR);
      return { times: Array.from(series!.times), values: Array.from(series!.values) };
    };
    const everything = { times, values: times.map((_, i) => i) };

    expect(await store.compact(START + 600_000, START)).toBe(60);
    expect(await chunks()).toEqual([{ start: START, end: START + 590_000, samples: 60, step: 10_000, timesBytes: null }]);
    expect(await read()).toEqual(everything);
    expect(await store.compact(START + 1_200_000, START + 600_000)).toBe(60);
    expect(await chunks()).toEqual([{ start: START, end: START + 1_190_000, samples: 120, step: 10_000, timesBytes: null }]);
    // The reader cached the chunk at 60 samples: grown to 120, it is fetched again.
    expect(await read()).toEqual(everything);
    expect(await store.compact(START + HOUR, START + 1_200_000)).toBe(30);
    // No longer evenly spaced: the chunk's times are written out, the 120 it had by its spacing first.
    expect(await chunks()).toEqual([{ start: START, end: times.at(-1), samples: 150, step: null, timesBytes: 150 * 8 }]);
    expect(await read()).toEqual(everything);
    expect(await pool.query('SELECT 1 FROM metric_samples m JOIN metric_series s ON s.id = m.series_id WHERE s.name = $1', [name])).toHaveProperty('rowCount', 0);
  });

  it("leaves a sample written again at or before the end of the hour's chunk as a row, and reads the chunk's value", async () => {
    const store = new MetricsStore(pool);
    const [before] = await store.select(selector, START, START + HOUR);
    await store.write({ atMs: START + 100_000, samples: [{ labels, value: -1 }] });
    expect(await store.compact(START + HOUR, START)).toBe(0);
    expect((await chunks())[0]!.samples).toBe(150);
    const [after] = await store.select(selector, START, START + HOUR);
    expect(Array.from(after!.values)).toEqual(Array.from(before!.values));
  });
});

describe('the sampler on its own clock', () => {
  it("samples on the interval's grid (as Prometheus aligns its scrapes), so an hour's chunk is stored without its times", async () => {
    const INTERVAL = 250;
    const registry = new Registry();
    new Counter({ name: 'grid_probe_total', help: 'h', registers: [registry] }).inc();
    const store = new MetricsStore(pool);
    const sampler = new MetricsSampler(store, () => registry.getMetricsAsJSON(), { intervalMs: INTERVAL, retentionMs: 7 * 24 * HOUR, instance: 'grid:1', logger: createLogger('silent') });
    const written = async () =>
      (
        await pool.query<{ at_ms: string }>(
          `SELECT m.at_ms FROM metric_samples m JOIN metric_series s ON s.id = m.series_id WHERE s.name = 'grid_probe_total' AND s.labels->>'instance' = 'grid:1' ORDER BY at_ms`,
        )
      ).rows.map((row) => Number(row.at_ms));
    sampler.start();
    // Until four samplings are written (a busy machine holds ticks up: a late one is skipped), at most 10 s.
    const deadline = Date.now() + 10_000;
    while ((await written()).length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, INTERVAL));
    await sampler.stop();
    const times = await written();
    // The born zero at the interval before the first sampling, then one per tick.
    expect(times.length).toBeGreaterThanOrEqual(4);
    expect(times.filter((t) => t % INTERVAL !== 0)).toEqual([]);
    await store.compact(times.at(-1)! + 1, times[0]!);
    const chunk = await pool.query<{ step_ms: number | null; times: Buffer | null }>(
      `SELECT c.step_ms, c.times FROM metric_chunks c JOIN metric_series s ON s.id = c.series_id WHERE s.name = 'grid_probe_total' AND s.labels->>'instance' = 'grid:1'`,
    );
    const gaps = new Set(times.slice(1).map((t, i) => t - times[i]!));
    // A tick held up half an interval by a busy machine skips a grid point: then the chunk keeps its times.
    expect(chunk.rows).toEqual([gaps.size === 1 ? { step_ms: INTERVAL, times: null } : { step_ms: null, times: expect.any(Buffer) }]);
  });

  it("writes a new counter's zero and its first sampling in one statement: no query sees the zero alone", async () => {
    const registry = new Registry();
    new Counter({ name: 'born_probe_total', help: 'h', registers: [registry] }).inc(3);
    const sampled: string[] = [];
    // The store's pool, its statements noted (the sampler's and the store's only: this pool is theirs).
    const noting = Object.create(pool, { query: { value: (text: string, values?: unknown[]) => (sampled.push(text), pool.query(text, values)) } }) as pg.Pool;
    const clock = { now: START + 7 * STEP };
    const sampler = new MetricsSampler(new MetricsStore(noting), () => registry.getMetricsAsJSON(), {
      intervalMs: STEP,
      retentionMs: 7 * 24 * HOUR,
      instance: 'born:1',
      logger: createLogger('silent'),
      now: () => clock.now,
    });
    clock.now += STEP;
    await sampler.sample(clock.now);
    // The series added, then every sample in one INSERT.
    expect(sampled.filter((text) => text.includes('INSERT INTO metric_samples'))).toHaveLength(1);
    const rows = await pool.query<{ at_ms: string; value: number }>(
      `SELECT m.at_ms, m.value FROM metric_samples m JOIN metric_series s ON s.id = m.series_id WHERE s.name = 'born_probe_total' AND s.labels->>'instance' = 'born:1' ORDER BY at_ms`,
    );
    expect(rows.rows.map((row) => [Number(row.at_ms), row.value])).toEqual([
      [START + 7 * STEP, 0],
      [START + 8 * STEP, 3],
    ]);
  });
});

describe('JSON written as bytes', () => {
  it("writes a range answer's points as Prometheus's JSON, a time off the steps and values String() writes included", async () => {
    const { JsonBytes } = await import('../../src/platform/json/written-json.js');
    const { writeMatrix } = await import('../../src/platform/metrics-store/matrix-json.js');
    const { formatValue } = await import('../../src/platform/json/prometheus-value.js');
    const start = 1_764_201_600_000;
    const series = [
      // A flat line, a time between two steps, values written by the writer itself and by String().
      {
        labels: { job: 'a' },
        times: Float64Array.of(start, start + 15_000, start + 22_500, start + 30_000, start + 45_000, start + 60_000),
        values: Float64Array.of(0.1, 0.1, 1 / 3, NaN, -0, 2 ** -30),
      },
      { labels: { job: 'é"b' }, times: Float64Array.of(start + 60_000), values: Float64Array.of(1e21) },
    ];
    const out = new JsonBytes(16);
    writeMatrix(out, series, start, 15_000);
    const answer = JSON.parse(out.done().toString('utf8')) as { data: { result: { metric: Record<string, string>; values: [number, string][] }[] } };
    expect(answer.data.result).toEqual(series.map(({ labels, times, values }) => ({ metric: labels, values: Array.from(times, (t, i) => [t / 1000, formatValue(values[i]!)]) })));
  });

  it('grows past its first buffer and keeps every byte, multi-byte characters included', async () => {
    const { JsonBytes } = await import('../../src/platform/json/written-json.js');
    const out = new JsonBytes();
    const pieces: string[] = [];
    for (let i = 0; i < 20_000; i += 1) {
      const piece = i % 3 === 0 ? JSON.stringify({ label: `é ${i} \u2028 "q"` }) : String(i * 0.1);
      pieces.push(piece);
      if (i % 3 === 0) out.utf8(piece);
      else if (i % 3 === 1) out.ascii(piece);
      else out.raw(Buffer.from(piece));
      if (i % 7 === 0) {
        // The piece again, copied by the caller from the bytes just written into room() (a repeated
        // value), which may be a grown buffer.
        const length = Buffer.byteLength(piece);
        const buffer = out.room(length);
        let at = out.written;
        for (let b = at - length; b < out.written; b += 1) buffer[at++] = buffer[b]!;
        out.wroteTo(at);
        pieces.push(piece);
      }
      if (i % 1_000 === 0) {
        // A long run (a kept series' text), copied whole.
        const long = `[${i},"${'9'.repeat(200)}"]`;
        out.raw(Buffer.from(`xx${long}yy`), 2, 2 + long.length);
        pieces.push(long);
      }
    }
    const bytes = out.done();
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    expect(bytes.toString('utf8')).toBe(pieces.join(''));
  });
});
