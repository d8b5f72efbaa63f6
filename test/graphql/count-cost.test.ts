// Counts are priced in the query cost (docs/authentication.md "GraphQL limits"): `totalCount` and each `groupBy` of
// a list cost COUNT_COST plus the rows they may read (the table's estimate: 1 per 100 rows through an
// index, 1 per row when the `where` is made only of `_not`), once per connection they are asked on, so
// a count on a large table that no index serves, or counts on every item of a long page, are refused
// with the cost error before any statement runs, naming the count; the operations a dashboard sends
// stay under the limit.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import pg from 'pg';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { COUNT_COST, costRefusal, priceOperation, type CostOptions } from '../../src/graphql/limits.js';
import type { PersistedQueryManifest } from '../../src/graphql/persisted-operations.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { createLogger } from '../../src/logger.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { ROOT } from '../../scripts/generated-files.js';
import { createTestDatabase } from '../support/gateway.js';

const schema = buildSchema('test');
const MAX_COST = loadConfig({}).graphqlLimits.maxCost;

function price(query: string, variables: Record<string, unknown> = {}, tableRows?: Record<string, number>) {
  const document = parse(query);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  const options: CostOptions = { unboundedPageSize: 1000, ...(tableRows ? { tableRows: (table: string) => tableRows[table] } : {}) };
  return priceOperation(schema, document, operation, variables, options);
}

