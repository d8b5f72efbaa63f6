// Query templates over the REST compatibility layer (contract 2.3, 4.3, 7, 8). Mirrors
// test/graphql/templates.test.ts rule by rule. Tests share one database: every test uses names of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope, JSON_QUERY, SQL_QUERY } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const API = {
  create: 'api.query.template.create',
  read: 'api.query.template.read',
  list: 'api.query.template.list',
  update: 'api.query.template.update',
  delete: 'api.query.template.delete',
} as const;

const RESPONSE_CODE: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT' };
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const RECORD_KEYS = ['created_by', 'created_date', 'query', 'query_type', 'template_id', 'template_name', 'updated_by', 'updated_date'];
const JSON_QUERY_OBJECT = JSON.parse(JSON_QUERY) as Record<string, unknown>;

interface TemplateRecord {
  template_id: string;
  template_name: string;
  query: string;
  query_type: string;
  created_by: string;
  updated_by: string;
  created_date: string;
  updated_date: string;
}

function idFor(name: string): string {
  return name.toLowerCase().replaceAll(' ', '_');
}

function create(request: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/template/create').send(envelope(API.create, request));
}

function read(id: string): Promise<Response> {
  return gw.http.get(`/v2/template/read/${encodeURIComponent(id)}`);
}

function list(request?: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/template/list').send(envelope(API.list, request));
}

function update(id: string, request: Record<string, unknown>): Promise<Response> {
  return gw.http.patch(`/v2/template/update/${encodeURIComponent(id)}`).send(envelope(API.update, request));
}

function remove(id: string): Promise<Response> {
  return gw.http.delete(`/v2/template/delete/${encodeURIComponent(id)}`);
}

/** Creates a template that must succeed and returns its id. */
async function createOk(name: string, queryType: 'sql' | 'json' = 'sql', query: unknown = queryType === 'sql' ? SQL_QUERY : JSON_QUERY): Promise<string> {
  const response = await create({ template_name: name, query_type: queryType, query });
  expect(response.status).toBe(200);
  return (response.body.result as { template_id: string }).template_id;
}

/** Reads a template that must exist. */
async function readOk(id: string): Promise<TemplateRecord> {
  const response = await read(id);
  expect(response.status).toBe(200);
  return response.body.result as TemplateRecord;
}

async function listOk(request?: Record<string, unknown>): Promise<TemplateRecord[]> {
  const response = await list(request);
  expect(response.status).toBe(200);
  expect(Array.isArray(response.body.result)).toBe(true);
  return response.body.result as TemplateRecord[];
}

/** A failure envelope with this status, code, kind and a message matching `message`. */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({
    status,
    code,
    responseCode: RESPONSE_CODE[status],
  });
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.message).toMatch(message);
}

/** Nothing was stored under this name (any case) nor its derived id. */
async function expectNotStored(name: string): Promise<void> {
  const rows = await gw.sql('SELECT template_id FROM query_templates WHERE lower(template_name) = lower($1) OR template_id = $2', [name, idFor(name)]);
  expect(rows.rows).toEqual([]);
}

