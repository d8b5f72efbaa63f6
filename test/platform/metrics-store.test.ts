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

  it('answers the same after completed hours move into chunks, from chunks and raw samples together', async () => {
    const store = new MetricsStore(pool);
    const moved = await store.compact(END - HOUR, START);
    expect(moved).toBeGreaterThan(0);
    const counts = await pool.query<{ raw: string; chunks: string }>('SELECT (SELECT count(*) FROM metric_samples) AS raw, (SELECT count(*) FROM metric_chunks) AS chunks');
    expect(Number(counts.rows[0]!.raw)).toBeGreaterThan(0);
    // One chunk per series and hour: g1's one series over the first hour (g2 had not started).
    expect(Number(counts.rows[0]!.chunks)).toBe(1);
    expect(await rangeQuery(store, query, START, END, 5 * 60_000)).toEqual(before);
    await store.compact(END + 1, START);
    expect(await rangeQuery(store, query, START, END, 5 * 60_000)).toEqual(before);
    expect((await store.series([], START, END)).map((labels) => labels.instance).sort()).toEqual(['g1:1', 'g2:2']);
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
    } finally {
      const probe = "(SELECT id FROM metric_series WHERE name = 'spacing_probe')";
      await pool.query(`DELETE FROM metric_samples WHERE series_id = ${probe}`);
      await pool.query(`DELETE FROM metric_chunks WHERE series_id = ${probe}`);
      await pool.query("DELETE FROM metric_series WHERE name = 'spacing_probe'");
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