describe('the price of a count', () => {
  it('is COUNT_COST for a table of unknown size, once per connection whatever its page, and 1 for any other field', () => {
    // templates + totalCount + nodes + 20 × id
    expect(price('{ templates(first: 20) { totalCount nodes { templateId } } }').cost).toBe(1 + COUNT_COST + 1 + 20);
    expect(price('{ templates(first: 500) { totalCount } }').cost).toBe(price('{ templates(first: 1) { totalCount } }').cost);
    // A groupBy is a count too; its groups' fields are weighed as before.
    expect(price('{ templates(first: 1) { groupBy(field: QUERY_TYPE) { key count } } }').cost).toBe(1 + COUNT_COST + 2);
  });

  it('grows with the table: 1 per 100 rows through an index, 1 per row when the where is made only of _not', () => {
    const rows = { query_templates: 1_000_000 };
    expect(price('{ templates(first: 1) { totalCount } }', {}, rows).cost).toBe(1 + COUNT_COST + 10_000);
    expect(price('{ templates(first: 1, where: { queryType: { eq: SQL } }) { totalCount } }', {}, rows).cost).toBe(1 + COUNT_COST + 10_000);
    const unindexed = price('{ templates(first: 1, where: { _not: { queryType: { eq: SQL } } }) { totalCount } }', {}, rows);
    expect(unindexed.cost).toBe(1 + COUNT_COST + 1_000_000);
    expect(costRefusal(unindexed, MAX_COST)).toBe(
      `The operation costs ${unindexed.cost}; at most ${MAX_COST} is allowed (GRAPHQL_MAX_COST). Counts (totalCount, groupBy) make ${COUNT_COST + 1_000_000} of it; the costliest is templates.totalCount, ${COUNT_COST + 1_000_000} ` +
        '(its where compares no field positively (only _not), so no index serves it: a count reads all 1000000 query templates). Ask for smaller pages (first), fewer fields, or fewer counts under a narrower where.',
    );
  });

  it('reads the where from variables, their defaults and fragments, and takes an older filter as served by an index', () => {
    const rows = { audit_records: 200_000, datasets: 200_000 };
    const negation = { _not: { outcome: { eq: 'FAILURE' } } };
    const byVariable = 'query Q($where: AuditRecordWhere) { auditRecords(first: 1, where: $where) { totalCount } }';
    expect(price(byVariable, { where: negation }, rows).cost).toBe(1 + COUNT_COST + 200_000);
    expect(price(byVariable, { where: { outcome: { eq: 'FAILURE' } } }, rows).cost).toBe(1 + COUNT_COST + 2_000);
    expect(price('query Q($where: AuditRecordWhere = { _not: { outcome: { eq: FAILURE } } }) { auditRecords(first: 1, where: $where) { totalCount } }', {}, rows).cost).toBe(1 + COUNT_COST + 200_000);
    const throughFragment = 'query Q($o: AuditOutcome) { auditRecords(first: 1, where: { _not: { outcome: { eq: $o } } }) { ...Counted } } fragment Counted on AuditRecordConnection { totalCount }';
    expect(price(throughFragment, { o: 'FAILURE' }, rows).costliest?.path).toBe('auditRecords.totalCount');
    expect(price(throughFragment, { o: 'FAILURE' }, rows).cost).toBe(1 + COUNT_COST + 200_000);
    expect(price('{ datasets(first: 1, filter: { status: [LIVE] }, where: { _not: { name: { eq: "x" } } }) { totalCount } }', {}, rows).cost).toBe(1 + COUNT_COST + 2_000);
  });

  it('is paid once per item of a page for a list nested in each item', () => {
    const nested = (first: number) => `{ datasets(first: ${first}) { nodes { alertRulePage(first: 1) { totalCount groupBy(field: SEVERITY) { key count } } } } }`;
    // datasets + nodes + n × (alertRulePage + totalCount + groupBy + 1 × (key + count))
    expect(price(nested(100)).cost).toBe(2 + 100 * (1 + 2 * COUNT_COST + 2));
    const refused = price(nested(1000));
    expect(refused.cost).toBe(2 + 1000 * (1 + 2 * COUNT_COST + 2));
    expect(refused.cost).toBeGreaterThan(MAX_COST);
    expect(refused.costliest).toMatchObject({ path: 'datasets.nodes.alertRulePage.totalCount', times: 1000, price: COUNT_COST });
    // A nested list reads each parent's items through its link's index, whatever its where: 1 per 100 rows.
    const negated = price('{ datasets(first: 10) { nodes { alertRulePage(where: { _not: { status: { eq: LIVE } } }) { totalCount } } } }', {}, { alert_rules: 100_000 });
    expect(negated.cost).toBe(2 + 10 * (1 + COUNT_COST + 1_000));
  });

  it('prices the pages of what each item names by id as counts of the named list, once per item', () => {
    // templates + nodes + n × (datasetPage + totalCount)
    expect(price('{ templates(first: 100) { nodes { datasetPage(first: 1) { totalCount } } } }').cost).toBe(2 + 100 * (1 + COUNT_COST));
    expect(price('{ alertRules(first: 100) { nodes { channelPage(first: 1) { groupBy(fields: [TYPE]) { keys count } } } } }').cost).toBe(2 + 100 * (1 + COUNT_COST + 2));
    const refused = price('{ datasets(first: 1000) { nodes { denormSourcePage(first: 1) { totalCount groupBy(fields: [STATUS]) { keys count } } } } }');
    expect(refused.cost).toBeGreaterThan(MAX_COST);
    expect(refused.costliest).toMatchObject({ path: 'datasets.nodes.denormSourcePage.totalCount', times: 1000, price: COUNT_COST });
  });

  it('prices a search’s totalCount and each groupBy as counts over the search table, through its text index (issue 49)', () => {
    // search + totalCount (a count) + facets + its 2 fields, weighed per item of the page as any list.
    expect(price('{ search(query: "orders", first: 20) { totalCount facets { type count } } }').cost).toBe(1 + COUNT_COST + 1 + 20 * 2);
    const rows = { search_documents: 1_000_000 };
    const grouped = price('{ search(query: "orders", first: 20) { totalCount groupBy(field: TAG) { key count } } }', {}, rows);
    expect(grouped.cost).toBe(1 + 2 * (COUNT_COST + 10_000) + 20 * 2);
    expect(grouped.costliest).toMatchObject({ path: 'search.totalCount', price: COUNT_COST + 10_000 });
    // A page without counts is priced as before.
    expect(price('{ search(query: "orders", first: 20) { edges { cursor } } }', {}, rows).cost).toBe(1 + 1 + 20);
  });

  it('prices a page ordered first by an ingestion counter as a count of the rows it sorts, and refuses it on a large table, naming the order (issue 49)', () => {
    const rows = { datasets: 1_000_000 };
    // datasets + nodes + 20 × datasetId, as any page ordered by a column an index orders.
    expect(price('{ datasets(first: 20, orderBy: [{ field: NAME }]) { nodes { datasetId } } }', {}, rows).cost).toBe(1 + 1 + 20);
    // Ordered by a figure computed per row: every dataset is read and sorted before the first one.
    const byCounter = price('{ datasets(first: 20, orderBy: [{ field: INGESTION_RECEIVED, direction: DESC }]) { nodes { datasetId } } }', {}, rows);
    expect(byCounter.cost).toBe(1 + 1 + 20 + COUNT_COST + 1_000_000);
    expect(costRefusal(byCounter, MAX_COST)).toContain(
      'the costliest is datasets(orderBy: [{field: INGESTION_RECEIVED, direction: DESC}]), 1000025 (its orderBy leads with INGESTION_RECEIVED, a figure no index orders: the page reads and sorts all 1000000 dataset versions before its first item)',
    );
    // Under a where an index serves, only the rows it selects are sorted (priced by the table, as a count); a variable's order too.
    const narrowed = price(
      'query Q($order: [DatasetOrder!]) { datasets(first: 20, where: { status: { eq: LIVE } }, orderBy: $order) { nodes { datasetId } } }',
      { order: [{ field: 'INGESTION_RECEIVED' }] },
      rows,
    );
    expect(narrowed.cost).toBe(1 + 1 + 20 + COUNT_COST + 10_000);
    // A counter as a later key only breaks ties among rows the index already ordered.
    expect(price('{ datasets(first: 20, orderBy: [{ field: NAME }, { field: INGESTION_RECEIVED }]) { nodes { datasetId } } }', {}, rows).cost).toBe(1 + 1 + 20);
    // Over the items of another page, the order sorts what each item holds, read through the link's index.
    expect(price('{ datasets(first: 10) { nodes { datasetId } } }', {}, rows).cost).toBe(1 + 1 + 10);
  });

  it('keeps every listed operation and the list example of docs/graphql.md under the default limit at pages of 100, with every table at 1,000,000 rows', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'persisted-operations.json'), 'utf8')) as PersistedQueryManifest;
    const huge = new Proxy<Record<string, number>>({}, { get: () => 1_000_000 });
    const page = readFileSync(path.join(ROOT, 'docs/graphql.md'), 'utf8');
    const example = /```graphql\n(query CriticalRules[\s\S]*?)```/.exec(page)?.[1];
    expect(example).toBeDefined();
    const documents = [...manifest.operations.map((operation) => ({ name: operation.name, body: operation.body })), { name: 'docs/graphql.md CriticalRules', body: example! }];
    const over = documents.map(({ name, body }) => ({ name, cost: price(body, { first: 100 }, huge).cost })).filter(({ cost }) => cost > MAX_COST);
    expect(over).toEqual([]);
  });
});