async function countStored(queryType?: string): Promise<number> {
  const rows = await gw.sql<{ n: number }>(
    queryType ? 'SELECT count(*)::int AS n FROM query_templates WHERE query_type = $1' : 'SELECT count(*)::int AS n FROM query_templates',
    queryType ? [queryType] : [],
  );
  return rows.rows[0]!.n;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/template/create', () => {
  it('creates a sql template, answers {template_id, template_name, message} and stores the full record', async () => {
    const before = Date.now();
    const response = await create({ template_name: 'Create Sql One', query_type: 'sql', query: SQL_QUERY });
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    expect(response.body.result).toEqual({
      template_id: 'create_sql_one',
      template_name: 'Create Sql One',
      message: 'The query template has been saved successfully',
    });

    const stored = await readOk('create_sql_one');
    expect(stored).toMatchObject({
      template_id: 'create_sql_one',
      template_name: 'Create Sql One',
      query: SQL_QUERY,
      query_type: 'sql',
      created_by: 'SYSTEM',
      updated_by: 'SYSTEM',
    });
    expect(stored.created_date).toMatch(ISO_UTC);
    expect(stored.updated_date).toMatch(ISO_UTC);
    expect(Date.parse(stored.created_date)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(stored.created_date)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('derives the id from the name: lower case with underscores ("My Template 1" becomes my_template_1)', async () => {
    const response = await create({ template_name: 'My Template 1', query_type: 'sql', query: SQL_QUERY });
    expect(response.status).toBe(200);
    expect(response.body.result.template_id).toBe('my_template_1');
    expect((await readOk('my_template_1')).template_name).toBe('My Template 1');
  });

  it('requires a template_name: 400 QUERY_TEMPLATE_INVALID when it is missing or empty', async () => {
    const missing = await create({ query_type: 'sql', query: SQL_QUERY });
    expectFailure(missing, 400, 'QUERY_TEMPLATE_INVALID', /template_name/);
    const empty = await create({ template_name: '', query_type: 'sql', query: SQL_QUERY });
    expectFailure(empty, 400, 'QUERY_TEMPLATE_INVALID', /alphanumeric characters and single space/);
    await expectNotStored('');
  });

  it.each([
    ['two spaces between words', 'Double  Space'],
    ['a leading space', ' Leading Space'],
    ['a trailing space', 'Trailing Space '],
    ['a character that is not a letter or digit', 'Bad-Name'],
  ])('returns 400 QUERY_TEMPLATE_INVALID when the name has %s', async (_, name) => {
    const response = await create({ template_name: name, query_type: 'sql', query: SQL_QUERY });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /alphanumeric characters and single space/);
    await expectNotStored(name);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when query_type is missing', async () => {
    const response = await create({ template_name: 'No Type Given', query: SQL_QUERY });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /query_type/);
    await expectNotStored('No Type Given');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when query_type is neither sql nor json', async () => {
    const response = await create({ template_name: 'Xml Type Given', query_type: 'xml', query: SQL_QUERY });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /query_type/);
    expect(response.body.error.message).toMatch(/sql, json/);
    await expectNotStored('Xml Type Given');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID naming the placeholders a sql query lacks', async () => {
    const response = await create({ template_name: 'Missing Dates', query_type: 'sql', query: 'SELECT * FROM {{DATASET}} LIMIT {{LIMIT}}' });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /\{\{STARTDATE\}\}/);
    const missing = response.body.error.message.slice(response.body.error.message.indexOf('missing'));
    expect(missing).toContain('{{STARTDATE}}');
    expect(missing).toContain('{{ENDDATE}}');
    expect(missing).not.toContain('{{DATASET}}');
    await expectNotStored('Missing Dates');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID naming {{DATASET}} when a json query lacks it', async () => {
    const query = { queryType: 'timeseries', dataSource: 'fixed', intervals: ['{{STARTDATE}}/{{ENDDATE}}'] };
    const response = await create({ template_name: 'Missing Dataset Json', query_type: 'json', query });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /missing.*\{\{DATASET\}\}/);
    await expectNotStored('Missing Dataset Json');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID (not a store failure) when the query holds a NUL character', async () => {
    const response = await create({ template_name: 'Nul In Query', query_type: 'sql', query: `${SQL_QUERY}\u0000` });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /NUL/);
    await expectNotStored('Nul In Query');
  });

  it('stores a json query given as an object as JSON text that reads back as the same object', async () => {
    await createOk('Json Object Query', 'json', JSON_QUERY_OBJECT);
    const stored = await readOk('json_object_query');
    expect(stored.query_type).toBe('json');
    expect(typeof stored.query).toBe('string');
    expect(JSON.parse(stored.query)).toEqual(JSON_QUERY_OBJECT);
  });

  it('accepts a json query given as JSON text and stores the text as given', async () => {
    await createOk('Json Text Query', 'json', JSON_QUERY);
    expect((await readOk('json_text_query')).query).toBe(JSON_QUERY);
  });

  it('accepts a json query with a placeholder in a number position ("limit": {{LIMIT}})', async () => {
    const query = '{"queryType":"scan","dataSource":"{{DATASET}}","intervals":["{{STARTDATE}}/{{ENDDATE}}"],"limit": {{LIMIT}}}';
    await createOk('Json Number Placeholder', 'json', query);
    expect((await readOk('json_number_placeholder')).query).toBe(query);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when a json query is JSON text that is not an object', async () => {
    const query = JSON.stringify(['{{DATASET}}', '{{STARTDATE}}', '{{ENDDATE}}']);
    const response = await create({ template_name: 'Json Array Text', query_type: 'json', query });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /json query must be a JSON object/);
    await expectNotStored('Json Array Text');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when a json query is not valid JSON', async () => {
    const query = '{"dataSource": "{{DATASET}}", "intervals": ["{{STARTDATE}}/{{ENDDATE}}"]';
    const response = await create({ template_name: 'Json Broken Text', query_type: 'json', query });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /valid JSON/);
    await expectNotStored('Json Broken Text');
  });

  it('returns 400 QUERY_TEMPLATE_INVALID when a sql query is given as an object', async () => {
    const response = await create({ template_name: 'Sql As Object', query_type: 'sql', query: JSON_QUERY_OBJECT });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID', /query/);
    expect(response.body.error.message).toMatch(/string/);
    await expectNotStored('Sql As Object');
  });

  it('returns 409 QUERY_TEMPLATE_ALREADY_EXISTS when the name is taken, leaving the first template as it was', async () => {
    await createOk('Taken Name');
    const first = await readOk('taken_name');
    const response = await create({ template_name: 'Taken Name', query_type: 'json', query: JSON_QUERY });
    expectFailure(response, 409, 'QUERY_TEMPLATE_ALREADY_EXISTS', /Taken Name/);
    expect(await readOk('taken_name')).toEqual(first);
  });

  it('returns 409 QUERY_TEMPLATE_ALREADY_EXISTS when the name differs from a taken one only by case', async () => {
    await createOk('Case Taken');
    const response = await create({ template_name: 'CASE TAKEN', query_type: 'sql', query: SQL_QUERY });
    expectFailure(response, 409, 'QUERY_TEMPLATE_ALREADY_EXISTS', /CASE TAKEN/);
    expect((await readOk('case_taken')).template_name).toBe('Case Taken');
  });
});

