// Running query templates over REST, POST /v2/template/query/{template_id}: what only REST has. The
// runs both transports share are in test/contract/template-run.ts; here are the envelope of an
// answer and of a refusal, and the request schema's refusals (a missing or unknown field, a limit
// that is not an integer, an aggregationLevel outside the contract's spelling).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { runRequest } from '../contract/template-run.js';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { envelope } from '../support/api.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { RUN_DATASETS, runTemplateId, SALES_SCHEMA_OVERRIDES, seedRunTemplates } from '../support/template-run.js';

const API_ID = 'api.query.template.query';
const SQL_BY_HOUR = runTemplateId('sqlByHour');

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await seedDataset(gw, RUN_DATASETS.sales, 'Live', SALES_SCHEMA_OVERRIDES);
  await seedRunTemplates(gw, ['sqlByHour', 'scan', 'javascriptFilter']);
});
afterAll(async () => {
  await gw?.stop();
});

function run(templateId: string, request: Json): Promise<Response> {
  return gw.http.post(`/v2/template/query/${encodeURIComponent(templateId)}`).send(envelope(API_ID, request));
}

/** A refusal with this HTTP status and code in the envelope of the run operation, empty trace and result. */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expectRefusal(restOutcome(response), code, message);
  expect({ id: response.body.id, trace: response.body.error.trace, result: response.body.result }).toEqual({ id: API_ID, trace: '', result: {} });
}

describe('POST /v2/template/query/:id: the envelope', () => {
  it('answers a run in the envelope of api.query.template.query with the rows as result', async () => {
    const response = await run(SQL_BY_HOUR, runRequest());
    expect(response.status).toBe(200);
    expect(restOutcome(response)).toEqual({ ok: true, value: [] });
    expect(response.body.id).toBe(API_ID);
  });

  it('answers a refusal with its status, an empty trace and an empty result: 404 for a missing template or dataset, 400 for bad values', async () => {
    expectFailure(await run('run_no_such_template', runRequest()), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /run_no_such_template/);
    expectFailure(await run(SQL_BY_HOUR, runRequest({ dataset: 'run_nowhere' })), 404, 'DATA_OUT_SOURCE_NOT_FOUND', /run_nowhere/);
    expectFailure(await run(SQL_BY_HOUR, runRequest({ startdate: '2025-03-02', enddate: '2026-03-02' })), 400, 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    expectFailure(await run(SQL_BY_HOUR, runRequest({ limit: 0 })), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
    expectFailure(await run(runTemplateId('javascriptFilter'), runRequest()), 400, 'DATA_OUT_INVALID_INPUT', /javascript/);
  });
});

describe('POST /v2/template/query/:id: the request schema', () => {
  it.each(['startdate', 'enddate', 'dataset', 'aggregationLevel'])(
    'returns 400 QUERY_TEMPLATE_INVALID_INPUT "#properties/request/required must have required property \'%s\'" when it is missing',
    async (field) => {
      const response = await run(SQL_BY_HOUR, runRequest({ [field]: undefined }));
      expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /./);
      expect(response.body.error.message).toBe(`#properties/request/required must have required property '${field}'`);
    },
  );

  it.each([
    ['not an integer', 1.5],
    ['a numeric string', '10'],
  ])('returns 400 QUERY_TEMPLATE_INVALID_INPUT when limit is %s (sql and json templates)', async (_, limit) => {
    for (const key of ['sqlByHour', 'scan'] as const) expectFailure(await run(runTemplateId(key), { ...runRequest(), limit }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
  });

  it.each(['hourly', 'HOUR', 'minute', 'PT1H', ''])('returns 400 QUERY_TEMPLATE_INVALID_INPUT when aggregationLevel is %j', async (aggregationLevel) => {
    expectFailure(await run(SQL_BY_HOUR, runRequest({ aggregationLevel })), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /aggregationLevel/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT naming a field the request does not know', async () => {
    expectFailure(await run(SQL_BY_HOUR, { ...runRequest(), granularity: 'hour' }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /granularity/);
  });
});
