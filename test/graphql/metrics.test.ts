// Dataset health metrics over GraphQL: Dataset.metrics(categories, period) (contract 2.7, 4.1, 7;
// issue 8), computed from events ingested through POST /v2/data/in at known times. Mirrors
// test/rest/metrics.test.ts rule by rule; results are compared in the contract's spelling.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { CLEAN, CLEAN_OFFSETS_MIN, cleanFigures, DRAFT, EMPTY, emptyFreshness, expectFreshness, MESSY, MESSY_OFFSETS_MIN, messyFigures, RETIRED, seedMetrics } from '../support/metrics.js';

let gw: TestGateway;
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

const METRICS_FIELDS = 'category status components { type threshold value status id }';
const METRICS = `query Metrics($id: ID!, $version: DatasetVersion, $categories: [MetricCategory!], $period: Int) {
  dataset(id: $id, version: $version) { metrics(categories: $categories, period: $period) { ${METRICS_FIELDS} } }
}`;

interface GraphQLCategory {
  category: string;
  status: string | null;
  components: Record<string, string | number | null>[];
}

/** GraphQL's spelling (capital enums, nulls) in the contract's, to compare with the shared figures. */
function contractSpelling(categories: GraphQLCategory[]) {
  const status = (value: string | number | null) => (value === 'HEALTHY' ? 'Healthy' : 'Unhealthy');
  return categories.map((category) => ({
    category: category.category.toLowerCase(),
    ...(category.status === null ? {} : { status: status(category.status) }),
    components: category.components.map((component) =>
      Object.fromEntries(
        Object.entries(component)
          .filter(([, value]) => value !== null)
          .map(([key, value]) => [key, key === 'type' ? String(value).toLowerCase() : key === 'status' ? status(value) : value]),
      ),
    ),
  }));
}

function metrics(variables: Record<string, unknown>, target: TestGateway = gw): Promise<GraphQLResponse> {
  return graphql(target, METRICS, variables);
}

async function metricsOk(variables: Record<string, unknown>) {
  const response = await metrics(variables);
  expect(response.errors).toBeUndefined();
  return contractSpelling((response.data!.dataset as { metrics: GraphQLCategory[] }).metrics);
}

function minutesSinceIngest(): number {
  return (Date.now() - ingestedAt) / 60_000 + 0.5;
}

function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode });
  expect(response.errors![0]!.message).toMatch(message);
}

// ---------------------------------------------------------------------------------------------

