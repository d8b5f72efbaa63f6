// The list contract over GraphQL (docs/graphql.md "Lists"): typed `where` with every operator and with
// _and/_or/_not, `orderBy` {field, direction} both ways, keyset cursors that stay put while rows are
// added and removed between pages (forward with first/after, backward with last/before), `groupBy`
// against counts made in SQL, and the refusals (first with last, a page over the maximum, a malformed,
// foreign or other-order cursor, an unknown field or operator). The templates list carries the full
// set; datasets, connectors and alert rules the same contract in one scenario each.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cursorForOffset } from '../../src/platform/lists/cursor.js';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

interface Row {
  templateId: string;
  name: string;
  queryType: 'SQL' | 'JSON';
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

const BASE = Date.parse('2026-03-01T00:00:00.000Z');
const minutes = (n: number) => new Date(BASE + n * 60_000).toISOString();
const pad = (n: number) => String(n).padStart(2, '0');

/** 24 templates; every two share a creation time, so ties are broken by the template id. */
const ROWS: Row[] = Array.from({ length: 24 }, (_, index) => {
  const n = index + 1;
  return {
    templateId: `lc_${pad(n)}`,
    name: `List Case ${pad(n)}`,
    queryType: n % 2 === 0 ? 'JSON' : 'SQL',
    createdBy: n % 3 === 0 ? 'alice' : 'bob',
    createdAt: minutes(Math.floor(n / 2)),
    updatedAt: minutes(100 - n),
  };
});

async function insertTemplates(rows: readonly Row[]): Promise<void> {
  for (const row of rows) {
    await gw.sql(
      'INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by, created_date, updated_date) VALUES ($1, $2, $3, $4, $5, $5, $6, $7) ON CONFLICT DO NOTHING',
      [row.templateId, row.name, 'SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}', row.queryType.toLowerCase(), row.createdBy, row.createdAt, row.updatedAt],
    );
  }
}

beforeAll(async () => {
  gw = await startTestGateway();
  const { rows } = await gw.sql<{ count: number }>('SELECT count(*)::int AS count FROM query_templates');
  expect(rows[0]!.count).toBe(0);
  await insertTemplates(ROWS);
});
afterAll(async () => {
  await gw?.stop();
});

interface Page {
  edges: { cursor: string; node: Row }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

const TEMPLATES = `query Templates($where: QueryTemplateWhere, $orderBy: [QueryTemplateOrder!], $first: Int, $after: String, $last: Int, $before: String) {
  templates(where: $where, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { templateId name queryType createdBy createdAt updatedAt } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;

async function templates(variables: Record<string, unknown>): Promise<Page> {
  const response = await graphql<{ templates: Page }>(gw, TEMPLATES, variables);
  expect(response.errors).toBeUndefined();
  return response.data!.templates;
}

const ids = (page: Page) => page.edges.map((edge) => edge.node.templateId);
const idsOf = (rows: readonly Row[]) => rows.map((row) => row.templateId);

/** Newest first, as the list orders by default; the template id breaks ties. */
function byCreatedDesc(rows: readonly Row[]): Row[] {
  return [...rows].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.templateId.localeCompare(b.templateId));
}

/** The first error of a refused list call: its code and message (status 200, responseCode BAD_REQUEST). */
function refusal(response: GraphQLResponse): { code: unknown; responseCode: unknown; message: string } {
  expect(response.status).toBe(200);
  const error = response.errors?.[0];
  return { code: error?.extensions?.code, responseCode: error?.extensions?.responseCode, message: String(error?.message) };
}

describe('where', () => {
  const cases: [string, Record<string, unknown>, (row: Row) => boolean][] = [
    ['templateId eq', { templateId: { eq: 'lc_05' } }, (row) => row.templateId === 'lc_05'],
    ['templateId in', { templateId: { in: ['lc_01', 'lc_02', 'nothing'] } }, (row) => ['lc_01', 'lc_02'].includes(row.templateId)],
    ['name eq', { name: { eq: 'List Case 07' } }, (row) => row.name === 'List Case 07'],
    ['name in', { name: { in: ['List Case 07', 'List Case 08'] } }, (row) => ['List Case 07', 'List Case 08'].includes(row.name)],
    ['name contains, ignoring case', { name: { contains: 'CASE 1' } }, (row) => row.name.includes('Case 1')],
    ['name startsWith, ignoring case', { name: { startsWith: 'list case 2' } }, (row) => row.name.startsWith('List Case 2')],
    ['name contains a LIKE wildcard, taken literally', { name: { contains: 'e_1' } }, () => false],
    ['name contains a percent sign, taken literally', { name: { contains: '%%%' } }, () => false],
    ['queryType eq', { queryType: { eq: 'JSON' } }, (row) => row.queryType === 'JSON'],
    ['queryType in', { queryType: { in: ['SQL', 'JSON'] } }, () => true],
    ['createdBy eq', { createdBy: { eq: 'alice' } }, (row) => row.createdBy === 'alice'],
    ['createdBy in nothing', { createdBy: { in: [] } }, () => false],
    ['createdAt eq', { createdAt: { eq: minutes(5) } }, (row) => row.createdAt === minutes(5)],
    ['createdAt gt', { createdAt: { gt: minutes(5) } }, (row) => row.createdAt > minutes(5)],
    ['createdAt gte', { createdAt: { gte: minutes(5) } }, (row) => row.createdAt >= minutes(5)],
    ['createdAt lt', { createdAt: { lt: minutes(5) } }, (row) => row.createdAt < minutes(5)],
    ['createdAt lte', { createdAt: { lte: minutes(5) } }, (row) => row.createdAt <= minutes(5)],
    ['updatedAt between (gte and lt together)', { updatedAt: { gte: minutes(80), lt: minutes(90) } }, (row) => row.updatedAt >= minutes(80) && row.updatedAt < minutes(90)],
    ['two fields (both must match)', { queryType: { eq: 'SQL' }, createdBy: { eq: 'alice' } }, (row) => row.queryType === 'SQL' && row.createdBy === 'alice'],
    ['_or', { _or: [{ name: { startsWith: 'List Case 0' } }, { queryType: { eq: 'JSON' } }] }, (row) => row.name.startsWith('List Case 0') || row.queryType === 'JSON'],
    ['_not', { _not: { createdBy: { eq: 'alice' } } }, (row) => row.createdBy !== 'alice'],
    ['_and of _not and a time', { _and: [{ _not: { queryType: { eq: 'SQL' } } }, { createdAt: { lt: minutes(6) } }] }, (row) => row.queryType !== 'SQL' && row.createdAt < minutes(6)],
    ['_or nested in _not', { _not: { _or: [{ createdBy: { eq: 'alice' } }, { queryType: { eq: 'JSON' } }] } }, (row) => !(row.createdBy === 'alice' || row.queryType === 'JSON')],
  ];

  it.each(cases)('%s: the items and totalCount are those the filter selects', async (_name, where, selects) => {
    const page = await templates({ where, first: 100 });
    const expected = byCreatedDesc(ROWS.filter(selects));
    expect({ ids: ids(page), totalCount: page.totalCount }).toEqual({ ids: idsOf(expected), totalCount: expected.length });
  });

  it('refuses an unknown field or an operator the field does not take before any resolver runs', async () => {
    for (const where of [{ nickname: { eq: 'x' } }, { createdAt: { contains: 'x' } }, { queryType: { eq: 'PYTHON' } }]) {
      const response = await graphql(gw, TEMPLATES, { where });
      expect({ status: response.status, code: response.errors?.[0]?.extensions?.code, data: response.data }).toEqual({ status: 400, code: 'BAD_USER_INPUT', data: undefined });
    }
    const literal = await graphql(gw, '{ templates(where: { color: { eq: "red" } }) { totalCount } }');
    expect({ status: literal.status, code: literal.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('refuses an empty contains or startsWith, which would match every item (1 character is a filter: issue 49)', async () => {
    const response = await graphql(gw, TEMPLATES, { where: { name: { contains: '' } } });
    expect(refusal(response)).toEqual({
      code: 'QUERY_TEMPLATE_INVALID_INPUT',
      responseCode: 'BAD_REQUEST',
      message: expect.stringMatching(/where\.name\.contains: give at least 1 character \(got 0\)/),
    });
  });

  it('keeps the deprecated filter and sort arguments, combined with where', async () => {
    const response = await graphql<{ templates: Page }>(
      gw,
      '{ templates(filter: { queryType: JSON }, sort: [{ field: TEMPLATE_NAME, order: DESC }], where: { createdBy: { eq: "bob" } }) { edges { node { templateId } } totalCount } }',
    );
    const expected = ROWS.filter((row) => row.queryType === 'JSON' && row.createdBy === 'bob').sort((a, b) => b.name.localeCompare(a.name));
    expect({ ids: response.data?.templates.edges.map((edge) => edge.node.templateId), totalCount: response.data?.templates.totalCount }).toEqual({ ids: idsOf(expected), totalCount: expected.length });
  });
});

describe('orderBy', () => {
  const keys: [string, (row: Row) => string][] = [
    ['NAME', (row) => row.name],
    ['TEMPLATE_ID', (row) => row.templateId],
    ['CREATED_AT', (row) => row.createdAt],
    ['UPDATED_AT', (row) => row.updatedAt],
  ];
  const cases = keys.flatMap(([field, key]) => (['ASC', 'DESC'] as const).map((direction) => [field, direction, key] as const));

  it.each(cases)('%s %s, the template id breaking ties', async (field, direction, key) => {
    const page = await templates({ orderBy: [{ field, direction }], first: 100 });
    const sign = direction === 'ASC' ? 1 : -1;
    const expected = [...ROWS].sort((a, b) => sign * key(a).localeCompare(key(b)) || a.templateId.localeCompare(b.templateId));
    expect(ids(page)).toEqual(idsOf(expected));
  });

  it('orders by several keys, most significant first', async () => {
    const page = await templates({
      orderBy: [
        { field: 'CREATED_AT', direction: 'ASC' },
        { field: 'NAME', direction: 'DESC' },
      ],
      first: 100,
    });
    const expected = [...ROWS].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || b.name.localeCompare(a.name));
    expect(ids(page)).toEqual(idsOf(expected));
  });
});

describe('cursors', () => {
  const mark = (n: number): Row => ({ templateId: `lc_x${pad(n)}`, name: `List Case X${pad(n)}`, queryType: 'SQL', createdBy: 'carol', createdAt: minutes(1000 + n), updatedAt: minutes(0) });
  const scope = { createdBy: { in: ['alice', 'bob', 'carol'] } };

  afterAll(async () => {
    await gw.sql("DELETE FROM query_templates WHERE template_id LIKE 'lc\\_x%'");
    await insertTemplates(ROWS.filter((row) => ['lc_20', 'lc_03'].includes(row.templateId)));
  });

  it('pages forward from row to row while rows are added before the cursor and removed on both sides', async () => {
    const seen: string[] = [];
    let page = await templates({ where: scope, first: 5 });
    seen.push(...ids(page));
    expect(page.pageInfo).toEqual(expect.objectContaining({ hasNextPage: true, hasPreviousPage: false }));
    // Newest first: a new template sorts before every cursor (not read); lc_21 (read) and lc_02 (ahead) go away.
    expect(seen).toContain('lc_21');
    await insertTemplates([mark(1)]);
    await gw.sql("DELETE FROM query_templates WHERE template_id IN ('lc_21', 'lc_02')");
    while (page.pageInfo.hasNextPage) {
      page = await templates({ where: scope, first: 5, after: page.pageInfo.endCursor });
      expect(page.pageInfo.hasPreviousPage).toBe(true);
      seen.push(...ids(page));
    }
    expect(seen).toEqual(idsOf(byCreatedDesc(ROWS)).filter((id) => id !== 'lc_02'));
    await gw.sql("DELETE FROM query_templates WHERE template_id LIKE 'lc\\_x%'");
    await insertTemplates(ROWS.filter((row) => ['lc_21', 'lc_02'].includes(row.templateId)));
  });

  it('pages backward with last and before while rows are added behind and ahead of the cursor and removed on both sides', async () => {
    const all = idsOf(byCreatedDesc(ROWS));
    let page = await templates({ where: scope, last: 5 });
    expect({ ids: ids(page), hasPreviousPage: page.pageInfo.hasPreviousPage, hasNextPage: page.pageInfo.hasNextPage }).toEqual({ ids: all.slice(-5), hasPreviousPage: true, hasNextPage: false });
    const seen = [...ids(page)];
    // Reading towards the newest: a template older than all lands behind us (not read), one newer
    // than all lands ahead (read last); lc_03 (read) and lc_20 (ahead) go away.
    expect(seen).toContain('lc_03');
    await insertTemplates([{ ...mark(2), createdAt: minutes(-10) }, mark(3)]);
    await gw.sql("DELETE FROM query_templates WHERE template_id IN ('lc_20', 'lc_03')");
    while (page.pageInfo.hasPreviousPage) {
      page = await templates({ where: scope, last: 5, before: page.pageInfo.startCursor });
      expect(page.pageInfo.hasNextPage).toBe(true);
      seen.unshift(...ids(page));
    }
    expect(seen).toEqual([mark(3).templateId, ...all.filter((id) => id !== 'lc_20')]);
  });

  it('still pages after an offset cursor, as the REST layer sends them', async () => {
    const all = ids(await templates({ first: 100 }));
    const page = await templates({ first: 3, after: cursorForOffset(4) });
    expect(ids(page)).toEqual(all.slice(5, 8));
  });

  it('refuses a malformed cursor, a cursor of another list and a cursor of another order, with the list code', async () => {
    const datasets = await graphql<{ datasets: Page }>(gw, '{ datasets(first: 1) { pageInfo { endCursor } } }');
    const foreign = Buffer.from(JSON.stringify(['k1', 'Dataset', 'dataset_id.asc', ['x']])).toString('base64url');
    const otherOrder = (await templates({ orderBy: [{ field: 'NAME', direction: 'ASC' }], first: 1 })).pageInfo.endCursor;
    expect(datasets.errors).toBeUndefined();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ after: 'not a cursor' }, /after: .* is not a cursor of this list \(malformed\)/],
      [{ before: Buffer.from('["k1"]').toString('base64url'), last: 2 }, /before: .* is not a cursor of this list \(malformed\)/],
      [{ after: foreign }, /made by a list of Dataset/],
      [{ after: otherOrder }, /made for another orderBy/],
      [{ after: 'x'.repeat(5000) }, /too long/],
    ];
    for (const [variables, message] of cases) {
      expect(refusal(await graphql(gw, TEMPLATES, variables))).toEqual({ code: 'QUERY_TEMPLATE_INVALID_INPUT', responseCode: 'BAD_REQUEST', message: expect.stringMatching(message) });
    }
  });

  it('refuses first with last, and a page over the maximum or below zero', async () => {
    expect(refusal(await graphql(gw, TEMPLATES, { first: 2, last: 2 }))).toEqual({
      code: 'QUERY_TEMPLATE_INVALID_INPUT',
      responseCode: 'BAD_REQUEST',
      message: expect.stringMatching(/first and last/),
    });
    const count = 'query Count($first: Int, $last: Int) { templates(first: $first, last: $last) { totalCount } }';
    for (const variables of [{ first: 1001 }, { last: 1001 }, { first: -1 }]) {
      expect(refusal(await graphql(gw, count, variables))).toEqual({
        code: 'QUERY_TEMPLATE_INVALID_INPUT',
        responseCode: 'BAD_REQUEST',
        message: expect.stringMatching(/page size must be an integer from 0 to 1000/),
      });
    }
    // A page of 100,000 items is refused before it runs, by what it would cost.
    for (const variables of [{ first: 100_000 }, { last: 100_000 }]) {
      const response = await graphql(gw, TEMPLATES, variables);
      expect({ status: response.status, code: response.errors?.[0]?.extensions?.code, message: response.errors?.[0]?.message }).toEqual({
        status: 400,
        code: 'GRAPHQL_VALIDATION_FAILED',
        message: expect.stringMatching(/The operation costs \d+/),
      });
    }
  });
});

describe('groupBy', () => {
  it('counts the filtered templates by a field, as SQL counts them', async () => {
    const response = await graphql(
      gw,
      `{ templates(where: { createdAt: { lt: "${minutes(9)}" } }) { totalCount byType: groupBy(field: QUERY_TYPE) { key count } byAuthor: groupBy(field: CREATED_BY) { key count } } }`,
    );
    expect(response.errors).toBeUndefined();
    const { rows: byType } = await gw.sql<{ key: string; count: number }>(
      'SELECT upper(query_type) AS key, count(*)::int AS count FROM query_templates WHERE created_date < $1 GROUP BY 1 ORDER BY 2 DESC, 1',
      [minutes(9)],
    );
    const { rows: byAuthor } = await gw.sql<{ key: string; count: number }>(
      'SELECT created_by AS key, count(*)::int AS count FROM query_templates WHERE created_date < $1 GROUP BY 1 ORDER BY 2 DESC, 1',
      [minutes(9)],
    );
    expect(response.data?.templates).toEqual({ totalCount: byType.reduce((sum, row) => sum + row.count, 0), byType, byAuthor });
    expect(byType.length).toBe(2);
  });
});

describe('the same contract on datasets, connectors and alert rules', () => {
  beforeAll(async () => {
    for (let n = 1; n <= 6; n += 1) {
      const [stage, status] = n % 3 === 0 ? ['draft', 'Draft'] : ['live', n % 2 === 0 ? 'Live' : 'Retired'];
      await gw.sql(
        `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by, created_date, updated_date)
         VALUES ($1, $2, $3, 'event', $4, '{}', 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', $5, $5)`,
        [`lc_ds_${n}`, stage, `Contract Dataset ${n}`, status, minutes(n)],
      );
      await gw.sql(
        `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by)
         VALUES ($1, $2, $3, 'source', $4, '1.0.0', 'scala', 'spark', $5, '{}', 'u', 'u')`,
        [`lc-conn-${n}-1.0.0`, `lc-conn-${n}`, `Contract Connector ${n}`, n % 2 === 0 ? 'Database' : 'Stream', n % 3 === 0 ? 'Retired' : 'Live'],
      );
      await gw.sql(
        `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, context, created_by, updated_by, created_date)
         VALUES (gen_random_uuid(), $1, 'embedded', $2, 'm', 'gt', '{1}', 'm > 1', $3, 'contract', 60000, 0, $4, 'u', 'u', $5)`,
        [`Contract Rule ${n}`, n % 3 === 0 ? 'draft' : 'live', n % 2 === 0 ? 'critical' : 'warning', { alertType: n % 2 === 0 ? 'CUSTOM' : 'SYSTEM' }, minutes(n)],
      );
    }
  });

  const lists = [
    {
      field: 'datasets',
      key: 'datasetId',
      table: 'datasets',
      column: 'status',
      group: 'STATUS',
      name: 'Contract Dataset',
      where: '{ name: { startsWith: "Contract Data" }, version: { eq: LIVE } }',
      sqlWhere: "name LIKE 'Contract Data%' AND stage = 'live'",
    },
    {
      field: 'connectors',
      key: 'connectorVersionId',
      table: 'connector_registry',
      column: 'category',
      group: 'CATEGORY',
      name: 'Contract Connector',
      where: '{ name: { contains: "ract conn" }, status: { in: [LIVE] } }',
      sqlWhere: "name ILIKE '%ract conn%' AND status = 'Live'",
    },
    {
      field: 'alertRules',
      key: 'name',
      table: 'alert_rules',
      column: 'severity',
      group: 'SEVERITY',
      name: 'Contract Rule',
      where: '{ category: { eq: "contract" }, _not: { status: { eq: DRAFT } } }',
      sqlWhere: "category = 'contract' AND NOT status = 'draft'",
    },
  ];

  it.each(lists)('$field: where, orderBy NAME DESC, two pages by cursor and groupBy match SQL', async ({ field, key, table, column, group, where, sqlWhere }) => {
    const query = (after: string | null) => `{ ${field}(where: ${where}, orderBy: [{ field: NAME, direction: DESC }], first: 2, after: ${JSON.stringify(after)}) {
      nodes { ${key} name } pageInfo { hasNextPage endCursor } totalCount groupBy(field: ${group}) { key count } } }`;
    const first = await graphql(gw, query(null));
    expect(first.errors).toBeUndefined();
    const second = await graphql(gw, query(first.data?.[field].pageInfo.endCursor));
    expect(second.errors).toBeUndefined();
    const { rows } = await gw.sql<{ name: string }>(`SELECT name FROM ${table} WHERE ${sqlWhere} ORDER BY name DESC`);
    const { rows: groups } = await gw.sql<{ key: string; count: number }>(`SELECT ${column} AS key, count(*)::int AS count FROM ${table} WHERE ${sqlWhere} GROUP BY 1 ORDER BY 2 DESC, 1`);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const names = [...(first.data?.[field].nodes ?? []), ...(second.data?.[field].nodes ?? [])].map((node: { name: string }) => node.name);
    expect(names).toEqual(rows.slice(0, 4).map((row) => row.name));
    expect(first.data?.[field].totalCount).toBe(rows.length);
    const upper = (value: string) => value.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
    expect(first.data?.[field].groupBy).toEqual(groups.map((row) => ({ key: upper(row.key), count: row.count })));
  });
});

