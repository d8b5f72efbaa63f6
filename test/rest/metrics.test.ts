// What only the REST layer of dataset metrics has (POST /v2/dataset/metrics, singular `dataset`;
// contract 4.1, 7): the envelope and its request schema's refusals. The behaviour both transports
// share is in test/contract/metrics.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, expectRestFailure } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { MESSY } from '../support/metrics.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  await seedDataset(gw, MESSY, 'Live');
});
afterAll(async () => {
  await gw?.stop();
});

const API_ID = 'api.dataset.metrics';

function metrics(request: unknown): Promise<Response> {
  return gw.http.post('/v2/dataset/metrics').send(envelope(API_ID, request));
}

describe('POST /v2/dataset/metrics', () => {
  it('answers the contract envelope around the categories', async () => {
    const response = await metrics({ dataset_id: MESSY, category: ['data_volume'] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: API_ID, ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS', msgid: 'test-msg-1' } });
    expect((response.body.result as { category: string }[]).map((category) => category.category)).toEqual(['data_volume']);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT naming the path when dataset_id or the request is missing', async () => {
    expectRestFailure(await metrics({ category: ['data_volume'] }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^#properties\/request\/required must have required property 'dataset_id'$/);
    expectRestFailure(await metrics(undefined), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^#required must have required property 'request'$/);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT for an unknown or empty category list', async () => {
    expectRestFailure(
      await metrics({ dataset_id: MESSY, category: ['data_speed'] }),
      400,
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /category\/items\/enum must be equal to one of the allowed values \(data_freshness, .*data_quality\) at \/request\/category\/0/,
    );
    // Emptiness and the period's range are the service's rules (issue 34), the same message on GraphQL (test/contract/metrics.ts).
    expectRestFailure(await metrics({ dataset_id: MESSY, category: [] }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /^category must name at least one category; leave it out for all of them$/);
  });

  it('answers 400 DATA_OUT_INVALID_INPUT for a period that is not 1 to METRICS_MAX_PERIOD_DAYS (90) days', async () => {
    expectRestFailure(
      await metrics({ dataset_id: MESSY, query_time_period: 0 }),
      400,
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 0\)$/,
    );
    expectRestFailure(await metrics({ dataset_id: MESSY, query_time_period: 'seven' }), 400, 'DATA_OUT_INVALID_INPUT', 'BAD_REQUEST', /query_time_period\/type must be integer/);
    expectRestFailure(
      await metrics({ dataset_id: MESSY, query_time_period: 91 }),
      400,
      'DATA_OUT_INVALID_INPUT',
      'BAD_REQUEST',
      /^query_time_period must be a whole number of days from 1 to 90 \(METRICS_MAX_PERIOD_DAYS; got 91\)$/,
    );
  });
});
