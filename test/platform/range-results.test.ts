// Range answers kept between a dashboard's refreshes: a window moved on by steps is answered as
// evaluating it in full would, only its new steps evaluated; and nothing kept outlives a change to
// the samples it came from (a backfill, retention) or answers for a step whose samples may still come.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { formatValue } from '../../src/platform/json/prometheus-value.js';
import { rangeQuery } from '../../src/platform/promql/evaluator.js';
import { createEmbeddedPrometheusApi } from '../../src/platform/metrics-store/prometheus-read-api.js';
import { RangeResultCache, SETTLE_MS } from '../../src/platform/metrics-store/range-results.js';
import { writeMatrix } from '../../src/platform/metrics-store/matrix-json.js';
import { JsonBytes } from '../../src/platform/json/written-json.js';
import { MetricsStore } from '../../src/platform/metrics-store/store.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const HOUR = 3_600_000;
const STEP = 15_000;
// Two hours of samples ending an hour ago: settled.
const END = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
const START = END - 2 * HOUR;
const QUERY = 'sum by (dataset) (rate(refresh_events_total[5m]))';

let gw: TestGateway;
let pool: pg.Pool;
let store: MetricsStore;

/** Counters of three datasets at every step, growing by the dataset's rate (resets in c). */
async function writeSamples(target: MetricsStore, from: number, to: number, scale = 1): Promise<void> {
  for (let t = from; t <= to; t += STEP) {
    const i = (t - START) / STEP;
    const samples = ['a', 'b', 'c'].map((dataset, d) => ({ labels: { __name__: 'refresh_events_total', dataset }, value: scale * (d === 2 ? i % 100 : i * (d + 1)) }));
    await target.write({ atMs: t, samples });
  }
}

beforeAll(async () => {
  gw = await startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0' });
  pool = new pg.Pool({ connectionString: gw.databaseUrl, max: 2 });
  store = new MetricsStore(pool);
  await writeSamples(store, START, END);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await gw?.stop();
});

type Matrix = { status: string; data: { resultType: string; result: { metric: Record<string, string>; values: [number, string][] }[] } };

/** The API's answer for a range, as its JSON (what a dashboard reads). */
async function answered(api: ReturnType<typeof createEmbeddedPrometheusApi>, query: string, from: number, to: number): Promise<Matrix> {
  const answer = (await api.get('/api/v1/query_range', { query, start: String(from / 1000), end: String(to / 1000), step: String(STEP / 1000) })) as { bytes(): Buffer };
  return JSON.parse(answer.bytes().toString('utf8')) as Matrix;
}

/** The same range evaluated in full, straight from the store, as the API writes it. */
async function evaluated(query: string, from: number, to: number): Promise<Matrix> {
  const { result } = await rangeQuery(new MetricsStore(pool), query, from, to, STEP);
  return {
    status: 'success',
    data: {
      resultType: 'matrix',
      result: result.map((series) => ({ metric: series.labels, values: Array.from(series.times, (t, i) => [t / 1000, formatValue(series.values[i]!)] as [number, string]) })),
    },
  };
}

