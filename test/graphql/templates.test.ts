// Query templates over GraphQL (POST /graphql). Mirrors test/rest/templates.test.ts rule by rule.
// Tests share one database: every test uses names of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, JSON_QUERY, SQL_QUERY, type GraphQLResponse } from '../support/api.js';
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

const RESPONSE_CODE: Record<string, string> = {
  QUERY_TEMPLATE_INVALID: 'BAD_REQUEST',
  QUERY_TEMPLATE_INVALID_INPUT: 'BAD_REQUEST',
  QUERY_TEMPLATE_ALREADY_EXISTS: 'CONFLICT',
  QUERY_TEMPLATE_NOT_EXISTS: 'NOT_FOUND',
};
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FIELDS = 'id name query queryType createdBy updatedBy createdAt updatedAt';
const FIELD_KEYS = ['createdAt', 'createdBy', 'id', 'name', 'query', 'queryType', 'updatedAt', 'updatedBy'];

interface Template {
  id: string;
  name: string;
  query: string;
  queryType: 'SQL' | 'JSON';
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

interface Connection {
  edges: { cursor: string; node: Template }[];
  nodes: Template[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

function idFor(name: string): string {
  return name.toLowerCase().replaceAll(' ', '_');
}

function createTemplate(input: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, `mutation Create($input: CreateQueryTemplateInput!) { createTemplate(input: $input) { message template { ${FIELDS} } } }`, { input });
}

function readTemplate(id: string): Promise<GraphQLResponse> {
  return graphql(gw, `query Read($id: ID!) { template(id: $id) { ${FIELDS} } }`, { id });
}

function listTemplates(variables: Record<string, unknown> = {}): Promise<GraphQLResponse> {
  return graphql(
    gw,
    `query List($filter: QueryTemplateFilter, $sort: [QueryTemplateSort!], $first: Int, $after: String) {
      templates(filter: $filter, sort: $sort, first: $first, after: $after) {
        edges { cursor node { ${FIELDS} } }
        nodes { ${FIELDS} }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        totalCount
      }
    }`,
    variables,
  );
}

function updateTemplate(id: string, input: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, `mutation Update($id: ID!, $input: UpdateQueryTemplateInput!) { updateTemplate(id: $id, input: $input) { message template { ${FIELDS} } } }`, { id, input });
}

function deleteTemplate(id: string): Promise<GraphQLResponse> {
  return graphql(
    gw,
    `
      mutation Delete($id: ID!) {
        deleteTemplate(id: $id) {
          id
          message
        }
      }
    `,
    { id },
  );
}

/** Creates a template that must succeed and returns its id. */
async function createOk(name: string, queryType: 'SQL' | 'JSON' = 'SQL', query: string = queryType === 'SQL' ? SQL_QUERY : JSON_QUERY): Promise<string> {
  const response = await createTemplate({ name, queryType, query });
  expect(response.errors).toBeUndefined();
  return (response.data!.createTemplate as { template: Template }).template.id;
}

/** Reads a template that must exist. */
async function readOk(id: string): Promise<Template> {
  const response = await readTemplate(id);
  expect(response.errors).toBeUndefined();
  expect(response.data!.template).not.toBeNull();
  return response.data!.template as Template;
}

async function listOk(variables: Record<string, unknown> = {}): Promise<Connection> {
  const response = await listTemplates(variables);
  expect(response.errors).toBeUndefined();
  return response.data!.templates as Connection;
}

/** A single error from our services: contract code, its kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode: RESPONSE_CODE[code] });
  expect(response.errors![0]!.message).toMatch(message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
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

describe('createTemplate', () => {
  it('creates a sql template, answers with a message and the template, and stores the full record', async () => {
    const before = Date.now();
    const response = await createTemplate({ name: 'Create Sql One', queryType: 'SQL', query: SQL_QUERY });
    expect(response.errors).toBeUndefined();
    const created = response.data!.createTemplate as { message: string; template: Template };
    expect(created.message).toBe('The query template has been saved successfully');
    expect(created.template).toMatchObject({ id: 'create_sql_one', name: 'Create Sql One' });

    const stored = await readOk('create_sql_one');
    expect(stored).toMatchObject({
      id: 'create_sql_one',
      name: 'Create Sql One',
      query: SQL_QUERY,
      queryType: 'SQL',
      createdBy: 'SYSTEM',
      updatedBy: 'SYSTEM',
    });
    expect(stored.createdAt).toMatch(ISO_UTC);
    expect(stored.updatedAt).toMatch(ISO_UTC);
    expect(Date.parse(stored.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(stored.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('derives the id from the name: lower case with underscores ("My Template 1" becomes my_template_1)', async () => {
    expect(await createOk('My Template 1')).toBe('my_template_1');
    expect((await readOk('my_template_1')).name).toBe('My Template 1');
  });

  it('requires a name: GraphQL refuses a missing one at the type level, and an empty one is QUERY_TEMPLATE_INVALID', async () => {
    expectRefusedByGraphQL(await createTemplate({ queryType: 'SQL', query: SQL_QUERY }), /name/);
    const response = await createTemplate({ name: '', queryType: 'SQL', query: SQL_QUERY });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /alphanumeric characters and single space/);
    await expectNotStored('');
  });

  it.each([
    ['two spaces between words', 'Double  Space'],
    ['a leading space', ' Leading Space'],
    ['a trailing space', 'Trailing Space '],
    ['a character that is not a letter or digit', 'Bad-Name'],
  ])('returns QUERY_TEMPLATE_INVALID when the name has %s', async (_, name) => {
    const response = await createTemplate({ name, queryType: 'SQL', query: SQL_QUERY });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /alphanumeric characters and single space/);
    await expectNotStored(name);
  });

  it('refuses a missing queryType at the type level (GraphQL validation) and creates nothing', async () => {
    const response = await createTemplate({ name: 'No Type Given', query: SQL_QUERY });
    expectRefusedByGraphQL(response, /queryType/);
    await expectNotStored('No Type Given');
  });

  it('refuses a queryType other than SQL or JSON at the type level (GraphQL enum validation), naming the value, and creates nothing', async () => {
    const response = await createTemplate({ name: 'Xml Type Given', queryType: 'XML', query: SQL_QUERY });
    expectRefusedByGraphQL(response, /XML/);
    await expectNotStored('Xml Type Given');
  });

  it('returns QUERY_TEMPLATE_INVALID naming the placeholders a sql query lacks', async () => {
    const response = await createTemplate({ name: 'Missing Dates', queryType: 'SQL', query: 'SELECT * FROM {{DATASET}} LIMIT {{LIMIT}}' });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /\{\{STARTDATE\}\}/);
    const message = response.errors![0]!.message;
    const missing = message.slice(message.indexOf('missing'));
    expect(missing).toContain('{{STARTDATE}}');
    expect(missing).toContain('{{ENDDATE}}');
    expect(missing).not.toContain('{{DATASET}}');
    await expectNotStored('Missing Dates');
  });

  it('returns QUERY_TEMPLATE_INVALID naming {{DATASET}} when a json query lacks it', async () => {
    const query = JSON.stringify({ queryType: 'timeseries', dataSource: 'fixed', intervals: ['{{STARTDATE}}/{{ENDDATE}}'] });
    const response = await createTemplate({ name: 'Missing Dataset Json', queryType: 'JSON', query });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /missing.*\{\{DATASET\}\}/);
    await expectNotStored('Missing Dataset Json');
  });

  it('stores a json query given as JSON object text so that it reads back as the same object', async () => {
    await createOk('Json Object Query', 'JSON', JSON_QUERY);
    const stored = await readOk('json_object_query');
    expect(stored.queryType).toBe('JSON');
    expect(JSON.parse(stored.query)).toEqual(JSON.parse(JSON_QUERY));
  });

  it('stores json query text exactly as given', async () => {
    const query = JSON.stringify(JSON.parse(JSON_QUERY), null, 2);
    await createOk('Json Text Query', 'JSON', query);
    expect((await readOk('json_text_query')).query).toBe(query);
  });

  it('accepts a json query with a placeholder in a number position ("limit": {{LIMIT}})', async () => {
    const query = '{"queryType":"scan","dataSource":"{{DATASET}}","intervals":["{{STARTDATE}}/{{ENDDATE}}"],"limit": {{LIMIT}}}';
    await createOk('Json Number Placeholder', 'JSON', query);
    expect((await readOk('json_number_placeholder')).query).toBe(query);
  });

  it('returns QUERY_TEMPLATE_INVALID when a json query is JSON text that is not an object', async () => {
    const query = JSON.stringify(['{{DATASET}}', '{{STARTDATE}}', '{{ENDDATE}}']);
    const response = await createTemplate({ name: 'Json Array Text', queryType: 'JSON', query });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /json query must be a JSON object/);
    await expectNotStored('Json Array Text');
  });

  it('returns QUERY_TEMPLATE_INVALID when a json query is not valid JSON', async () => {
    const query = '{"dataSource": "{{DATASET}}", "intervals": ["{{STARTDATE}}/{{ENDDATE}}"]';
    const response = await createTemplate({ name: 'Json Broken Text', queryType: 'JSON', query });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID', /valid JSON/);
    await expectNotStored('Json Broken Text');
  });

  it('refuses a query given as an object at the type level (query is a String) and creates nothing', async () => {
    const response = await createTemplate({ name: 'Sql As Object', queryType: 'SQL', query: JSON.parse(JSON_QUERY) });
    expectRefusedByGraphQL(response, /query/);
    expect(response.errors![0]!.message).toMatch(/String/);
    await expectNotStored('Sql As Object');
  });

  it('returns QUERY_TEMPLATE_ALREADY_EXISTS (CONFLICT) when the name is taken, leaving the first template as it was', async () => {
    await createOk('Taken Name');
    const first = await readOk('taken_name');
    const response = await createTemplate({ name: 'Taken Name', queryType: 'JSON', query: JSON_QUERY });
    expectFailure(response, 'QUERY_TEMPLATE_ALREADY_EXISTS', /Taken Name/);
    expect(response.data ?? null).toBeNull();
    expect(await readOk('taken_name')).toEqual(first);
  });

  it('returns QUERY_TEMPLATE_ALREADY_EXISTS (CONFLICT) when the name differs from a taken one only by case', async () => {
    await createOk('Case Taken');
    const response = await createTemplate({ name: 'CASE TAKEN', queryType: 'SQL', query: SQL_QUERY });
    expectFailure(response, 'QUERY_TEMPLATE_ALREADY_EXISTS', /CASE TAKEN/);
    expect((await readOk('case_taken')).name).toBe('Case Taken');
  });
});

describe('template(id)', () => {
  it('returns every field of the template record, with queryType as the enum value', async () => {
    await createOk('Read Full Record', 'JSON');
    const response = await readTemplate('read_full_record');
    expect(response.errors).toBeUndefined();
    const record = response.data!.template as Template;
    expect(Object.keys(record).sort()).toEqual(FIELD_KEYS);
    expect(record).toMatchObject({
      id: 'read_full_record',
      name: 'Read Full Record',
      query: JSON_QUERY,
      queryType: 'JSON',
      createdBy: 'SYSTEM',
      updatedBy: 'SYSTEM',
    });
    expect(record.createdAt).toMatch(ISO_UTC);
    expect(record.updatedAt).toMatch(ISO_UTC);
  });

  it('returns QUERY_TEMPLATE_NOT_EXISTS (NOT_FOUND) naming an id that does not exist, with template null', async () => {
    const response = await readTemplate('never_created_template');
    expectFailure(response, 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_template/);
    expect(response.data).toEqual({ template: null });
  });
});

describe('templates(filter, sort, first, after)', () => {
  // Three templates whose creation date, change date, name and id each sort them differently.
  // Ascending: created bravo, alpha, charlie; updated charlie, alpha, bravo; name bravo, charlie,
  // alpha ("Sortkey Delta" after a rename); id alpha, bravo, charlie.
  const SORT_IDS = ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'];
  const ASCENDING: Record<string, string[]> = {
    CREATED_DATE: ['sortkey_bravo', 'sortkey_alpha', 'sortkey_charlie'],
    UPDATED_DATE: ['sortkey_charlie', 'sortkey_alpha', 'sortkey_bravo'],
    TEMPLATE_NAME: ['sortkey_bravo', 'sortkey_charlie', 'sortkey_alpha'],
    TEMPLATE_ID: ['sortkey_alpha', 'sortkey_bravo', 'sortkey_charlie'],
  };
  const sortIdsIn = (connection: Connection) => connection.nodes.map((t) => t.id).filter((id) => SORT_IDS.includes(id));

  beforeAll(async () => {
    await createOk('Sortkey Alpha');
    await createOk('Sortkey Bravo', 'JSON');
    await createOk('Sortkey Charlie');
    expect((await updateTemplate('sortkey_alpha', { name: 'Sortkey Delta' })).errors).toBeUndefined();
    const dates: [string, string, string][] = [
      ['sortkey_alpha', '2021-01-01T00:00:00Z', '2021-06-01T00:00:00Z'],
      ['sortkey_bravo', '2020-01-01T00:00:00Z', '2022-01-01T00:00:00Z'],
      ['sortkey_charlie', '2022-01-01T00:00:00Z', '2020-06-01T00:00:00Z'],
    ];
    for (const [id, created, updated] of dates) {
      await gw.sql('UPDATE query_templates SET created_date = $2, updated_date = $3 WHERE template_id = $1', [id, created, updated]);
    }
  });

  it('lists every template, with a correct totalCount, when given no arguments', async () => {
    const connection = await listOk();
    const stored = await countStored();
    expect(connection.nodes).toHaveLength(stored);
    expect(connection.totalCount).toBe(stored);
    expect(connection.pageInfo.hasNextPage).toBe(false);
    expect(connection.nodes.map((t) => t.id)).toEqual(expect.arrayContaining(SORT_IDS));
    expect(connection.edges.map((edge) => edge.node)).toEqual(connection.nodes);
    for (const node of connection.nodes) expect(Object.keys(node).sort()).toEqual(FIELD_KEYS);
  });

  it('lists every template when the filter is empty and the sort list is empty', async () => {
    const connection = await listOk({ filter: {}, sort: [] });
    expect(connection.nodes).toHaveLength(await countStored());
    expect(connection.totalCount).toBe(await countStored());
  });

  it('lists only templates of the type given in filter.queryType, and counts only those', async () => {
    const json = await listOk({ filter: { queryType: 'JSON' } });
    expect(json.nodes.length).toBeGreaterThan(0);
    expect(json.nodes.length).toBe(await countStored('json'));
    expect(json.totalCount).toBe(await countStored('json'));
    for (const node of json.nodes) expect(node.queryType).toBe('JSON');
    expect(json.nodes.map((t) => t.id)).toContain('sortkey_bravo');

    const sql = await listOk({ filter: { queryType: 'SQL' } });
    expect(sql.nodes.length).toBe(await countStored('sql'));
    expect(sql.totalCount).toBe(await countStored('sql'));
    for (const node of sql.nodes) expect(node.queryType).toBe('SQL');
    expect(sql.nodes.map((t) => t.id)).toEqual(expect.arrayContaining(['sortkey_alpha', 'sortkey_charlie']));
  });

  it.each(Object.keys(ASCENDING))('sorts by %s in the order sort asks for, ascending and descending', async (field) => {
    expect(sortIdsIn(await listOk({ sort: [{ field, order: 'ASC' }] }))).toEqual(ASCENDING[field]);
    expect(sortIdsIn(await listOk({ sort: [{ field, order: 'DESC' }] }))).toEqual([...ASCENDING[field]!].reverse());
  });

  it('sorts ascending when a sort key gives no order', async () => {
    expect(sortIdsIn(await listOk({ sort: [{ field: 'UPDATED_DATE' }] }))).toEqual(ASCENDING.UPDATED_DATE);
  });

  it('walks every page with first/after: no duplicates or gaps, hasNextPage false only on the last page', async () => {
    const everything = await listOk({ first: 1000 });
    expect(everything.totalCount).toBe(await countStored());
    expect(everything.nodes.length).toBeGreaterThan(5);

    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; ; pages += 1) {
      expect(pages).toBeLessThan(everything.nodes.length);
      const page: Connection = await listOk({ first: 2, after });
      expect(page.totalCount).toBe(everything.totalCount);
      expect(page.nodes.length).toBeLessThanOrEqual(2);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...page.nodes.map((t) => t.id));
      if (page.nodes.length > 0) expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
      if (!page.pageInfo.hasNextPage) break;
      expect(page.nodes).toHaveLength(2);
      after = page.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(everything.nodes.map((t) => t.id));
  });

  it('walks the pages of a filtered list with a totalCount of the filtered templates', async () => {
    const jsonCount = await countStored('json');
    const seen: string[] = [];
    let after: string | null = null;
    let hasNextPage = true;
    while (hasNextPage) {
      const page: Connection = await listOk({ filter: { queryType: 'JSON' }, first: 1, after });
      expect(page.totalCount).toBe(jsonCount);
      seen.push(...page.nodes.map((t) => t.id));
      ({ hasNextPage } = page.pageInfo);
      after = page.pageInfo.endCursor;
      expect(seen.length).toBeLessThanOrEqual(jsonCount);
    }
    expect(seen).toHaveLength(jsonCount);
    expect(new Set(seen).size).toBe(jsonCount);
  });

  it('refuses an unknown filter key at the type level (GraphQL input validation), naming it', async () => {
    const response = await listTemplates({ filter: { status: 'Live' } });
    expectRefusedByGraphQL(response, /status/);
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT when after is a cursor the list never issued', async () => {
    for (const invented of ['not-a-cursor', Buffer.from('somewhere:5', 'utf8').toString('base64url')]) {
      const response = await listTemplates({ first: 2, after: invented });
      expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /after/);
      expect(response.errors![0]!.message).toContain(invented);
      expect(response.data ?? null).toBeNull();
    }
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT when first is above the maximum of 1000', async () => {
    const response = await listTemplates({ first: 1001 });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /1000/);
  });
});

describe('updateTemplate', () => {
  it('renames a template: answers with the message, keeps the id and moves updatedAt forward', async () => {
    await createOk('Rename Me');
    const before = await readOk('rename_me');
    await sleep(20);
    const response = await updateTemplate('rename_me', { name: 'Renamed Now' });
    expect(response.errors).toBeUndefined();
    const updated = response.data!.updateTemplate as { message: string; template: Template };
    expect(updated.message).toBe('Query template updated successfully');
    expect(updated.template.id).toBe('rename_me');

    const after = await readOk('rename_me');
    expect(after).toMatchObject({ id: 'rename_me', name: 'Renamed Now', query: before.query, queryType: 'SQL', updatedBy: 'SYSTEM' });
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.updatedAt).toMatch(ISO_UTC);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expectFailure(await readTemplate('renamed_now'), 'QUERY_TEMPLATE_NOT_EXISTS', /renamed_now/);
  });

  it('changes the query and its type together and shows the change on read', async () => {
    await createOk('Retype Me');
    const before = await readOk('retype_me');
    await sleep(20);
    const response = await updateTemplate('retype_me', { queryType: 'JSON', query: JSON_QUERY });
    expect(response.errors).toBeUndefined();
    expect((response.data!.updateTemplate as { message: string }).message).toBe('Query template updated successfully');

    const after = await readOk('retype_me');
    expect(after.queryType).toBe('JSON');
    expect(after.query).toBe(JSON_QUERY);
    expect(after.name).toBe('Retype Me');
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT naming the placeholders the new query lacks, and changes nothing (rule a)', async () => {
    await createOk('Update Missing Vars');
    const before = await readOk('update_missing_vars');
    const response = await updateTemplate('update_missing_vars', { queryType: 'SQL', query: 'SELECT * FROM {{DATASET}} WHERE __time > {{STARTDATE}}' });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /missing.*\{\{ENDDATE\}\}/);
    expect(await readOk('update_missing_vars')).toEqual(before);
  });

  it('refuses a new queryType other than SQL or JSON at the type level (GraphQL enum validation), naming the value, and changes nothing (rule a)', async () => {
    await createOk('Update Bad Type');
    const before = await readOk('update_bad_type');
    const response = await updateTemplate('update_bad_type', { queryType: 'XML', query: SQL_QUERY });
    expectRefusedByGraphQL(response, /XML/);
    expect(await readOk('update_bad_type')).toEqual(before);
  });

  it.each([
    ['two spaces between words', 'Name Rule A', 'Two  Spaces'],
    ['a leading space', 'Name Rule B', ' Leading'],
    ['a trailing space', 'Name Rule C', 'Trailing '],
    ['an underscore', 'Name Rule D', 'Under_score'],
  ])('returns QUERY_TEMPLATE_INVALID_INPUT when the new name has %s, and changes nothing (rule b)', async (_, original, name) => {
    const id = await createOk(original);
    const before = await readOk(id);
    const response = await updateTemplate(id, { name });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /alphanumeric characters and single space/);
    expect(await readOk(id)).toEqual(before);
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT when query comes without queryType, and changes nothing (rule c)', async () => {
    await createOk('Query Without Type');
    const before = await readOk('query_without_type');
    const response = await updateTemplate('query_without_type', { query: SQL_QUERY.replace('LIMIT {{LIMIT}}', '') });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /query_type is required/);
    expect(await readOk('query_without_type')).toEqual(before);
  });

  it('returns QUERY_TEMPLATE_INVALID_INPUT when queryType comes without query, and changes nothing (rule d)', async () => {
    await createOk('Type Without Query');
    const before = await readOk('type_without_query');
    const response = await updateTemplate('type_without_query', { queryType: 'JSON' });
    expectFailure(response, 'QUERY_TEMPLATE_INVALID_INPUT', /query is required/);
    expect(await readOk('type_without_query')).toEqual(before);
  });

  it('returns QUERY_TEMPLATE_ALREADY_EXISTS (CONFLICT) when renaming to a name another template has, and changes nothing', async () => {
    await createOk('Rename Source');
    await createOk('Rename Target');
    const before = await readOk('rename_source');
    expectFailure(await updateTemplate('rename_source', { name: 'Rename Target' }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /Rename Target/);
    expectFailure(await updateTemplate('rename_source', { name: 'RENAME TARGET' }), 'QUERY_TEMPLATE_ALREADY_EXISTS', /RENAME TARGET/);
    expect(await readOk('rename_source')).toEqual(before);
    expect((await readOk('rename_target')).name).toBe('Rename Target');
  });

  it('returns QUERY_TEMPLATE_NOT_EXISTS (NOT_FOUND) naming a template that does not exist', async () => {
    const response = await updateTemplate('never_created_update', { name: 'Ghost Rename' });
    expectFailure(response, 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_update/);
    await expectNotStored('Ghost Rename');
  });
});

describe('deleteTemplate', () => {
  it('deletes a template with a message naming it, after which reading it gives QUERY_TEMPLATE_NOT_EXISTS', async () => {
    await createOk('Delete Me Now');
    const response = await deleteTemplate('delete_me_now');
    expect(response.errors).toBeUndefined();
    const deleted = response.data!.deleteTemplate as { id: string; message: string };
    expect(deleted.id).toBe('delete_me_now');
    expect(deleted.message).toContain('delete_me_now');
    expectFailure(await readTemplate('delete_me_now'), 'QUERY_TEMPLATE_NOT_EXISTS', /delete_me_now/);
    await expectNotStored('Delete Me Now');
  });

  it('returns QUERY_TEMPLATE_NOT_EXISTS (NOT_FOUND) naming a template that does not exist (also on a second delete)', async () => {
    expectFailure(await deleteTemplate('never_created_delete'), 'QUERY_TEMPLATE_NOT_EXISTS', /never_created_delete/);
    await createOk('Delete Twice');
    expect((await deleteTemplate('delete_twice')).errors).toBeUndefined();
    expectFailure(await deleteTemplate('delete_twice'), 'QUERY_TEMPLATE_NOT_EXISTS', /delete_twice/);
  });
});
