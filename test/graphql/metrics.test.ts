// What only GraphQL's Dataset.metrics has: metrics on every node of a list, the refusals its enum
// makes, and the service's own checks that REST's request schema answers first. The behaviour both
// transports share is in test/contract/metrics.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { CLEAN, DRAFT, EMPTY, MESSY, seedMetrics } from '../support/metrics.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  await seedMetrics(gw);
});
afterAll(async () => {
  await gw?.stop();
});

const METRICS = `query Metrics($id: ID!, $version: DatasetVersion, $categories: [MetricCategory!], $period: Int) {
  dataset(id: $id, version: $version) { metrics(categories: $categories, period: $period) { category } }
}`;

function metrics(variables: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, METRICS, variables);
}

function expectFailure(response: GraphQLResponse, code: string, responseCode: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode });
  expect(response.errors![0]!.message).toMatch(message);
}

describe('Dataset.metrics(categories, period)', () => {
  it('is available on every dataset of a list, each with its own figures', async () => {
    const response = await graphql(
      gw,
      `
        query {
          datasets(filter: { status: [LIVE] }) {
            nodes {
              id: datasetId
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
    expectFailure(
      await metrics({ id: MESSY, period: 0 }),
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 0\)$/,
    );
    expectFailure(
      await metrics({ id: MESSY, period: 91 }),
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 91\)$/,
    );
  });

  it('fails with DATASET_NOT_FOUND for the draft version, saying the figures come from the live table', async () => {
    expectFailure(await metrics({ id: DRAFT, version: 'DRAFT' }), 'DATASET_NOT_FOUND', 'NOT_FOUND', /^Dataset with id metrics_draft not found in live table$/);
  });
});