describe('range answers kept for a refreshing dashboard', () => {
  it('answers a window moved on step by step as evaluating it in full does', async () => {
    const api = createEmbeddedPrometheusApi(store, { retentionMs: 7 * 24 * HOUR });
    for (let moved = 0; moved <= 4 * STEP; moved += STEP) {
      const [from, to] = [START + HOUR + moved, END - 20 * 60_000 + moved];
      const answer = await answered(api, QUERY, from, to);
      expect(answer.data.result.map((series) => series.metric.dataset)).toEqual(['a', 'b', 'c']);
      expect(answer).toEqual(await evaluated(QUERY, from, to));
    }
  });

  it('evaluates only the steps it did not keep', async () => {
    const ranges = new RangeResultCache(1_000_000);
    const asked: [number, number][] = [];
    const evaluate = async (from: number, to: number) => {
      asked.push([from, to]);
      return (await rangeQuery(store, QUERY, from, to, STEP)).result;
    };
    const request = (from: number, to: number) => ({ query: QUERY, startMs: from, endMs: to, stepMs: STEP, generation: store.generation, nowMs: END + HOUR });
    await ranges.answer(request(START + HOUR, END - HOUR / 2), evaluate);
    const moved = await ranges.answer(request(START + HOUR + 2 * STEP, END - HOUR / 2 + 2 * STEP), evaluate);
    expect(asked).toEqual([
      [START + HOUR, END - HOUR / 2],
      [END - HOUR / 2 + STEP, END - HOUR / 2 + 2 * STEP],
    ]);
    // The points (their text, kept with them, is what the API answers: the tests above read it).
    expect(moved.series.map(({ labels, times, values }) => ({ labels, times, values }))).toEqual((await rangeQuery(store, QUERY, START + HOUR + 2 * STEP, END - HOUR / 2 + 2 * STEP, STEP)).result);
    // Steps a multiple of the step apart only: a window moved by 5 s has other steps, evaluated in full.
    await ranges.answer(request(START + HOUR + 5_000, END - HOUR / 2 + 5_000), evaluate);
    expect(asked.at(-1)).toEqual([START + HOUR + 5_000, END - HOUR / 2 + 5_000]);
    // A query whose steps depend on the range's start is evaluated in full every time.
    const edges = 'sum(refresh_events_total @ start())';
    for (const from of [START + HOUR, START + HOUR + STEP]) {
      await ranges.answer({ ...request(from, from + HOUR / 2), query: edges }, async (start, end) => {
        asked.push([start, end]);
        return (await rangeQuery(store, edges, start, end, STEP)).result;
      });
      expect(asked.at(-1)).toEqual([from, from + HOUR / 2]);
    }
  });

  it('keeps the text of the settled points its writer hands back, and the next answer copies it', async () => {
    const ranges = new RangeResultCache(50_000_000);
    const evaluate = async (from: number, to: number) => (await rangeQuery(store, QUERY, from, to, STEP)).result;
    const request = (from: number, to: number) => ({ query: QUERY, startMs: from, endMs: to, stepMs: STEP, generation: store.generation, nowMs: END - HOUR / 2 + SETTLE_MS });
    // Settled up to half an hour before the end: the last 120 steps are not kept.
    const first = await ranges.answer(request(START + HOUR, END), evaluate);
    expect(first.series.map((series) => series.times.length - series.keepPoints!)).toEqual([120, 120, 120]);
    const out = new JsonBytes(16);
    const textsIn = writeMatrix(out, first.series, START + HOUR, STEP);
    first.keepTexts(textsIn(out.done()));
    const moved = await ranges.answer(request(START + HOUR + STEP, END + STEP), evaluate);
    for (const series of moved.series) {
      // Its first points' text, as the whole answer writes them.
      const { values } = JSON.parse(`{"values":[${series.text!.bytes.toString('latin1')}]}`) as { values: [number, string][] };
      expect(values).toEqual(Array.from(series.times.subarray(0, series.text!.ends.length), (t, i) => [t / 1000, formatValue(series.values[i]!)]));
      expect(series.text!.ends.length).toBe(first.series[0]!.keepPoints! - 1);
    }
  });

  it('answers with the samples written since for times long past (a backfill) and after retention deleted some', async () => {
    const writer = new MetricsStore(pool);
    const api = createEmbeddedPrometheusApi(writer, { retentionMs: 7 * 24 * HOUR });
    const [from, to] = [START + HOUR / 2, END];
    const before = await answered(api, QUERY, from, to);
    expect(before).toEqual(await evaluated(QUERY, from, to));
    // Written again at twice the values: every rate doubles.
    await writeSamples(writer, START, END, 2);
    const after = await answered(api, QUERY, from, to);
    expect(after).toEqual(await evaluated(QUERY, from, to));
    expect(after).not.toEqual(before);
    await writer.deleteBefore(START + HOUR);
    const retained = await answered(api, QUERY, from, to);
    expect(retained).toEqual(await evaluated(QUERY, from, to));
    expect(retained.data.result[0]!.values[0]![0]).toBeGreaterThanOrEqual((START + HOUR) / 1000);
  });

  it('evaluates again the steps whose samples may still come (within SETTLE_MS of now)', async () => {
    const now = Math.floor(Date.now() / STEP) * STEP;
    const since = now - 30 * 60_000;
    const recent = (t: number) => [1, 2, 3].map((rate) => ({ labels: { __name__: 'recent_events_total', rate: String(rate) }, value: ((t - since) / STEP) * rate }));
    // Half an hour up to two steps ago (settled by the time the query runs)...
    for (let t = since; t <= now - 2 * STEP; t += STEP) await store.write({ atMs: t, samples: recent(t) });
    const api = createEmbeddedPrometheusApi(store, { retentionMs: 7 * 24 * HOUR, now: () => now });
    const query = 'sum(increase(recent_events_total[1m]))';
    const [from, to] = [now - 20 * 60_000, now];
    const first = await answered(api, query, from, to);
    // ...then the sampling of a step ago, after the answer.
    await store.write({ atMs: now - STEP, samples: recent(now - STEP) });
    const refreshed = await answered(api, query, from, to);
    expect(refreshed).toEqual(await evaluated(query, from, to));
    expect(refreshed.data.result[0]!.values.at(-1)).not.toEqual(first.data.result[0]!.values.at(-1));
  });
});
