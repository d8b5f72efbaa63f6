// Query templates over the REST compatibility layer: what only REST has. The behaviour both
// transports share is in test/contract/templates.ts and test/contract/template-run.ts; here are the
// request-schema refusals (a missing or unknown field, a query type outside sql/json, a sql query
// given as an object, a run's limit that is not an integer or an aggregationLevel outside the
// contract's spelling), the list request without a body, the original `order` form, limit/offset
// paging, and the envelope of a run and of its refusals. Every test uses names of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { expectFailure as expectRefusal, restOutcome } from '../contract/harness.js';
import { runRequest } from '../contract/template-run.js';
import { envelope, SQL_QUERY } from '../support/api.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { RUN_DATASETS, runTemplateId, SALES_SCHEMA_OVERRIDES, seedRunTemplates } from '../support/template-run.js';
import {
  countStoredTemplates,
  expectTemplateNotStored,
  JSON_QUERY_OBJECT,
  seedSortkeyTemplates,
  seedTemplate,
  SORTKEY_ASCENDING,
  SORTKEY_IDS,
  sortkeyIdsIn,
  TEMPLATE_API,
} from '../support/templates.js';

const RUN_API_ID = 'api.query.template.query';
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

type TemplateRecord = { template_id: string } & Record<string, unknown>;

function create(request: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/template/create').send(envelope(TEMPLATE_API.create, request));
}

function list(request?: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/template/list').send(envelope(TEMPLATE_API.list, request));
}

async function listOk(request?: Record<string, unknown>): Promise<TemplateRecord[]> {
  const response = await list(request);
  expect(response.status).toBe(200);
  return response.body.result as TemplateRecord[];
}

async function listIds(request?: Record<string, unknown>): Promise<string[]> {
  return (await listOk(request)).map((record) => record.template_id);
}

/** A failure with this HTTP status and code (restOutcome checks the rest of the envelope). */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect(response.status).toBe(status);
  expectRefusal(restOutcome(response), code, message);
}

describe('POST /v2/template/create: the request schema', () => {
  it('returns 400 QUERY_TEMPLATE_INVALID naming template_name when it is missing', async () => {
    expectFailure(await create({ query_type: 'sql', query: SQL_QUERY }), 400, 'QUERY_TEMPLATE_INVALID', /template_name/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when query_type is missing', async () => {
    expectFailure(await create({ template_name: 'No Type Given', query: SQL_QUERY }), 400, 'QUERY_TEMPLATE_INVALID', /query_type/);
    await expectTemplateNotStored(gw, 'No Type Given');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID naming the allowed values when query_type is neither sql nor json', async () => {
    const response = await create({ template_name: 'Xml Type Given', query_type: 'xml', query: SQL_QUERY });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /query_type/);
    expect(response.body.error.message).toMatch(/sql, json/);
    await expectTemplateNotStored(gw, 'Xml Type Given');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when a sql query is given as an object', async () => {
    const response = await create({ template_name: 'Sql As Object', query_type: 'sql', query: JSON_QUERY_OBJECT });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /query/);
    expect(response.body.error.message).toMatch(/string/);
    await expectTemplateNotStored(gw, 'Sql As Object');
  });
});

describe('POST /v2/template/list: the request', () => {
  beforeAll(async () => {
    await seedSortkeyTemplates(gw);
    for (const name of ['Page One', 'Page Two', 'Page Three']) await seedTemplate(gw, name);
  });

  it('lists every template when the request has no body at all, or a bare {} body', async () => {
    const stored = await countStoredTemplates(gw);
    const noBody = await gw.http.post('/v2/template/list');
    expect(noBody.status).toBe(200);
    expect(noBody.body.result).toHaveLength(stored);
    expect((noBody.body.result as TemplateRecord[]).map((record) => record.template_id)).toEqual(expect.arrayContaining(SORTKEY_IDS));
    const bare = await gw.http.post('/v2/template/list').send({});
    expect(bare.status).toBe(200);
    expect(bare.body.result).toHaveLength(stored);
  });

  it('accepts the original order form [["created_date","ASC"]] and sorts by it', async () => {
    expect(sortkeyIdsIn(await listIds({ order: [['created_date', 'ASC']] }))).toEqual(SORTKEY_ASCENDING.created_date);
    expect(sortkeyIdsIn(await listIds({ order: [['template_name', 'DESC']] }))).toEqual([...SORTKEY_ASCENDING.template_name].reverse());
  });

  it('pages with limit and offset: the pages together give the whole list once, in order', async () => {
    const sortBy = [{ field: 'template_id', order: 'asc' }];
    const all = await listOk({ sortBy });
    expect(all.length).toBeGreaterThan(5);
    const paged: TemplateRecord[] = [];
    for (let offset = 0; offset < all.length + 2; offset += 2) {
      const page = await listOk({ sortBy, limit: 2, offset });
      expect(page.length).toBeLessThanOrEqual(2);
      paged.push(...page);
    }
    expect(paged.map((record) => record.template_id)).toEqual(all.map((record) => record.template_id));
    expect(await listOk({ sortBy, limit: 2, offset: 1 })).toEqual(all.slice(1, 3));
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT naming an unknown filter key', async () => {
    expectFailure(await list({ filters: { status: 'Live' } }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /'status'/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the offset is negative', async () => {
    expectFailure(await list({ limit: 2, offset: -1 }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /offset/);
  });
});

describe('PATCH /v2/template/update/:id: the request schema', () => {
  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the new query_type is neither json nor sql, and changes nothing (rule a)', async () => {
    const id = await seedTemplate(gw, 'Update Bad Type');
    const before = await gw.http.get(`/v2/template/read/${id}`);
    const response = await gw.http.patch(`/v2/template/update/${id}`).send(envelope(TEMPLATE_API.update, { query_type: 'xml', query: SQL_QUERY }));
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /query_type/);
    expect((await gw.http.get(`/v2/template/read/${id}`)).body.result).toEqual(before.body.result);
  });
});

