// Lists read only the columns they show (DESIGN.md): a dataset, alert rule, connector or template list
// reads the columns its selection's fields declare (<type>FieldReads beside each module's permissions),
// and whole rows when it selects a field that declares none. Every declared field answers on a list
// exactly as it does on the record read by id (whole), so no declaration can leave a field short of a column.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getNamedType, isLeafType, isObjectType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import pg from 'pg';
import { graphql } from '../support/api.js';
import { denormField, GOOD_CONNECTOR, seedDataset, seedMaster } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { datasetFieldReads } from '../../src/modules/datasets/index.js';
import { alertRuleFieldReads } from '../../src/modules/alert-rules/index.js';
import { connectorFieldReads } from '../../src/modules/connectors/index.js';
import { templateFieldReads } from '../../src/modules/templates/index.js';
import type { FieldReads } from '../../src/graphql/field-reads.js';
import { sdlTypes } from '../../src/graphql/schema.js';

const MASTER = 'fr-master';
const DATASET = 'fr-event';
const RULE = 'fr-rule';
/** A built-in connector version (the registry is seeded with them). */
const CONNECTOR = 'kafka-connector-1.0.0';
let ruleId: string;
let templateId: string;

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
  const channel = await graphql(gw, 'mutation { createNotificationChannel(input: { name: "fr-channel", type: EMAIL, config: { recipientAddresses: "ops@example.com" } }) { channel { channelId } } }');
  expect(channel.errors).toBeUndefined();
  const channelId = channel.data!.createNotificationChannel.channel.channelId;
  expect((await graphql(gw, 'mutation($id: ID!) { publishNotificationChannel(id: $id) { message } }', { id: channelId })).errors).toBeUndefined();
  const rule = await graphql(gw, 'mutation($i: CreateAlertRuleInput!) { createAlertRule(input: $i) { alertRule { alertRuleId } } }', {
    i: {
      name: RULE,
      description: 'orders stopped',
      category: 'fr',
      severity: 'CRITICAL',
      metric: 'up',
      operator: 'LT',
      thresholds: [1],
      evaluationInterval: '2m',
      pendingPeriod: '5m',
      labels: { dataset: DATASET },
      annotations: { summary: 'no orders' },
      metadata: { owner: 'ops' },
      context: { alertType: 'custom' },
      channelIds: [channelId],
    },
  });
  expect(rule.errors).toBeUndefined();
  ruleId = rule.data!.createAlertRule.alertRule.alertRuleId;
  // Live and evaluated once, silenced: its evaluation and silence hold values too.
  expect((await graphql(gw, 'mutation($id: ID!) { publishAlertRule(id: $id) { alertRule { status } } }', { id: ruleId })).errors).toBeUndefined();
  await gw.gateway.alertEvaluator.cycle(Date.now());
  const silence = await graphql(gw, 'mutation($i: CreateSilenceInput!) { createSilence(input: $i) { silence { silenceId } } }', {
    i: { alertId: ruleId, startDate: new Date().toISOString(), endDate: new Date(Date.now() + 3_600_000).toISOString() },
  });
  expect(silence.errors).toBeUndefined();
  // A built-in connector has no distribution; one registered from an upload has (its key is all that is compared).
  await gw.sql(`UPDATE connector_registry SET source_url = 'connectors/kafka-connector-1.0.0.tar.gz' WHERE id = $1`, [CONNECTOR]);
  const template = await graphql(gw, 'mutation($q: String!) { createTemplate(input: { name: "fr template", queryType: SQL, query: $q }) { template { templateId } } }', {
    // A template names a dataset by a name in its query beside the placeholders.
    q: `SELECT * FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} AND source = '${DATASET}' LIMIT {{LIMIT}}`,
  });
  expect(template.errors).toBeUndefined();
  templateId = template.data!.createTemplate.template.templateId;
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  clientPrototype.query = originalQuery;
});

/** The statements that read a page of `table` while `query` runs. */
async function listStatements(query: string, table = 'datasets'): Promise<string[]> {
  statements.length = 0;
  const response = await graphql(gw, query);
  expect(response.errors).toBeUndefined();
  return statements.filter((text) => text.includes(`FROM "${table}" WHERE`) && /LIMIT \d+/.test(text));
}

/** The statements that read the rules about datasets while `query` runs. */
async function ruleStatements(query: string): Promise<string[]> {
  statements.length = 0;
  const response = await graphql(gw, query);
  expect(response.errors).toBeUndefined();
  return statements.filter((text) => /FROM alert_rules\s+WHERE labels/.test(text));
}

const columnsOf = (statement: string) => /^SELECT (.*?) FROM/.exec(statement)![1]!.split(', ').sort();

