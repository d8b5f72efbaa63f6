// Lists read only the columns they show (DESIGN.md): a dataset list reads the columns its selection's
// fields declare (src/modules/datasets/permissions.ts, datasetFieldReads), and whole rows when it
// selects a field that declares none. Every declared field answers on a list exactly as it does on
// the dataset read by id (a whole record), so no declaration can leave a field short of a column.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getNamedType, isLeafType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import pg from 'pg';
import { graphql } from '../support/api.js';
import { denormField, GOOD_CONNECTOR, seedDataset, seedMaster } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { datasetFieldReads } from '../../src/modules/datasets/index.js';
import { sdlTypes } from '../../src/graphql/schema.js';

const MASTER = 'fr-master';
const DATASET = 'fr-event';

// Every statement the gateway sends, as pg's client sees it (patched before the gateway connects).
const statements: string[] = [];
const clientPrototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
const originalQuery = clientPrototype.query;

let gw: TestGateway;

beforeAll(async () => {
  clientPrototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    statements.push(typeof config === 'string' ? config : (config?.text ?? ''));
    return originalQuery.apply(this, args);
  };
  gw = await startTestGateway();
  await seedMaster(gw, MASTER);
  await seedDataset(gw, DATASET, 'Live', {
    tags: ['orders', 'eu'],
    denorm_config: { denorm_fields: [denormField(MASTER)] },
    connectors_config: [GOOD_CONNECTOR],
    sample_data: { id: 'e-1', amount: 3 },
    entry_topic: 'fr.ingest',
  });
  const alias = await graphql(gw, 'mutation { setDatasetAlias(id: "fr-event", alias: "fr-alias") { datasetId } }');
  expect(alias.errors).toBeUndefined();
  const rule = await graphql(gw, 'mutation($i: CreateAlertRuleInput!) { createAlertRule(input: $i) { alertRule { id } } }', {
    i: { name: 'fr-rule', category: 'fr', metric: 'up', operator: 'GT', thresholds: [1], labels: { dataset: DATASET } },
  });
  expect(rule.errors).toBeUndefined();
  const template = await graphql(gw, 'mutation($q: String!) { createTemplate(input: { name: "fr template", queryType: SQL, query: $q }) { template { id } } }', {
    // A template names a dataset by a name in its query beside the placeholders.
    q: `SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} AND source = '${DATASET}' LIMIT {{LIMIT}}`,
  });
  expect(template.errors).toBeUndefined();
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  clientPrototype.query = originalQuery;
});

/** The statements that read the dataset list's page while `query` runs. */
async function listStatements(query: string): Promise<string[]> {
  statements.length = 0;
  const response = await graphql(gw, query);
  expect(response.errors).toBeUndefined();
  return statements.filter((text) => /FROM "datasets" WHERE/.test(text) && /LIMIT \d+/.test(text));
}

describe('a dataset list reads the columns its selection shows', () => {
  it('names only the columns of the fields selected (and those its order and cursors are made of)', async () => {
    const [page, ...more] = await listStatements(`{ datasets(first: 5, where: { datasetId: { eq: "${DATASET}" } }) { nodes { id name } edges { cursor } } }`);
    expect(more).toEqual([]);
    const selected = /^SELECT (.*?) FROM/.exec(page!)![1]!.split(', ').sort();
    expect(selected).toEqual(['"dataset_id"', '"name"', '"stage"', '"updated_date"']);
  });

  it('reads the columns of fragments and of edges.node too', async () => {
    const [page] = await listStatements(
      `query { datasets(first: 5) { ...Page } } fragment Page on DatasetConnection { edges { node { ... on Dataset { tags } } } nodes { ...Names } } fragment Names on Dataset { createdAt }`,
    );
    expect(page).toMatch(/^SELECT .*"tags".* FROM/);
    expect(page).toMatch(/^SELECT .*"created_date".* FROM/);
    expect(page).not.toMatch(/"data_schema"/);
  });

  it('reads whole rows when a selected field declares no reads (it may read any section)', async () => {
    const [page] = await listStatements(`{ datasets(first: 5) { nodes { id config { indexing { olapStoreEnabled } } } } }`);
    expect(page).toMatch(/^SELECT \* FROM/);
  });
});

// ---------------------------------------------------------------------------------------------
// Each declared field, selected alone on the list and on the dataset by id, answers the same.

/** Arguments a field needs to be asked at all, fixed so both reads see the same window. */
const ARGUMENTS: Record<string, string> = {
  ingestionSeries: '(start: "2026-01-01T00:00:00Z", end: "2026-01-01T01:00:00Z", step: 600)',
};

/** The leaves of a type, and (to `depth` levels) its object fields that take no arguments (a page of pages would cost too much). */
function selectionOf(type: GraphQLObjectType, depth: number): string {
  const parts = Object.values(type.getFields()).flatMap((field: GraphQLField<unknown, unknown>) => {
    if (field.deprecationReason || field.args.length > 0) return [];
    const named = getNamedType(field.type);
    if (isLeafType(named)) return [field.name];
    if (depth > 0 && isObjectType(named)) return [`${field.name} { ${selectionOf(named, depth - 1)} }`];
    return [];
  });
  return parts.length > 0 ? parts.join(' ') : '__typename';
}

function fieldSelection(name: string): string {
  const field = (sdlTypes().getType('Dataset') as GraphQLObjectType).getFields()[name]!;
  const named = getNamedType(field.type);
  return `${name}${ARGUMENTS[name] ?? ''}${isObjectType(named) ? ` { ${selectionOf(named, 1)} }` : ''}`;
}

const declared = Object.keys(datasetFieldReads).map((coordinate) => coordinate.replace(/^Dataset\./, ''));

describe('every declared field answers on a list as on the whole record', () => {
  it('declares fields of Dataset only, each one of the schema', () => {
    const fields = (sdlTypes().getType('Dataset') as GraphQLObjectType).getFields();
    expect(Object.keys(datasetFieldReads).filter((coordinate) => !coordinate.startsWith('Dataset.') || !fields[coordinate.slice('Dataset.'.length)])).toEqual([]);
  });

  it.each(declared)('Dataset.%s', async (name) => {
    const selection = fieldSelection(name);
    const response = await graphql<{ list: { nodes: Record<string, unknown>[] }; one: Record<string, unknown> }>(
      gw,
      `{ list: datasets(first: 1, where: { datasetId: { eq: "${DATASET}" } }, filter: { status: [LIVE] }) { nodes { datasetId ${selection} } } one: dataset(id: "${DATASET}") { ${selection} } }`,
    );
    expect(response.errors).toBeUndefined();
    const [node] = response.data!.list.nodes;
    expect(node?.datasetId).toBe(DATASET);
    expect(node![name]).toEqual(response.data!.one[name]);
    // A field the fixture leaves empty would compare nothing: each holds a value here.
    expect(response.data!.one[name] ?? null).not.toBeNull();
  });
});