describe('over HTTP, on a table of 60,000 templates', () => {
  const ROWS = 60_000;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let gateway: Gateway;
  let http: ReturnType<typeof supertest>;
  let estimate: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      // No gateway runs yet: the announcement and search triggers have no one to tell.
      await client.query('ALTER TABLE query_templates DISABLE TRIGGER USER');
      await client.query(`INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
        SELECT 'big_' || g, 'Big template ' || g, 'SELECT 1', CASE WHEN g % 10 = 0 THEN 'json' ELSE 'sql' END, 'user' || (g % 50), 'user' || (g % 50) FROM generate_series(1, ${ROWS}) g`);
      await client.query('ALTER TABLE query_templates ENABLE TRIGGER USER');
      await client.query('ANALYZE query_templates');
      estimate = (await client.query<{ rows: number }>("SELECT reltuples::float8 AS rows FROM pg_class WHERE relname = 'query_templates'")).rows[0]!.rows;
    } finally {
      await client.end();
    }
    // Started after the rows, it reads the table's size as every gateway does at start.
    gateway = await startGateway(
      loadConfig({ DATABASE_URL: database.url, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '2', METRICS_SAMPLE_INTERVAL_SECONDS: '0' }),
      createLogger('silent'),
    );
    http = supertest(gateway.url);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  /** The answer, and the fewest SQL statements the gateway ran while it was asked up to three times (a background job may send one meanwhile). */
  async function ask(query: string): Promise<{ status: number; body: any; statements: number }> {
    let answer = { status: 0, body: undefined as any, statements: Infinity };
    for (let attempt = 0; attempt < 3 && answer.statements > 0; attempt += 1) {
      const before = gateway.database.statementCount();
      const response = await http.post('/graphql').send({ query });
      answer = { status: response.status, body: response.body, statements: Math.min(answer.statements, gateway.database.statementCount() - before) };
    }
    return answer;
  }

  it.each([
    ['totalCount', 'totalCount', 'templates.totalCount'],
    ['groupBy', 'groupBy(field: CREATED_BY) { key count }', 'templates.groupBy(field: CREATED_BY)'],
  ])('refuses a %s whose where no index serves with the cost error naming it, before any statement runs', async (_name, count, named) => {
    const answer = await ask(`{ templates(first: 1, where: { _not: { queryType: { eq: JSON } } }) { ${count} } }`);
    expect({ status: answer.status, code: answer.body.errors?.[0]?.extensions?.code, statements: answer.statements, data: answer.body.data }).toEqual({
      status: 400,
      code: 'GRAPHQL_VALIDATION_FAILED',
      statements: 0,
      data: undefined,
    });
    expect(answer.body.errors[0].message).toContain(
      `the costliest is ${named}, ${COUNT_COST + Math.ceil(estimate)} (its where compares no field positively (only _not), so no index serves it: a count reads all ${Math.round(estimate)} query templates)`,
    );
    expect(estimate).toBeGreaterThan(ROWS * 0.9);
  });

  it('answers the same counts under a where an index serves, priced by the table, and as SQL counts them', async () => {
    const answer = await ask('{ templates(first: 1, where: { queryType: { eq: JSON } }) { totalCount groupBy(field: QUERY_TYPE) { key count } } }');
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.templates).toEqual({ totalCount: ROWS / 10, groupBy: [{ key: 'JSON', count: ROWS / 10 }] });
    // templates + 2 counts + 1 × (key + count)
    expect(answer.body.extensions.cost).toBe(1 + 2 * (COUNT_COST + Math.floor(estimate / 100)) + 2);
  });

  it('refuses counts on every dataset of a page of 1,000 by their number, naming the nested count', async () => {
    const answer = await ask('{ datasets(first: 1000) { nodes { alertRulePage(first: 1) { totalCount groupBy(field: SEVERITY) { key count } } } } }');
    expect({ status: answer.status, code: answer.body.errors?.[0]?.extensions?.code, statements: answer.statements }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED', statements: 0 });
    expect(answer.body.errors[0].message).toMatch(
      /the costliest is datasets\.nodes\.alertRulePage\.(totalCount|groupBy\(field: SEVERITY\)), 1000 × \d+ \(a count of (up to \d+ )?alert rules( through an index)?\)/,
    );
  });
});
