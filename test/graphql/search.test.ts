// `search` across the graph: ranked matches on names, ids, descriptions, tags and a dataset's field
// names, facets per type over the whole match, keyset cursors, the index kept in step with every
// write, each type found only by callers who may read it, and bad input refused with a 400-class
// code, never a 500.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { definition } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
let admin: string;

interface Answer {
  status: number;
  data?: Record<string, any> | null;
  errors?: { message: string; extensions?: { code?: string; responseCode?: string } }[];
}

async function call(bearer: string, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const response = await gw.http.post('/graphql').set('content-type', 'application/json').set('authorization', `Bearer ${bearer}`).send({ query, variables });
  return { status: response.status, data: response.body.data, errors: response.body.errors };
}

async function ok(query: string, variables?: Record<string, unknown>, bearer = admin): Promise<Record<string, any>> {
  const answer = await call(bearer, query, variables);
  if (answer.errors) throw new Error(JSON.stringify(answer.errors));
  return answer.data!;
}

const SEARCH = `query($q: String!, $types: [SearchType!], $where: SearchWhere, $first: Int, $after: String) {
  search(query: $q, types: $types, where: $where, first: $first, after: $after) {
    totalCount
    facets { type count }
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges {
      cursor rank type
      node {
        __typename
        ... on Dataset { datasetId status }
        ... on QueryTemplate { templateId name }
        ... on Connector { connectorVersionId name }
        ... on AlertRule { alertRuleId name }
        ... on NotificationChannel { channelId name }
      }
    }
  }
}`;

type Search = { totalCount: number; facets: { type: string; count: number }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null }; edges: any[] };

async function search(variables: Record<string, unknown>, bearer = admin): Promise<Search> {
  return (await ok(SEARCH, variables, bearer)).search as Search;
}

/** What a user reads of a result: its type and the name or key it shows. */
const label = (edge: any) => `${edge.node.__typename}:${edge.node.name ?? edge.node.datasetId}`;

const createTemplate = async (name: string) =>
  (await ok('mutation($n: String!, $q: String!) { createTemplate(input: { name: $n, queryType: SQL, query: $q }) { template { templateId } } }', { n: name, q: SQL_QUERY })).createTemplate.template
    .templateId as string;

const createRule = async (name: string, description: string, labels: Record<string, string> = {}) =>
  (
    await ok(
      'mutation($n: String!, $d: String!, $l: JSON) { createAlertRule(input: { name: $n, description: $d, category: "search", metric: "up", operator: GT, thresholds: [1], labels: $l }) { alertRule { alertRuleId } } }',
      {
        n: name,
        d: description,
        l: labels,
      },
    )
  ).createAlertRule.alertRule.alertRuleId as string;