function run(templateId: string, request: Json): Promise<Response> {
  return gw.http.post(`/v2/template/query/${encodeURIComponent(templateId)}`).send(envelope(RUN_API_ID, request));
}

/** A refused run: expectFailure, in the envelope of the run operation with an empty trace and result. */
function expectRunFailure(response: Response, status: number, code: string, message: RegExp): void {
  expectFailure(response, status, code, message);
  expect({ id: response.body.id, trace: response.body.error.trace, result: response.body.result }).toEqual({ id: RUN_API_ID, trace: '', result: {} });
}

describe('POST /v2/template/query/:id: the envelope', () => {
  it('answers a run in the envelope of api.query.template.query with the rows as result', async () => {
    const response = await run(SQL_BY_HOUR, runRequest());
    expect(response.status).toBe(200);
    expect(restOutcome(response)).toEqual({ ok: true, value: [] });
    expect(response.body.id).toBe(RUN_API_ID);
  });

  it('answers a refusal with its status, an empty trace and an empty result: 404 for a missing template or dataset, 400 for bad values', async () => {
    expectRunFailure(await run('run_no_such_template', runRequest()), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /run_no_such_template/);
    expectRunFailure(await run(SQL_BY_HOUR, runRequest({ dataset: 'run_nowhere' })), 404, 'DATA_OUT_SOURCE_NOT_FOUND', /run_nowhere/);
    expectRunFailure(await run(SQL_BY_HOUR, runRequest({ startdate: '2025-03-02', enddate: '2026-03-02' })), 400, 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    expectRunFailure(await run(SQL_BY_HOUR, runRequest({ limit: 0 })), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
    expectRunFailure(await run(runTemplateId('javascriptFilter'), runRequest()), 400, 'DATA_OUT_INVALID_INPUT', /javascript/);
  });
});

describe('POST /v2/template/query/:id: the request schema', () => {
  it.each(['startdate', 'enddate', 'dataset', 'aggregationLevel'])(
    'returns 400 QUERY_TEMPLATE_INVALID_INPUT "#properties/request/required must have required property \'%s\'" when it is missing',
    async (field) => {
      const response = await run(SQL_BY_HOUR, runRequest({ [field]: undefined }));
      expectRunFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /./);
      expect(response.body.error.message).toBe(`#properties/request/required must have required property '${field}'`);
    },
  );

  it.each([
    ['not an integer', 1.5],
    ['a numeric string', '10'],
  ])('returns 400 QUERY_TEMPLATE_INVALID_INPUT when limit is %s (sql and json templates)', async (_, limit) => {
    for (const key of ['sqlByHour', 'scan'] as const) expectRunFailure(await run(runTemplateId(key), { ...runRequest(), limit }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /limit/);
  });

  it.each(['hourly', 'HOUR', 'minute', 'PT1H', ''])('returns 400 QUERY_TEMPLATE_INVALID_INPUT when aggregationLevel is %j', async (aggregationLevel) => {
    expectRunFailure(await run(SQL_BY_HOUR, runRequest({ aggregationLevel })), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /aggregationLevel/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT naming a field the request does not know', async () => {
    expectRunFailure(await run(SQL_BY_HOUR, { ...runRequest(), granularity: 'hour' }), 400, 'QUERY_TEMPLATE_INVALID_INPUT', /granularity/);
  });
});
