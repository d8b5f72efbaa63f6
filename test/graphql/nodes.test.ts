// The graph's identity: every entity has an opaque global id that `node`/`nodes` refetch it by,
// a dataset's Live and Draft versions are two nodes, and ids this gateway did not make are refused
// with a 400-class error and its code, never a 500.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, SQL_QUERY } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

async function ok<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const response = await graphql<T>(gw, query, variables);
  if (response.errors) throw new Error(JSON.stringify(response.errors));
  return response.data!;
}

const definition = (id: string) => ({
  dataset_id: id,
  name: id,
  type: 'event',
  data_schema: { type: 'object', properties: { id: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
  dataset_config: { keys_config: { timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false } },
});

/** Natural key of every node type, asked through `node`/`nodes` with inline fragments. */
const NODE_FIELDS = `__typename id
  ... on Dataset { datasetId status }
  ... on Datasource { datasetId datasource }
  ... on QueryTemplate { templateId }
  ... on Connector { connectorVersionId }
  ... on Silence { silenceId }
  ... on MetricAlias { metricAliasId }
  ... on NotificationChannel { channelId }
  ... on AlertRule { alertRuleId }
  ... on AlertNotification { notificationId }
  ... on AuditRecord { auditRecordId }`;

/** Each type's global id and the natural key it must refetch as, gathered through the ordinary root fields. */
const known: { type: string; id: string; key: string }[] = [];

beforeAll(async () => {
  gw = await startTestGateway();
  await ok('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: definition('node-orders') });
  for (const to of ['READY_TO_PUBLISH', 'LIVE']) await ok(`mutation { transitionDataset(id: "node-orders", to: ${to}) { id } }`);
  const draft = await ok('mutation { editDataset(id: "node-orders") { id datasetId } }');
  const live = await ok('{ dataset(id: "node-orders") { id datasetId } }');
  known.push({ type: 'Dataset', id: live.dataset.id, key: 'node-orders' }, { type: 'Dataset', id: draft.editDataset.id, key: 'node-orders' });

  const datasource = (await ok('{ datasources { id datasetId } }')).datasources[0];
  known.push({ type: 'Datasource', id: datasource.id, key: datasource.datasetId });

  const template = (await ok('mutation($q: String!) { createTemplate(input: { name: "Node probe", queryType: SQL, query: $q }) { template { id templateId } } }', { q: SQL_QUERY })).createTemplate
    .template;
  known.push({ type: 'QueryTemplate', id: template.id, key: template.templateId });

  const connector = (await ok('{ connectors(first: 1) { nodes { id connectorVersionId } } }')).connectors.nodes[0];
  known.push({ type: 'Connector', id: connector.id, key: connector.connectorVersionId });

  const channel = (await ok('mutation { createNotificationChannel(input: { name: "node-mail", type: EMAIL, config: { recipientAddresses: "ops@example.com" } }) { channel { id channelId } } }'))
    .createNotificationChannel.channel;
  known.push({ type: 'NotificationChannel', id: channel.id, key: channel.channelId });

  const rule = (
    await ok('mutation($c: [ID!]) { createAlertRule(input: { name: "node-rule", category: "node", metric: "up", operator: GT, thresholds: [1], channelIds: $c }) { alertRule { id alertRuleId } } }', {
      c: [channel.channelId],
    })
  ).createAlertRule.alertRule;
  known.push({ type: 'AlertRule', id: rule.id, key: rule.alertRuleId });

  const silence = (
    await ok('mutation($i: CreateSilenceInput!) { createSilence(input: $i) { silence { id silenceId } } }', {
      i: { alertId: rule.alertRuleId, startDate: new Date().toISOString(), endDate: new Date(Date.now() + 3_600_000).toISOString() },
    })
  ).createSilence.silence;
  known.push({ type: 'Silence', id: silence.id, key: silence.silenceId });

  const alias = (await ok('mutation { createMetricAlias(input: { alias: "node_up", component: "api", metric: "up" }) { metricAlias { id metricAliasId } } }')).createMetricAlias.metricAlias;
  known.push({ type: 'MetricAlias', id: alias.id, key: alias.metricAliasId });

  // A notification is decided by the rule evaluator; one is written as it writes them.
  const notificationId = randomUUID();
  await gw.sql(
    `INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, subject, text) VALUES ('${notificationId}', '${rule.alertRuleId}', '${channel.channelId}', 'firing', now(), 's', 't')`,
  );
  const notification = (await ok('query($id: ID!) { alertRule(id: $id) { notifications { id notificationId } } }', { id: rule.alertRuleId })).alertRule.notifications[0];
  known.push({ type: 'AlertNotification', id: notification.id, key: notificationId });

  const record = (await ok('{ auditRecords(first: 1) { nodes { id auditRecordId } } }')).auditRecords.nodes[0];
  known.push({ type: 'AuditRecord', id: record.id, key: record.auditRecordId });
});
afterAll(async () => {
  await gw?.stop();
});

const naturalKey = (node: Record<string, string>) =>
  node.datasetId ?? node.templateId ?? node.connectorVersionId ?? node.silenceId ?? node.metricAliasId ?? node.channelId ?? node.alertRuleId ?? node.notificationId ?? node.auditRecordId;

describe('node and nodes', () => {
  it('refetches a record of every type by its global id, as that type with its natural key', async () => {
    expect(new Set(known.map((entry) => entry.type)).size).toBe(10);
    const data = await ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ${NODE_FIELDS} } }`, { ids: known.map((entry) => entry.id) });
    expect(data.nodes.map((node: Record<string, string>) => ({ type: node.__typename, id: node.id, key: naturalKey(node) }))).toEqual(known);
    for (const entry of known) {
      const one = await ok(`query($id: ID!) { node(id: $id) { ${NODE_FIELDS} } }`, { id: entry.id });
      expect({ type: one.node.__typename, key: naturalKey(one.node) }).toEqual({ type: entry.type, key: entry.key });
    }
  });

  it('gives the Live and the Draft version of a dataset two ids, each refetching its own version', async () => {
    const [live, draft] = known.filter((entry) => entry.type === 'Dataset');
    expect(live!.id).not.toBe(draft!.id);
    const data = await ok(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Dataset { datasetId status stage } } }`, { ids: [live!.id, draft!.id] });
    expect(data.nodes).toEqual([
      { datasetId: 'node-orders', status: 'LIVE', stage: 'LIVE' },
      { datasetId: 'node-orders', status: 'DRAFT', stage: 'DRAFT' },
    ]);
    const linked = await ok('{ dataset(id: "node-orders") { id draft { id } live { id } } }');
    expect(linked.dataset).toEqual({ id: live!.id, draft: { id: draft!.id }, live: { id: live!.id } });
  });

  it('answers null for an id whose record is gone, in its place among the others', async () => {
    const template = known.find((entry) => entry.type === 'QueryTemplate')!;
    await ok(`mutation { deleteTemplate(id: "${template.key}") { id } }`);
    const data = await ok(`query($ids: [ID!]!) { nodes(ids: $ids) { id } node(id: "${template.id}") { id } }`, { ids: [template.id, known[0]!.id] });
    expect(data).toEqual({ nodes: [null, { id: known[0]!.id }], node: null });
  });

  it.each([
    ['text that is not base64url', 'not an id!'],
    ['base64url of no type', Buffer.from('Planet:earth').toString('base64url')],
    ['a known type without its key', Buffer.from('Dataset:orders').toString('base64url')],
    ['an empty id', ''],
  ])('refuses %s with NODE_ID_INVALID (a 400-class error)', async (_, id) => {
    for (const query of ['query($id: ID!) { node(id: $id) { id } }', 'query($id: ID!) { nodes(ids: [$id]) { id } }']) {
      const response = await graphql(gw, query, { id });
      // A field's failure: HTTP 200 with the error beside the data, its code and its 400 kind.
      expect({ status: response.status, code: errorCode(response), kind: response.errors?.[0]?.extensions?.responseCode }).toEqual({ status: 200, code: 'NODE_ID_INVALID', kind: 'BAD_REQUEST' });
      expect(response.errors?.[0]?.message).toMatch(/is not a global id of this gateway/);
    }
  });

  it('refuses more than 100 ids with NODES_LIMIT_EXCEEDED, and 10,000 of them without a 500', async () => {
    const id = known[0]!.id;
    const hundred = await ok('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 100 }, () => id) });
    expect(hundred.nodes).toHaveLength(100);
    const tooMany = await graphql(gw, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 101 }, () => id) });
    expect({ code: errorCode(tooMany), kind: tooMany.errors?.[0]?.extensions?.responseCode }).toEqual({ code: 'NODES_LIMIT_EXCEEDED', kind: 'BAD_REQUEST' });
    const huge = await graphql(gw, 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: Array.from({ length: 10_000 }, () => id) });
    expect({ status: huge.status, code: errorCode(huge), data: huge.data }).toEqual({ status: 200, code: 'NODES_LIMIT_EXCEEDED', data: null });
  });
});