describe('GET /v2/template/read/:id', () => {
  it('returns exactly the fields of the template record, with query_type in lower case', async () => {
    await createOk('Read Full Record', 'json', JSON_QUERY);
    const response = await read('read_full_record');
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    const record = response.body.result as TemplateRecord;
    expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
    expect(record).toMatchObject({
      template_id: 'read_full_record',
      template_name: 'Read Full Record',
      query: JSON_QUERY,
      query_type: 'json',
      created_by: 'SYSTEM',
      updated_by: 'SYSTEM',
    });
    expect(record.created_date).toMatch(ISO_UTC);
    expect(record.updated_date).toMatch(ISO_UTC);
  });

  it('returns 404 QUERY_TEMPLATE_NOT_EXISTS naming an id that does not exist', async () => {
    const response = await read('never_created_template');
    expectFailure(response, 404, 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_template/);
  });
});

describe('POST /v2/template/list', () => {
  // Three templates whose creation date, change date, name and id each sort them differently.
  // Ascending: created bravo, alpha, charlie; updated charlie, alpha, bravo; name bravo, charlie,
  // alpha ("Sortkey Delta" after a rename); id alpha, bravo, charlie.
  const SORT_IDS = ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'];
  const ASCENDING: Record<string, string[]> = {
    created_date: ['sortkey_bravo', 'sortkey_alpha', 'sortkey_charlie'],
    updated_date: ['sortkey_charlie', 'sortkey_alpha', 'sortkey_bravo'],
    template_name: ['sortkey_bravo', 'sortkey_charlie', 'sortkey_alpha'],
    template_id: ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'],
  };
  const sortIdsIn = (records: TemplateRecord[]) => records.map((r) => r.template_id).filter((id) => SORT_IDS.includes(id));

  beforeAll(async () => {
    await createOk('Sortkey Alpha');
    await createOk('Sortkey Bravo', 'json');
    await createOk('Sortkey Charlie');
    expect((await update('sortkey_alpha', { template_name: 'Sortkey Delta' })).status).toBe(200);
    const dates: [string, string, string][] = [
      ['sortkey_alpha', '2021-01-01T00:00:00Z', '2021-06-01T00:00:00Z'],
      ['sortkey_bravo', '2020-01-01T00:00:00Z', '2022-01-01T00:00:00Z'],
      ['sortkey_charlie', '2022-01-01T00:00:00Z', '2020-06-01T00:00:00Z'],
    ];
    for (const [id, created, updated] of dates) {
      await gw.sql('UPDATE query_templates SET created_date = $2, updated_date = $3 WHERE template_id = $1', [id, created, updated]);
    }
  });

  it('lists every template when the request has no body at all', async () => {
    const response = await gw.http.post('/v2/template/list');
    expect(response.status).toBe(200);
    const records = response.body.result as TemplateRecord[];
    expect(records).toHaveLength(await countStored());
    expect(records.map((r) => r.template_id)).toEqual(expect.arrayContaining(SORT_IDS));
    for (const record of records) expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
  });

  it('lists every template when the body is {} or the request is empty', async () => {
    const bare = await gw.http.post('/v2/template/list').send({});
    expect(bare.status).toBe(200);
    expect(bare.body.result).toHaveLength(await countStored());
    const emptyRequest = await listOk({});
    expect(emptyRequest).toHaveLength(await countStored());
    expect(emptyRequest.map((r) => r.template_id).sort()).toEqual((bare.body.result as TemplateRecord[]).map((r) => r.template_id).sort());
  });

  it('lists only templates of the type given in filters.query_type', async () => {
    const json = await listOk({ filters: { query_type: 'json' } });
    expect(json.length).toBe(await countStored('json'));
    expect(json.length).toBeGreaterThan(0);
    for (const record of json) expect(record.query_type).toBe('json');
    expect(json.map((r) => r.template_id)).toContain('sortkey_bravo');

    const sql = await listOk({ filters: { query_type: 'sql' } });
    expect(sql.length).toBe(await countStored('sql'));
    for (const record of sql) expect(record.query_type).toBe('sql');
    expect(sql.map((r) => r.template_id)).toEqual(expect.arrayContaining(['sortkey_alpha', 'sortkey_charlie']));
  });

  it.each(Object.keys(ASCENDING))('sorts by %s in the order sortBy asks for, ascending and descending', async (field) => {
    const ascending = await listOk({ sortBy: [{ field, order: 'asc' }] });
    expect(sortIdsIn(ascending)).toEqual(ASCENDING[field]);
    const descending = await listOk({ sortBy: [{ field, order: 'desc' }] });
    expect(sortIdsIn(descending)).toEqual([...ASCENDING[field]!].reverse());
  });

  it('sorts ascending when a sortBy key gives no order', async () => {
    const records = await listOk({ sortBy: [{ field: 'updated_date' }] });
    expect(sortIdsIn(records)).toEqual(ASCENDING.updated_date);
  });

  it('accepts the original order form [["created_date","ASC"]] and sorts by it', async () => {
    const ascending = await listOk({ order: [['created_date', 'ASC']] });
    expect(sortIdsIn(ascending)).toEqual(ASCENDING.created_date);
    const descending = await listOk({ order: [['template_name', 'DESC']] });
    expect(sortIdsIn(descending)).toEqual([...ASCENDING.template_name!].reverse());
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
    expect(paged.map((r) => r.template_id)).toEqual(all.map((r) => r.template_id));
    expect(await listOk({ sortBy, limit: 2, offset: 1 })).toEqual(all.slice(1, 3));
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT naming an unknown filter key', async () => {
    const response = await list({ filters: { status: 'Live' } });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /'status'/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the offset is negative', async () => {
    const response = await list({ limit: 2, offset: -1 });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /offset/);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the limit is above the maximum of 1000', async () => {
    const response = await list({ limit: 1001 });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /1000/);
  });
});