describe('Dataset.metrics', () => {
  it("reports every category, with exactly the contract's components, from the events ingested (duplicates and failures included)", async () => {
    const result = await metricsOk({ id: MESSY });
    expect(result).toEqual(messyFigures());
    expectFreshness(result[0]!.components, MESSY_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset whose events are recent and valid as Healthy', async () => {
    const result = await metricsOk({ id: CLEAN });
    expect(result).toEqual(cleanFigures());
    expectFreshness(result[0]!.components, CLEAN_OFFSETS_MIN, minutesSinceIngest());
  });

  it('reports a dataset without events with zeros, and freshness Unhealthy with nothing to measure', async () => {
    const result = await metricsOk({ id: EMPTY });
    expect(result[0]).toEqual(emptyFreshness());
    const counts = result.slice(1).flatMap((category) => category.components.filter((component) => !['threshold_percentage', 'data_observability_health'].includes(String(component.type))));
    expect(counts.filter((component) => component.value !== 0)).toEqual([]);
    expect(counts).toHaveLength(2 + 7 + 8 + 2 + 3);
    expect(result.find((category) => category.category === 'data_observability')?.status).toBe('Healthy');
  });

  it("reports the categories asked for, in the contract's order whatever the request's", async () => {
    const result = await metricsOk({ id: MESSY, categories: ['DATA_QUALITY', 'DATA_VOLUME', 'DATA_QUALITY'] });
    expect(result).toEqual([messyFigures()[2], messyFigures()[5]]);
  });

  it('looks back `period` days: one day holds 7 events against 2 the day before, thirty days all 13', async () => {
    const pick = (result: Awaited<ReturnType<typeof metricsOk>>) => result[0]!.components.filter((c) => ['events_per_n_day', 'growth_rate_percentage'].includes(String(c.type)));
    expect(pick(await metricsOk({ id: MESSY, categories: ['DATA_VOLUME'], period: 1 }))).toEqual([
      { type: 'events_per_n_day', value: 7 },
      { type: 'growth_rate_percentage', value: 250 },
    ]);
    expect(pick(await metricsOk({ id: MESSY, categories: ['DATA_VOLUME'], period: 30 }))).toEqual([
      { type: 'events_per_n_day', value: 13 },
      { type: 'growth_rate_percentage', value: 0 },
    ]);
  });

  it('reports a Retired dataset (its published version is still in the live table)', async () => {
    expect((await metricsOk({ id: RETIRED, categories: ['DATA_QUALITY'] }))[0]!.components).toEqual([
      { type: 'incidents_failed', value: 0 },
      { type: 'incidents_success', value: 0 },
      { type: 'total_incidents', value: 0 },
    ]);
  });

  it('is available on every dataset of a list, each with its own figures', async () => {
    const response = await graphql(
      gw,
      `
        query {
          datasets(filter: { status: [LIVE] }) {
            nodes {
              id
              metrics(categories: [DATA_QUALITY]) {
                components {
                  type
                  value
                }
              }
            }
          }
        }
      `,
    );
    expect(response.errors).toBeUndefined();
    const totals = Object.fromEntries(
      (response.data!.datasets.nodes as { id: string; metrics: { components: { type: string; value: number }[] }[] }[]).map((node) => [node.id, node.metrics[0]!.components[2]!.value]),
    );
    expect(totals).toEqual({ [MESSY]: 17, [CLEAN]: 3, [EMPTY]: 0 });
  });

  it('is refused by GraphQL for an unknown category', async () => {
    const response = await metrics({ id: MESSY, categories: ['DATA_SPEED'] });
    expect(response.status).toBe(400);
    expect(response.errors?.[0]?.message).toMatch(/Value "DATA_SPEED" does not exist in "MetricCategory" enum/);
  });

  it('fails with DATA_OUT_INVALID_INPUT for an empty category list', async () => {
    expectFailure(await metrics({ id: MESSY, categories: [] }), 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^category must name at least one category; leave it out for all of them$/);
  });

  it('fails with DATA_OUT_INVALID_INPUT for a period that is not 1 to METRICS_MAX_PERIOD_DAYS (90) days', async () => {
    expectFailure(await metrics({ id: MESSY, period: 0 }), 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^query_time_period must be a whole number of days from 1 to 90 \(got 0\)$/);
    expectFailure(await metrics({ id: MESSY, period: 91 }), 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^query_time_period must be a whole number of days from 1 to 90 \(got 91\)$/);
  });

  it('fails with DATASET_NOT_FOUND for an unknown dataset and for one that only has a Draft', async () => {
    expectFailure(await metrics({ id: 'metrics_nowhere' }), 'DATASET_NOT_FOUND', 'NOT_FOUND', /metrics_nowhere/);
    expectFailure(await metrics({ id: DRAFT, version: 'DRAFT' }), 'DATASET_NOT_FOUND', 'NOT_FOUND', /^Dataset with id metrics_draft not found in live table$/);
  });

  it('fails with FAILED_TO_FETCH_METRICS (responseCode FAILED) when the metrics source fails, naming its answer', async () => {
    expectFailure(
      await metrics({ id: MESSY, categories: ['DATA_VOLUME'] }, failing),
      'FAILED_TO_FETCH_METRICS',
      'FAILED',
      /^Error while fetching metrics: Prometheus at http:\/\/127\.0\.0\.1:\d+ answered HTTP 503 \(unavailable: TSDB not ready\)$/,
    );
  });
});