describe('Dataset.fields', () => {
  it('flattens the data schema to one typed entry per field path, with required, format, description and the PII suggestion', async () => {
    const schema = {
      type: 'object',
      required: ['id', 'customer'],
      properties: {
        id: { type: 'string', description: 'Order id', arrival_format: 'text', data_type: 'string' },
        customer: {
          type: 'object',
          required: ['email'],
          properties: {
            email: {
              type: 'string',
              format: 'email',
              suggestions: [
                { message: "'customer.email' holds email addresses, which are personal data.", severity: 'LOW', path: 'properties.customer.properties.email', resolutionType: 'TRANSFORMATION' },
              ],
            },
          },
        },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: ['string', 'null'] } } } },
        tags: { type: 'array', items: { type: 'string' } },
        'first name': { type: 'string' },
      },
    };
    await ok('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: { ...definition('node-fields'), data_schema: schema } });
    const data = await ok('{ dataset(id: "node-fields", version: DRAFT) { fields { path name types format required description arrivalFormat dataType piiSuggestion } } }');
    const blank = { format: null, required: false, description: null, arrivalFormat: null, dataType: null, piiSuggestion: null };
    expect(data.dataset.fields).toEqual([
      { ...blank, path: 'id', name: 'id', types: ['string'], required: true, description: 'Order id', arrivalFormat: 'text', dataType: 'string' },
      { ...blank, path: 'customer', name: 'customer', types: ['object'], required: true },
      { ...blank, path: 'customer.email', name: 'email', types: ['string'], format: 'email', required: true, piiSuggestion: "'customer.email' holds email addresses, which are personal data." },
      { ...blank, path: 'lines', name: 'lines', types: ['array'] },
      { ...blank, path: 'lines[*].sku', name: 'sku', types: ['string', 'null'] },
      { ...blank, path: 'tags', name: 'tags', types: ['array'] },
      { ...blank, path: '["first name"]', name: 'first name', types: ['string'] },
    ]);
  });
});

