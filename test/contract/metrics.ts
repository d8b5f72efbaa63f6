// Dataset health metrics (contract 2.7, 4.1, 7; issue 8), written once for both transports, computed
// from events ingested at known times (test/support/metrics.ts seeds them), compared in the
// contract's spelling; and a second gateway whose metrics source (a Prometheus stub) fails.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { CLEAN, CLEAN_OFFSETS_MIN, cleanFigures, DRAFT, EMPTY, emptyFreshness, expectFreshness, MESSY, MESSY_OFFSETS_MIN, messyFigures, RETIRED, seedMetrics } from '../support/metrics.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export type Category = { category: string; status?: string; components: { type: string; value?: number }[] };

export interface MetricsDriver {
  /** The categories of a dataset's metrics, asked of gateway `target` (contract spelling). */
  metrics(target: TestGateway, datasetId: string, options?: { categories?: string[]; period?: number }): Promise<Outcome<Category[]>>;
}

export function metricsScenarios(ctx: SuiteContext<MetricsDriver>): void {
  let ingestedAt: number;
  beforeAll(async () => {
    await seedMetrics(ctx.gw);
    ingestedAt = Date.now();
  });
  const metricsOk = async (datasetId: string, options?: { categories?: string[]; period?: number }) => expectOk(await ctx.driver.metrics(ctx.gw, datasetId, options));
  const minutesSinceIngest = () => (Date.now() - ingestedAt) / 60_000 + 0.5;

  it("reports every category, with exactly the contract's components, from the events ingested (duplicates and failures included)", async () => {
    const result = await metricsOk(MESSY);
    expect(result).toEqual(messyFigures());
    expectFreshness(result[0]!.components, MESSY_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset whose events are recent and valid as Healthy', async () => {
    const result = await metricsOk(CLEAN);
    expect(result).toEqual(cleanFigures());
    expectFreshness(result[0]!.components, CLEAN_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset without events with zeros, and freshness Unhealthy with nothing to measure', async () => {
    const result = await metricsOk(EMPTY);
    expect(result[0]).toEqual(emptyFreshness());
    const counts = result.slice(1).flatMap((category) => category.components.filter((component) => !['threshold_percentage', 'data_observability_health'].includes(component.type)));
    expect(counts.filter((component) => component.value !== 0)).toEqual([]);
    expect(counts).toHaveLength(2 + 7 + 8 + 2 + 3);
    expect(result.find((category) => category.category === 'data_observability')?.status).toBe('Healthy');
  });

  it("reports the categories asked for, in the contract's order whatever the request's", async () => {
    const result = await metricsOk(MESSY, { categories: ['data_quality', 'data_volume', 'data_quality'] });
    expect(result.map((category) => category.category)).toEqual(['data_volume', 'data_quality']);
    expect(result).toEqual([messyFigures()[2], messyFigures()[5]]);
  });

  it('looks back the period in days: one day holds 7 events against 2 the day before, thirty days all 13', async () => {
    const volume = (result: Category[]) => result[0]!.components.filter((c) => ['events_per_n_day', 'growth_rate_percentage'].includes(c.type));
    expect(volume(await metricsOk(MESSY, { categories: ['data_volume'], period: 1 }))).toEqual([
      { type: 'events_per_n_day', value: 7 },
      { type: 'growth_rate_percentage', value: 250 },
    ]);
    expect(volume(await metricsOk(MESSY, { categories: ['data_volume'], period: 30 }))).toEqual([
      { type: 'events_per_n_day', value: 13 },
      { type: 'growth_rate_percentage', value: 0 },
    ]);
  });

  it('reports a Retired dataset (its published version is still in the live table)', async () => {
    expect((await metricsOk(RETIRED, { categories: ['data_quality'] }))[0]!.components).toEqual([
      { type: 'incidents_failed', value: 0 },
      { type: 'incidents_success', value: 0 },
      { type: 'total_incidents', value: 0 },
    ]);
  });

  it('refuses a period over METRICS_MAX_PERIOD_DAYS (90)', async () => {
    expectFailure(
      await ctx.driver.metrics(ctx.gw, MESSY, { period: 91 }),
      'DATA_OUT_INVALID_INPUT',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 91\)$/,
    );
  });

  // The services' rules (issue 34; REST's schema held them before): one message on both transports.
  it('refuses a period under one day and an empty category list, saying so', async () => {
    expectFailure(
      await ctx.driver.metrics(ctx.gw, MESSY, { period: 0 }),
      'DATA_OUT_INVALID_INPUT',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 0\)$/,
    );
    expectFailure(await ctx.driver.metrics(ctx.gw, MESSY, { categories: [] }), 'DATA_OUT_INVALID_INPUT', /^category must name at least one category; leave it out for all of them$/);
  });

  it('refuses a dataset id no dataset can have (over 200 characters) as bad input, not as missing', async () => {
    // GraphQL's dataset(id) is no REST entry's: it answers the generic code, REST this entry's.
    const code = ctx.transport === 'rest' ? 'DATA_OUT_INVALID_INPUT' : 'INVALID_INPUT';
    expectFailure(await ctx.driver.metrics(ctx.gw, 'm'.repeat(201)), code, /^dataset_id is 201 characters long; at most 200 are allowed$/);
  });

  it('answers DATASET_NOT_FOUND for an unknown dataset and for one that only has a Draft', async () => {
    expectFailure(await ctx.driver.metrics(ctx.gw, 'metrics_nowhere'), 'DATASET_NOT_FOUND', /metrics_nowhere/);
    expectFailure(await ctx.driver.metrics(ctx.gw, DRAFT), 'DATASET_NOT_FOUND', /metrics_draft/);
  });

  describe('when the metrics source fails', () => {
    let prometheus: HttpStub;
    let failing: TestGateway;
    beforeAll(async () => {
      prometheus = await startHttpStub();
      prometheus.answer = () => ({ status: 503, body: { status: 'error', errorType: 'unavailable', error: 'TSDB not ready' } });
      failing = await startTestGateway({ PROMETHEUS_URL: prometheus.url });
      await seedDataset(failing, MESSY, 'Live');
    });
    afterAll(async () => {
      await failing?.stop();
      await prometheus?.close();
    });

    it('answers FAILED_TO_FETCH_METRICS naming its answer', async () => {
      expectFailure(
        await ctx.driver.metrics(failing, MESSY, { categories: ['data_volume'] }),
        'FAILED_TO_FETCH_METRICS',
        /^Error while fetching metrics: Prometheus at http:\/\/127\.0\.0\.1:\d+ answered HTTP 503 \(unavailable: TSDB not ready\)$/,
      );
    });
  });
}