const importDataset = (id: string, overrides: Record<string, unknown>) => ok('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: definition(id, overrides) });

beforeAll(async () => {
  gw = await startTestGateway(JWT_ENV);
  admin = await token({ roles: ['admin'] });
  // The ranking corpus for "invoice": an exact name, a name starting with it, a word of a name, a
  // field name of a data schema, and a description.
  await createTemplate('Invoice');
  await createTemplate('Invoice totals');
  await importDataset('ledger', { name: 'Monthly invoice ledger' });
  await importDataset('billing', {
    name: 'Billing events',
    tags: ['finance'],
    data_schema: { properties: { logistics: { type: 'object', properties: { warehouse_bin: { type: 'string' } } }, invoice_number: { type: 'string' } } },
  });
  await createRule('Payment lag', 'Fires when invoice processing lags behind', { team: 'payments' });
  // The facet corpus: "zephyr" in template names, a dataset name, rule descriptions and a channel name.
  for (const name of ['Zephyr one', 'Zephyr two', 'Zephyr three']) await createTemplate(name);
  await importDataset('winds', { name: 'Zephyr winds' });
  await createRule('Gusts', 'zephyr gusts over the threshold');
  await createRule('Breeze', 'a zephyr breeze');
  await ok('mutation { createNotificationChannel(input: { name: "zephyr-mail", type: EMAIL, config: { recipientAddresses: "ops@example.com" } }) { channel { channelId } } }');
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

describe('search ranking', () => {
  it('ranks an exact name first, then a name that starts with the query, a word of a name, a field name, then a description', async () => {
    const found = await search({ q: 'invoice' });
    expect(found.edges.map(label)).toEqual(['QueryTemplate:Invoice', 'QueryTemplate:Invoice totals', 'Dataset:ledger', 'Dataset:billing', 'AlertRule:Payment lag']);
    const ranks = found.edges.map((edge) => edge.rank as number);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    expect(new Set(ranks).size).toBe(ranks.length);
  });

  it('answers the graph’s own types, so a client selects their fields', async () => {
    const found = await search({ q: 'ledger' });
    expect(found.edges.map((edge) => edge.node)).toEqual([{ __typename: 'Dataset', datasetId: 'ledger', status: 'DRAFT' }]);
  });

  it('finds a dataset by a field name of its data schema, nested or not, and by part of a name', async () => {
    for (const q of ['warehouse_bin', 'logistics.warehouse_bin', 'WAREHOUSE', 'invoice_number']) {
      expect((await search({ q, types: ['DATASET'] })).edges.map(label)).toEqual(['Dataset:billing']);
    }
    expect((await search({ q: 'illing ev' })).edges.map(label)).toEqual(['Dataset:billing']);
  });

  it('finds by tag and narrows by where: tags, status and time of change', async () => {
    expect((await search({ q: 'finance' })).edges.map(label)).toEqual(['Dataset:billing']);
    expect((await search({ q: 'invoice', where: { tags: { eq: 'FINANCE' } } })).edges.map(label)).toEqual(['Dataset:billing']);
    expect((await search({ q: 'invoice', where: { tags: { in: ['team=payments'] } } })).edges.map(label)).toEqual(['AlertRule:Payment lag']);
    expect((await search({ q: 'invoice', where: { status: { in: ['DRAFT'] } } })).edges.map(label)).toEqual(['Dataset:ledger', 'Dataset:billing', 'AlertRule:Payment lag']);
    expect((await search({ q: 'invoice', where: { updatedAt: { gt: new Date(Date.now() + 60_000).toISOString() } } })).totalCount).toBe(0);
  });
});

describe('search facets and types', () => {
  it('counts each type over the whole match, equal to a count made in SQL, whatever the page', async () => {
    const found = await search({ q: 'zephyr', first: 1 });
    const counted = await gw.sql<{ type: string; count: number }>(`
      SELECT 'QUERY_TEMPLATE' AS type, count(*)::int AS count FROM query_templates WHERE template_name ILIKE '%zephyr%' OR query ILIKE '%zephyr%'
      UNION ALL SELECT 'DATASET', count(*)::int FROM datasets WHERE name ILIKE '%zephyr%' OR dataset_id ILIKE '%zephyr%'
      UNION ALL SELECT 'ALERT_RULE', count(*)::int FROM alert_rules WHERE name ILIKE '%zephyr%' OR description ILIKE '%zephyr%'
      UNION ALL SELECT 'NOTIFICATION_CHANNEL', count(*)::int FROM notification_channels WHERE name ILIKE '%zephyr%'
      UNION ALL SELECT 'CONNECTOR', count(*)::int FROM connector_registry WHERE name ILIKE '%zephyr%' OR coalesce(description, '') ILIKE '%zephyr%'`);
    const expected = Object.fromEntries(counted.rows.map((row) => [row.type, row.count]));
    expect(expected).toEqual({ QUERY_TEMPLATE: 3, DATASET: 1, ALERT_RULE: 2, NOTIFICATION_CHANNEL: 1, CONNECTOR: 0 });
    expect(Object.fromEntries(found.facets.map((facet) => [facet.type, facet.count]))).toEqual(expected);
    expect(found.totalCount).toBe(7);
    expect(found.edges).toHaveLength(1);
    expect(found.pageInfo.hasNextPage).toBe(true);
  });

  it('returns only the types asked for, and still counts every type in the facets', async () => {
    const found = await search({ q: 'zephyr', types: ['QUERY_TEMPLATE', 'NOTIFICATION_CHANNEL'] });
    expect(found.edges.map(label).sort()).toEqual(['NotificationChannel:zephyr-mail', 'QueryTemplate:Zephyr one', 'QueryTemplate:Zephyr three', 'QueryTemplate:Zephyr two']);
    expect(found.totalCount).toBe(4);
    expect(found.facets.find((facet) => facet.type === 'ALERT_RULE')?.count).toBe(2);
  });

  it('counts the facets over the match the where narrows, every type included', async () => {
    const facetsOf = (found: Search) => Object.fromEntries(found.facets.map((facet) => [facet.type, facet.count]));
    const tagged = await search({ q: 'invoice', where: { tags: { eq: 'FINANCE' } } });
    expect({ facets: facetsOf(tagged), totalCount: tagged.totalCount }).toEqual({ facets: { QUERY_TEMPLATE: 0, DATASET: 1, ALERT_RULE: 0, NOTIFICATION_CHANNEL: 0, CONNECTOR: 0 }, totalCount: 1 });
    const later = await search({ q: 'zephyr', where: { updatedAt: { gt: new Date(Date.now() + 60_000).toISOString() } } });
    expect({ facets: facetsOf(later), totalCount: later.totalCount }).toEqual({ facets: { QUERY_TEMPLATE: 0, DATASET: 0, ALERT_RULE: 0, NOTIFICATION_CHANNEL: 0, CONNECTOR: 0 }, totalCount: 0 });
  });

  it('ranks the records of the types asked for as in the whole ranking, with the same ranks', async () => {
    const whole = (await search({ q: 'invoice' })).edges.map((edge) => [label(edge), edge.rank]);
    const datasets = (await search({ q: 'invoice', types: ['DATASET'] })).edges.map((edge) => [label(edge), edge.rank]);
    expect(datasets).toEqual(whole.filter(([name]) => String(name).startsWith('Dataset:')));
    expect(datasets).toHaveLength(2);
  });

  it('pages with keyset cursors: pages join to the whole ranking, and a record added between pages does not shift the next one', async () => {
    const whole = (await search({ q: 'zephyr' })).edges.map(label);
    const first = await search({ q: 'zephyr', first: 3 });
    // Ranks above everything on page one (an exact name), so an offset cursor would repeat a result.
    await createTemplate('Zephyr');
    const second = await search({ q: 'zephyr', first: 10, after: first.pageInfo.endCursor });
    expect([...first.edges, ...second.edges].map(label)).toEqual(whole);
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect((await search({ q: 'zephyr' })).edges.map(label)[0]).toBe('QueryTemplate:Zephyr');
    await ok('mutation { deleteTemplate(id: "zephyr") { id } }');
  });
});

describe('search costs a bounded number of SQL statements', () => {
  const PAGE = `query($q: String!, $first: Int) {
    search(query: $q, first: $first) {
      totalCount
      facets { type count excludedBy }
      excludedTypes { type }
      types: groupBy(field: TYPE) { key count }
      tags: groupBy(field: TAG) { key count }
      owners: groupBy(field: OWNER) { key count }
      edges { rank matchedFields { name value } node { __typename ... on Dataset { datasetId } ... on QueryTemplate { templateId } ... on AlertRule { alertRuleId } ... on NotificationChannel { channelId } ... on Connector { connectorVersionId } } }
    }
  }`;
  /** Statements `query` sends; the fewest of three runs, since background work (caches, the sampler) adds to the database's count now and then. */
  const fewest = async (query: string, variables: Record<string, unknown> = {}) => {
    let statements = Infinity;
    let data: Record<string, any> = {};
    for (let run = 0; run < 3; run += 1) {
      const before = gw.gateway.database.statementCount();
      data = await ok(query, variables);
      statements = Math.min(statements, gw.gateway.database.statementCount() - before);
    }
    return { statements, data };
  };
  /** The statements of a request beyond those any request reading one field sends (`{ version }`: its admission, the shared rate limit). */
  const statementsOf = async (query: string, variables: Record<string, unknown>) => {
    const base = (await fewest('{ version }')).statements;
    const measured = await fewest(query, variables);
    return { statements: measured.statements - base, data: measured.data };
  };

  it('answers a page of 50, its facets, three groupBy and the records in 2 statements plus at most one per type on the page (at most 7), as a page of 5', async () => {
    // 60 records of the five types, all matching "bounded".
    await gw.sql(`INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
      SELECT 'bounded_' || n, 'Bounded ' || n, 'SELECT 1', 'sql', 'bench', 'bench' FROM generate_series(1, 20) AS n`);
    await gw.sql(`INSERT INTO notification_channels (id, manager, name, type, config, created_by, updated_by)
      SELECT gen_random_uuid(), 'embedded', 'bounded-' || n, 'email', '{"recipientAddresses": "ops@example.com"}', 'bench', 'bench' FROM generate_series(1, 20) AS n`);
    for (let n = 0; n < 10; n += 1) await createRule(`Bounded rule ${n}`, 'bounded');
    for (let n = 0; n < 10; n += 1) await importDataset(`bounded-${n}`, { name: `Bounded ${n}` });
    // Once unmeasured: the writes' announcements reach the caches first.
    await ok(PAGE, { q: 'bounded', first: 50 });
    const five = await statementsOf(PAGE, { q: 'bounded', first: 5 });
    const fifty = await statementsOf(PAGE, { q: 'bounded', first: 50 });
    expect({ five: five.data.search.edges.length, fifty: fifty.data.search.edges.length, total: fifty.data.search.totalCount }).toEqual({ five: 5, fifty: 50, total: 60 });
    expect(new Set(fifty.data.search.edges.map((edge: any) => edge.node.__typename))).toEqual(new Set(['QueryTemplate', 'NotificationChannel', 'AlertRule', 'Dataset']));
    // The search (1), every groupBy (1), one loader batch per type on the page: at most 2 + 5 = 7, whatever the page size.
    const typesOn = (page: typeof five) => new Set(page.data.search.edges.map((edge: any) => edge.node.__typename)).size;
    // (A loader batch is spared when the published-record cache already holds the records.)
    for (const page of [five, fifty]) {
      expect(page.statements).toBeGreaterThanOrEqual(2);
      expect(page.statements).toBeLessThanOrEqual(2 + typesOn(page));
    }
    expect(fifty.statements).toBeLessThanOrEqual(7);
  });

  it('answers a type-ahead in one statement, and with its records in at most one more per type', async () => {
    const bare = await statementsOf('query($q: String!) { autocomplete(query: $q, first: 20) { suggestions { text type } } }', { q: 'bound' });
    expect(bare.data.autocomplete.suggestions).toHaveLength(20);
    expect(bare.statements).toBe(1);
    const withNodes = await statementsOf('query($q: String!) { autocomplete(query: $q, first: 20) { suggestions { text node { __typename } } } }', { q: 'bound' });
    const types = new Set(withNodes.data.autocomplete.suggestions.map((suggestion: any) => suggestion.node.__typename)).size;
    expect(withNodes.statements).toBeGreaterThanOrEqual(1);
    expect(withNodes.statements).toBeLessThanOrEqual(1 + types);
  });
});

describe('search stays in step with writes', () => {
  it('finds a new record at once, a renamed one by its new name only, and a deleted one no more', async () => {
    const id = await createRule('Quokka watch', 'burrow checks');
    expect((await search({ q: 'quokka' })).edges.map(label)).toEqual(['AlertRule:Quokka watch']);
    await ok('mutation($id: ID!) { updateAlertRule(id: $id, input: { name: "Wombat watch" }) { alertRule { alertRuleId } } }', { id });
    expect((await search({ q: 'quokka' })).totalCount).toBe(0);
    expect((await search({ q: 'wombat' })).edges.map(label)).toEqual(['AlertRule:Wombat watch']);
    await ok('mutation($id: ID!) { deleteAlertRule(id: $id, hardDelete: true) { id } }', { id });
    expect((await search({ q: 'wombat' })).totalCount).toBe(0);
    // A template keeps its id when renamed: the id is searched too.
    const templateId = await createTemplate('Numbat report');
    await ok('mutation($id: ID!) { updateTemplate(id: $id, input: { name: "Bilby report" }) { template { templateId } } }', { id: templateId });
    expect((await search({ q: 'numbat' })).edges.map((edge) => edge.node)).toEqual([{ __typename: 'QueryTemplate', templateId: 'numbat_report', name: 'Bilby report' }]);
  });

  it('follows a dataset through its lifecycle: a Live version and a draft are two results', async () => {
    await importDataset('lyrebird', { name: 'Lyrebird calls' });
    for (const to of ['READY_TO_PUBLISH', 'LIVE']) await ok(`mutation { transitionDataset(id: "lyrebird", to: ${to}) { id } }`);
    expect((await search({ q: 'lyrebird' })).edges.map((edge) => edge.node.status)).toEqual(['LIVE']);
    await ok('mutation { editDataset(id: "lyrebird") { id } }');
    expect((await search({ q: 'lyrebird' })).edges.map((edge) => edge.node.status).sort()).toEqual(['DRAFT', 'LIVE']);
    expect((await search({ q: 'lyrebird', where: { status: { eq: 'LIVE' } } })).totalCount).toBe(1);
  });
});

describe('search and permissions', () => {
  it('shows a viewer neither the results nor the facet of a type it may not read (query templates)', async () => {
    const viewer = await token({ roles: ['viewer'] });
    const found = await search({ q: 'invoice' }, viewer);
    expect(found.edges.map(label)).toEqual(['Dataset:ledger', 'Dataset:billing', 'AlertRule:Payment lag']);
    expect(found.facets.map((facet) => facet.type).sort()).toEqual(['ALERT_RULE', 'CONNECTOR', 'DATASET', 'NOTIFICATION_CHANNEL']);
    const asked = await search({ q: 'invoice', types: ['QUERY_TEMPLATE'] }, viewer);
    expect({ total: asked.totalCount, edges: asked.edges }).toEqual({ total: 0, edges: [] });
  });

  it('refuses a caller who may read none of the types with FORBIDDEN', async () => {
    const answer = await call(await token({ roles: ['ingestor'] }), SEARCH, { q: 'invoice' });
    expect(answer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('docs/graphql.md', () => {
  it('runs the example of its Search section as written', async () => {
    const section = readFileSync(new URL('../../docs/graphql.md', import.meta.url), 'utf8')
      .split('\n## Search\n')[1]!
      .split('\n## ')[0]!;
    const example = /```graphql\n([\s\S]*?)```/.exec(section)![1]!;
    await importDataset('shop-orders', { name: 'Shop orders', data_schema: { properties: { customer: { type: 'object', properties: { email: { type: 'string' } } } } } });
    const data = await ok(example);
    expect(data.search.facets.map((facet: { type: string }) => facet.type)).toEqual(['DATASET', 'QUERY_TEMPLATE', 'CONNECTOR', 'ALERT_RULE', 'NOTIFICATION_CHANNEL']);
    expect(data.search.edges.map((edge: any) => edge.node.datasetId)).toEqual(['shop-orders']);
  });
});

describe('search refuses bad input with a 400-class code, never a 500', () => {
  const refused = async (variables: Record<string, unknown>, code: string, message: RegExp) => {
    const answer = await call(admin, SEARCH, variables);
    expect({ status: answer.status, code: answer.errors?.[0]?.extensions?.code, kind: answer.errors?.[0]?.extensions?.responseCode }).toEqual({ status: 200, code, kind: 'BAD_REQUEST' });
    expect(answer.errors?.[0]?.message).toMatch(message);
  };

  it.each([
    ['an empty query', { q: '' }, /query is empty/],
    ['a query of spaces', { q: '   \t ' }, /query is empty/],
    ['a query of 10,000 characters', { q: 'a'.repeat(10_000) }, /at most 200 characters/],
    ['tsquery operators alone', { q: `&|!():*'\\` }, /holds no letters or digits/],
    ['more than 16 words', { q: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, /at most 16 words/],
    ['a negative first', { q: 'invoice', first: -1 }, /first must be an integer from 0 to 100/],
    ['a query holding NUL alone', { q: '\u0000' }, /query is empty/],
    ['a tag holding NUL', { q: 'invoice', where: { tags: { eq: 'a\u0000b' } } }, /a tag holds no control characters/],
    ['too many tags', { q: 'invoice', where: { tags: { in: Array.from({ length: 51 }, (_, i) => `t${i}`) } } }, /at most 50 values/],
  ])('refuses %s with SEARCH_INVALID_INPUT', async (_, variables, message) => {
    await refused(variables, 'SEARCH_INVALID_INPUT', message);
  });

  it('refuses first: 100000 before it runs (its cost), and a page over 100 that the cost allows with SEARCH_INVALID_INPUT', async () => {
    const huge = await call(admin, SEARCH, { q: 'invoice', first: 100_000 });
    expect({ status: huge.status, code: huge.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(huge.errors?.[0]?.message).toMatch(/The operation costs \d+; at most \d+ is allowed/);
    const over = await call(admin, 'query($first: Int) { search(query: "invoice", first: $first) { totalCount } }', { first: 101 });
    expect({ status: over.status, code: over.errors?.[0]?.extensions?.code, kind: over.errors?.[0]?.extensions?.responseCode }).toEqual({
      status: 200,
      code: 'SEARCH_INVALID_INPUT',
      kind: 'BAD_REQUEST',
    });
    expect(over.errors?.[0]?.message).toMatch(/first must be an integer from 0 to 100 \(got 101\)/);
  });

  it('refuses a malformed cursor, another list’s cursor and another search’s cursor with SEARCH_CURSOR_INVALID', async () => {
    const listCursor = (await ok('{ templates(first: 1) { pageInfo { endCursor } } }')).templates.pageInfo.endCursor as string;
    const otherSearch = (await search({ q: 'zephyr', first: 1 })).pageInfo.endCursor;
    await refused({ q: 'invoice', after: 'not a cursor!' }, 'SEARCH_CURSOR_INVALID', /is not a cursor of a search result/);
    await refused({ q: 'invoice', after: listCursor }, 'SEARCH_CURSOR_INVALID', /is not a cursor of a search result/);
    await refused({ q: 'invoice', after: Buffer.from('search1:abc:99999999999:x').toString('base64url') }, 'SEARCH_CURSOR_INVALID', /is not a cursor/);
    await refused({ q: 'invoice', after: otherSearch }, 'SEARCH_CURSOR_INVALID', /belongs to a search with other words/);
  });

  it('reads SQL metacharacters and tsquery operators among words as separators, answering what the words match', async () => {
    const injected = await search({ q: `invoice'; DROP TABLE datasets; --` });
    expect(injected.totalCount).toBe(0);
    expect((await gw.sql('SELECT count(*)::int AS n FROM datasets')).rows[0]!.n).toBeGreaterThan(0);
    expect((await search({ q: 'invoice & !(totals | x):*' })).totalCount).toBe(0);
    expect((await search({ q: `"Invoice" (totals)` })).edges.map(label)).toEqual(['QueryTemplate:Invoice totals']);
    // LIKE's wildcards are literal: unescaped, both would find every "invoice".
    for (const q of ['in%oice', 'inv_ice']) expect((await search({ q })).totalCount).toBe(0);
  });
});