describe('Dataset.config and fieldTransformations', () => {
  it('type the definition’s settings, defaults filled in, and its transformations', async () => {
    const transformation = { field_key: 'email', transformation_function: { type: 'mask', expr: 'email', category: 'pii' }, mode: 'Strict' };
    await ok('mutation($d: JSON!) { importDataset(definition: $d) { id } }', { d: { ...definition('node-config'), transformations_config: [transformation] } });
    const data = await ok(`{ dataset(id: "node-config", version: DRAFT) {
      config {
        keys { dataKey partitionKey timestampKey }
        indexing { olapStoreEnabled lakehouseEnabled cacheEnabled }
        validation { validate mode }
        dedup { dropDuplicates dedupKey dedupPeriod }
        extraction { isBatchEvent extractionKey dedup { dropDuplicates } }
        denorm { fields { datasetId } }
        router { topic }
      }
      fieldTransformations { fieldKey mode type expression category dataType condition }
    } }`);
    expect(data.dataset.config).toMatchObject({
      keys: { dataKey: '', partitionKey: '', timestampKey: 'ts' },
      indexing: { olapStoreEnabled: true, lakehouseEnabled: false, cacheEnabled: false },
      validation: { validate: true, mode: 'Strict' },
      dedup: { dropDuplicates: false, dedupKey: 'id' },
      extraction: { isBatchEvent: false, extractionKey: 'events', dedup: { dropDuplicates: false } },
      denorm: { fields: [] },
      router: { topic: 'node-config' },
    });
    expect(data.dataset.fieldTransformations).toEqual([{ fieldKey: 'email', mode: 'Strict', type: 'mask', expression: 'email', category: 'pii', dataType: null, condition: null }]);
  });
});