describe('docs/graphql.md', () => {
  it('shows a list query that runs', async () => {
    const page = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Lists'));
    const example = /```graphql\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toMatch(/query CriticalRules/);
    const response = await graphql(gw, example!);
    expect(response.errors).toBeUndefined();
    expect(response.data?.alertRules.totalCount).toBe(response.data?.alertRules.bySeverity.reduce((sum: number, group: { count: number }) => sum + group.count, 0));
  });
});

describe('datasources, a page at a time', () => {
  const live = ['lc_source_a', 'lc_source_b', 'lc_source_c'];
  beforeAll(async () => {
    for (const id of live) await seedDataset(gw, id, 'Live');
  }, 60_000);

  it.each(['datasourcePage', 'datasourceSizePage'])('%s pages the Live datasets’ datasources by cursor, with where, orderBy and totalCount', async (field) => {
    const node = field === 'datasourcePage' ? 'datasetId datasource' : 'datasetId name rows';
    const query = `query($after: String) { ${field}(where: { datasetId: { in: ${JSON.stringify(live)} } }, orderBy: [{ field: DATASET_ID, direction: DESC }], first: 2, after: $after) {
      nodes { ${node} } pageInfo { hasNextPage endCursor } totalCount groupBy(field: STATUS) { key count } } }`;
    const first = await graphql(gw, query);
    expect(first.errors).toBeUndefined();
    const second = await graphql(gw, query, { after: first.data?.[field].pageInfo.endCursor });
    expect(second.errors).toBeUndefined();
    const ids = [...(first.data?.[field].nodes ?? []), ...(second.data?.[field].nodes ?? [])].map((entry: { datasetId: string }) => entry.datasetId);
    expect(ids).toEqual([...live].reverse());
    expect({ more: first.data?.[field].pageInfo.hasNextPage, last: second.data?.[field].pageInfo.hasNextPage }).toEqual({ more: true, last: false });
    expect({ totalCount: first.data?.[field].totalCount, groups: first.data?.[field].groupBy }).toEqual({ totalCount: 3, groups: [{ key: 'LIVE', count: 3 }] });
  });
});