describe('a list reads the columns its selection shows', () => {
  it('names only the columns of the fields selected (and those its order and cursors are made of)', async () => {
    const [page, ...more] = await listStatements(`{ datasets(first: 5, where: { datasetId: { eq: "${DATASET}" } }) { nodes { id name } edges { cursor } } }`);
    expect(more).toEqual([]);
    expect(columnsOf(page!)).toEqual(['"dataset_id"', '"name"', '"stage"', '"updated_date"']);
  });

  it('an alert rule list too: its id and creation time (its order) besides what is selected', async () => {
    const [page] = await listStatements(`{ alertRules(first: 5) { nodes { name evaluationInterval } } }`, 'alert_rules');
    expect(columnsOf(page!)).toEqual(['"created_date"', '"evaluation_interval_ms"', '"id"', '"name"']);
  });

  it("a dataset's alert rules too: with what tells each rule's dataset (its labels and context)", async () => {
    const [statement, ...more] = await ruleStatements(`{ datasets(first: 5) { nodes { alertRules { name } } } }`);
    expect(more).toEqual([]);
    expect(/^SELECT (.*?)\s+FROM/.exec(statement!)![1]!.split(', ').sort()).toEqual(['context', 'id', 'labels', 'name']);
  });

  it('a connector list leaves each form (uiSpec) unread unless it is selected', async () => {
    const [page] = await listStatements(`{ connectors(first: 5) { nodes { name status } } }`, 'connector_registry');
    expect(page).not.toMatch(/ui_spec/);
    const [withForm] = await listStatements(`{ connectors(first: 5) { nodes { name uiSpec } } }`, 'connector_registry');
    expect(withForm).toMatch(/^SELECT .*"ui_spec".* FROM/);
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
// Each declared field, selected alone on the list and on the record by id, answers the same.

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

function fieldSelection(typeName: string, name: string): string {
  const field = (sdlTypes().getType(typeName) as GraphQLObjectType).getFields()[name]!;
  const named = getNamedType(field.type);
  return `${name}${ARGUMENTS[name] ?? ''}${isObjectType(named) ? ` { ${selectionOf(named, 1)} }` : ''}`;
}

type Items = Record<string, unknown>[];

interface Listed {
  type: string;
  through: string;
  reads: FieldReads;
  list: (selection: string) => string;
  /** Finds the record in the list's answer. */
  items: (list: any) => Items;
  one: (selection: string) => string;
}

/** A root list, narrowed by `where` to the record `one` reads by id (`id` read when the test runs: the fixture makes some). */
const rootList = (type: string, reads: FieldReads, root: string, where: () => string, one: () => string, extra = ''): Listed => ({
  type,
  through: root,
  reads,
  list: (selection) => `${root}(first: 1, where: { ${where()} }${extra}) { nodes { ${selection} } }`,
  items: (list: { nodes: Items }) => list.nodes,
  one: (selection) => `${one()} { ${selection} }`,
});

/** Each listed type: its declarations, and the same record read through a list and by id. */
const LISTED: Listed[] = [
  rootList(
    'Dataset',
    datasetFieldReads,
    'datasets',
    () => `datasetId: { eq: "${DATASET}" }`,
    () => `dataset(id: "${DATASET}")`,
    ', filter: { status: [LIVE] }',
  ),
  rootList(
    'AlertRule',
    alertRuleFieldReads,
    'alertRules',
    () => `name: { eq: "${RULE}" }`,
    () => `alertRule(id: "${ruleId}")`,
  ),
  rootList(
    'Connector',
    connectorFieldReads,
    'connectors',
    () => `connectorVersionId: { eq: "${CONNECTOR}" }`,
    () => `connector(id: "${CONNECTOR}")`,
  ),
  rootList(
    'QueryTemplate',
    templateFieldReads,
    'templates',
    () => `templateId: { eq: "${templateId}" }`,
    () => `template(id: "${templateId}")`,
  ),
  {
    type: 'AlertRule',
    through: 'Dataset.alertRules',
    reads: alertRuleFieldReads,
    list: (selection) => `dataset(id: "${DATASET}") { alertRules { ${selection} } }`,
    items: (list: { alertRules: Items }) => list.alertRules,
    one: (selection) => `alertRule(id: "${ruleId}") { ${selection} }`,
  },
];

describe.each(LISTED)('every declared field of $type answers through $through as on the whole record', ({ type, reads, list, items, one }) => {
  it('declares fields of its type only, each one of the schema', () => {
    const fields = (sdlTypes().getType(type) as GraphQLObjectType).getFields();
    expect(Object.keys(reads).filter((coordinate) => !coordinate.startsWith(`${type}.`) || !fields[coordinate.slice(type.length + 1)])).toEqual([]);
  });

  it.each(Object.keys(reads).map((coordinate) => coordinate.slice(type.length + 1)))(`${type}.%s`, async (name) => {
    const selection = fieldSelection(type, name);
    const response = await graphql<{ list: unknown; one: Record<string, unknown> }>(gw, `{ list: ${list(selection)} one: ${one(selection)} }`);
    expect(response.errors).toBeUndefined();
    const found = items(response.data!.list);
    expect(found).toHaveLength(1);
    expect(found[0]![name]).toEqual(response.data!.one[name]);
    // A field the fixture leaves empty would compare nothing: each holds a value here.
    expect(response.data!.one[name] ?? null).not.toBeNull();
  });
});
