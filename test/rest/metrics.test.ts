// Dataset health metrics over the REST compatibility layer: POST /v2/dataset/metrics (contract
// 2.7, 4.1, 7; issue 8), computed from events ingested through POST /v2/data/in at known times.
// Mirrors test/graphql/metrics.test.ts rule by rule.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { CLEAN, CLEAN_OFFSETS_MIN, cleanFigures, DRAFT, EMPTY, emptyFreshness, expectFreshness, MESSY, MESSY_OFFSETS_MIN, messyFigures, RETIRED, seedMetrics } from '../support/metrics.js';

let gw: TestGateway;
/** A gateway reading Prometheus at a stub that answers 503. */
let failing: TestGateway;
let prometheus: HttpStub;
let ingestedAt: number;

beforeAll(async () => {
  prometheus = await startHttpStub();
  prometheus.answer = () => ({ status: 503, body: { status: 'error', errorType: 'unavailable', error: 'TSDB not ready' } });
  [gw, failing] = await Promise.all([startTestGateway(), startTestGateway({ PROMETHEUS_URL: prometheus.url })]);
  await Promise.all([seedMetrics(gw), seedDataset(failing, MESSY, 'Live')]);
  ingestedAt = Date.now();
}, 60_000);
afterAll(async () => {
  await Promise.all([gw?.stop(), failing?.stop()]);
  await prometheus?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const API_ID = 'api.dataset.metrics';

function metrics(request: unknown, target: TestGateway = gw): Promise<Response> {
  return target.http.post('/v2/dataset/metrics').send(envelope(API_ID, request));
}

type Category = { category: string; status?: string; components: { type: string; value?: number }[] };

async function metricsOk(request: unknown): Promise<Category[]> {
  const response = await metrics(request);
  expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
  return response.body.result as Category[];
}

function minutesSinceIngest(): number {
  return (Date.now() - ingestedAt) / 60_000 + 0.5;
}

function expectFailure(response: Response, status: number, code: string, responseCode: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode, state: response.body.params?.status }).toEqual({
    status,
    code,
    responseCode,
    state: 'FAILED',
  });
  expect(response.body.error.message).toMatch(message);
  expect(response.body.result).toEqual({});
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/dataset/metrics', () => {
  it("reports every category, with exactly the contract's components, from the events ingested (duplicates and failures included)", async () => {
    const response = await metrics({ dataset_id: MESSY });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'test-msg-1' } });
    const result = response.body.result as Category[];
    expect(result).toEqual(messyFigures());
    expectFreshness(result[0]!.components, MESSY_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset whose events are recent and valid as Healthy', async () => {
    const result = await metricsOk({ dataset_id: CLEAN });
    expect(result).toEqual(cleanFigures());
    expectFreshness(result[0]!.components, CLEAN_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset without events with zeros, and freshness Unhealthy with nothing to measure', async () => {
    const result = await metricsOk({ dataset_id: EMPTY });
    expect(result[0]).toEqual(emptyFreshness());
    const counts = result.slice(1).flatMap((category) => category.components.filter((component) => !['threshold_percentage', 'data_observability_health'].includes(component.type)));
    expect(counts.filter((component) => component.value !== 0)).toEqual([]);
    expect(counts).toHaveLength(2 + 7 + 8 + 2 + 3);
    expect(result.find((category) => category.category === 'data_observability')?.status).toBe('Healthy');
  });

  it("reports the categories asked for, in the contract's order whatever the request's", async () => {
    const result = await metricsOk({ dataset_id: MESSY, category: ['data_quality', 'data_volume', 'data_quality'] });
    expect(result.map((category) => category.category)).toEqual(['data_volume', 'data_quality']);
    expect(result).toEqual([messyFigures()[2], messyFigures()[5]]);
  });

  it('looks back query_time_period days: one day holds 7 events against 2 the day before, thirty days all 13', async () => {
    const oneDay = await metricsOk({ dataset_id: MESSY, category: ['data_volume'], query_time_period: 1 });
    expect(oneDay[0]!.components.filter((c) => ['events_per_n_day', 'growth_rate_percentage'].includes(c.type))).toEqual([
      { type: 'events_per_n_day', value: 7 },
      { type: 'growth_rate_percentage', value: 250 },
    ]);
    const month = await metricsOk({ dataset_id: MESSY, category: ['data_volume'], query_time_period: 30 });
    expect(month[0]!.components.filter((c) => ['events_per_n_day', 'growth_rate_percentage'].includes(c.type))).toEqual([
      { type: 'events_per_n_day', value: 13 },
      { type: 'growth_rate_percentage', value: 0 },
    ]);
  });

  it('reports a Retired dataset (its published version is still in the live table)', async () => {
    expect((await metricsOk({ dataset_id: RETIRED, category: ['data_quality'] }))[0]!.components).toEqual([
      { type: 'incidents_failed', value: 0 },
      { type: 'incidents_success', value: 0 },
      { type: 'total_incidents', value: 0 },
    ]);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT naming the path when dataset_id or the request is missing', async () => {
    expectFailure(await metrics({ category: ['data_volume'] }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^#properties\/request\/required must have required property 'dataset_id'$/);
    expectFailure(await metrics(undefined), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^#required must have required property 'request'$/);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT for an unknown or empty category list', async () => {
    expectFailure(
      await metrics({ dataset_id: MESSY, category: ['data_speed'] }),
      400,
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /category\/items\/enum must be equal to one of the allowed values \(data_freshness, .*data_quality\) at \/request\/category\/0/,
    );
    expectFailure(await metrics({ dataset_id: MESSY, category: [] }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /category\/minItems/);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT for a period that is not 1 to METRICS_MAX_PERIOD_DAYS (90) days', async () => {
    expectFailure(await metrics({ dataset_id: MESSY, query_time_period: 0 }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /query_time_period\/minimum must be >= 1/);
    expectFailure(await metrics({ dataset_id: MESSY, query_time_period: 'seven' }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /query_time_period\/type must be integer/);
    expectFailure(
      await metrics({ dataset_id: MESSY, query_time_period: 91 }),
      400,
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /^query_time_period must be a whole number of days from 1 to 90 \(got 91\)$/,
    );
  });

  it('answers 404 DATASET_NOT_FOUND for an unknown dataset and for one that only has a Draft', async () => {
    expectFailure(await metrics({ dataset_id: 'metrics_nowhere' }), 404, 'DATASET_NOT_FOUND', 'NOT_FOUND', /metrics_nowhere/);
    expectFailure(await metrics({ dataset_id: DRAFT }), 404, 'DATASET_NOT_FOUND', 'NOT_FOUND', /metrics_draft/);
  });

  it('answers 500 FAILED_TO_FETCH_METRICS (responseCode FAILED) when the metrics source fails, naming its answer', async () => {
    expectFailure(
      await metrics({ dataset_id: MESSY, category: ['data_volume'] }, failing),
      500,
      'FAILED_TO_FETCH_METRICS',
      'FAILED',
      /^Error while fetching metrics: Prometheus at http:\/\/127\.0\.0\.1:\d+ answered HTTP 503 \(unavailable: TSDB not ready\)$/,
    );
  });
});