describe('PATCH /v2/template/update/:id', () => {
  it('renames a template: answers {message, templateId}, keeps the id and moves updated_date forward', async () => {
    await createOk('Rename Me');
    const before = await readOk('rename_me');
    await sleep(20);
    const response = await update('rename_me', { template_name: 'Renamed Now' });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Query template updated successfully', templateId: 'rename_me' });

    const after = await readOk('rename_me');
    expect(after).toMatchObject({ template_id: 'rename_me', template_name: 'Renamed Now', query: before.query, query_type: 'sql', updated_by: 'SYSTEM' });
    expect(after.created_date).toBe(before.created_date);
    expect(after.updated_date).toMatch(ISO_UTC);
    expect(Date.parse(after.updated_date)).toBeGreaterThan(Date.parse(before.updated_date));
    expectFailure(await read('renamed_now'), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /renamed_now/);
  });

  it('changes the query and its type together and shows the change on read', async () => {
    await createOk('Retype Me');
    const before = await readOk('retype_me');
    await sleep(20);
    const response = await update('retype_me', { query_type: 'json', query: JSON_QUERY_OBJECT });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Query template updated successfully', templateId: 'retype_me' });

    const after = await readOk('retype_me');
    expect(after.query_type).toBe('json');
    expect(JSON.parse(after.query)).toEqual(JSON_QUERY_OBJECT);
    expect(after.template_name).toBe('Retype Me');
    expect(Date.parse(after.updated_date)).toBeGreaterThan(Date.parse(before.updated_date));
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT naming the placeholders the new query lacks, and changes nothing (rule a)', async () => {
    await createOk('Update Missing Vars');
    const before = await readOk('update_missing_vars');
    const response = await update('update_missing_vars', { query_type: 'sql', query: 'SELECT * FROM {{DATASET}} WHERE __time > {{STARTDATE}}' });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /missing.*\{\{ENDDATE\}\}/);
    expect(await readOk('update_missing_vars')).toEqual(before);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the new query_type is neither json nor sql, and changes nothing (rule a)', async () => {
    await createOk('Update Bad Type');
    const before = await readOk('update_bad_type');
    const response = await update('update_bad_type', { query_type: 'xml', query: SQL_QUERY });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /query_type/);
    expect(await readOk('update_bad_type')).toEqual(before);
  });

  it.each([
    ['two spaces between words', 'Name Rule A', 'Two  Spaces'],
    ['a leading space', 'Name Rule B', ' Leading'],
    ['a trailing space', 'Name Rule C', 'Trailing '],
    ['an underscore', 'Name Rule D', 'Under_score'],
  ])('returns 400 QUERY_TEMPLATE_INVALID_INPUT when the new name has %s, and changes nothing (rule b)', async (_, original, name) => {
    const id = await createOk(original);
    const before = await readOk(id);
    const response = await update(id, { template_name: name });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /alphanumeric characters and single space/);
    expect(await readOk(id)).toEqual(before);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when query comes without query_type, and changes nothing (rule c)', async () => {
    await createOk('Query Without Type');
    const before = await readOk('query_without_type');
    const response = await update('query_without_type', { query: SQL_QUERY.replace('LIMIT {{LIMIT}}', '') });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /query_type is required/);
    expect(await readOk('query_without_type')).toEqual(before);
  });

  it('returns 400 QUERY_TEMPLATE_INVALID_INPUT when query_type comes without query, and changes nothing (rule d)', async () => {
    await createOk('Type Without Query');
    const before = await readOk('type_without_query');
    const response = await update('type_without_query', { query_type: 'json' });
    expectFailure(response, 400, 'QUERY_TEMPLATE_INVALID_INPUT', /query is required/);
    expect(await readOk('type_without_query')).toEqual(before);
  });

  it('returns 409 QUERY_TEMPLATE_ALREADY_EXISTS when renaming to a name another template has, and changes nothing', async () => {
    await createOk('Rename Source');
    await createOk('Rename Target');
    const before = await readOk('rename_source');
    expectFailure(await update('rename_source', { template_name: 'Rename Target' }), 409, 'QUERY_TEMPLATE_ALREADY_EXISTS', /Rename Target/);
    expectFailure(await update('rename_source', { template_name: 'RENAME TARGET' }), 409, 'QUERY_TEMPLATE_ALREADY_EXISTS', /RENAME TARGET/);
    expect(await readOk('rename_source')).toEqual(before);
    expect((await readOk('rename_target')).template_name).toBe('Rename Target');
  });

  it('returns 404 QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist', async () => {
    const response = await update('never_created_update', { template_name: 'Ghost Rename' });
    expectFailure(response, 404, 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_update/);
    await expectNotStored('Ghost Rename');
  });
});

describe('DELETE /v2/template/delete/:id', () => {
  it('deletes a template with a message naming it, after which reading it gives 404', async () => {
    await createOk('Delete Me Now');
    const response = await remove('delete_me_now');
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    expect(Object.keys(response.body.result)).toEqual(['message']);
    expect(response.body.result.message).toContain('delete_me_now');
    expectFailure(await read('delete_me_now'), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /delete_me_now/);
    await expectNotStored('Delete Me Now');
  });

  it('returns 404 QUERY_TEMPLATE_NOT_EXISTS naming a template that does not exist (also on a second delete)', async () => {
    expectFailure(await remove('never_created_delete'), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_delete/);
    await createOk('Delete Twice');
    expect((await remove('delete_twice')).status).toBe(200);
    expectFailure(await remove('delete_twice'), 404, 'QUERY_TEMPLATE_NOT_EXISTS', /delete_twice/);
  });
});
