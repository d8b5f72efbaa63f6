// What clients keep with a rule, an alias or a transformation reads as typed fields: the console's
// query builder condition and context of a rule, a metric alias's context as entries, a
// transformation's condition; the JSON fields they replace still answer as written.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
const RULE = '00000000-0000-4000-8000-00000000f001';
const ALIAS = '00000000-0000-4000-8000-00000000f002';

beforeAll(async () => {
  gw = await startTestGateway();
  await gw.sql(`
    INSERT INTO alert_rules (id, name, manager, metric, operator, thresholds, expression, category, evaluation_interval_ms, pending_for_ms, metadata, context, created_by, updated_by) VALUES
      ('${RULE}', 'Typed rule', 'embedded', 'up', 'gt', ARRAY[5]::float8[], 'up > 5', 'processing', 60000, 0,
       '{"queryBuilderContext":{"category":"processing","subComponent":"d1","metricAlias":"Failed events","id":"${ALIAS}","operator":"within_range","threshold":["5", 10, "x"]},"kept":true}',
       '{"alertType":"CUSTOM","datasetId":"d1","extra":1}', 'alice', 'alice')`);
  await gw.sql(`
    INSERT INTO metric_aliases (id, alias, component, metric, context, created_by, updated_by) VALUES
      ('${ALIAS}', 'Failed events', 'processing', 'up', '{"owner":"ops","window":5,"tags":["a"],"none":null}', 'alice', 'alice')`);
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, created_by, updated_by) VALUES
      ('typed', 'live', 'Typed', 'event', 'Live', '{}', 'k', '{"type":"object"}', '{}',
       '[{"field_key":"email","mode":"Strict","transformation_function":{"type":"mask","expr":"email","condition":{"type":"jsonata","expr":"amount > 5"}}},{"field_key":"plain","transformation_function":{"type":"mask","expr":"plain"}}]',
       '[]', 'alice', 'alice')`);
});
afterAll(async () => {
  await gw?.stop();
});

describe('typed client data', () => {
  it("reads a rule's query builder condition and context as typed fields, the JSON fields as they were written", async () => {
    const response = await graphql(
      gw,
      `query { alertRule(id: "${RULE}") { queryBuilder { category subComponent metric metricAlias metricAliasId operator thresholds } clientContext { alertType datasetId } metadata context } }`,
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.alertRule).toEqual({
      queryBuilder: { category: 'processing', subComponent: 'd1', metric: null, metricAlias: 'Failed events', metricAliasId: ALIAS, operator: 'WITHIN_RANGE', thresholds: [5, 10] },
      clientContext: { alertType: 'CUSTOM', datasetId: 'd1' },
      metadata: { queryBuilderContext: { category: 'processing', subComponent: 'd1', metricAlias: 'Failed events', id: ALIAS, operator: 'within_range', threshold: ['5', 10, 'x'] }, kept: true },
      context: { alertType: 'CUSTOM', datasetId: 'd1', extra: 1 },
    });
  });

  it("reads a metric alias's context as entries by key: strings as they are, other values as JSON text", async () => {
    const response = await graphql(gw, `query { metricAlias(id: "${ALIAS}") { contextEntries { key value } } }`);
    expect(response.errors).toBeUndefined();
    expect(response.data!.metricAlias.contextEntries).toEqual([
      { key: 'none', value: null },
      { key: 'owner', value: 'ops' },
      { key: 'tags', value: '["a"]' },
      { key: 'window', value: '5' },
    ]);
  });

  it("reads a transformation's condition as its type and expression, null when it always applies", async () => {
    const response = await graphql(
      gw,
      `
        query {
          dataset(id: "typed") {
            fieldTransformations {
              fieldKey
              when {
                type
                expression
              }
            }
          }
        }
      `,
    );
    expect(response.errors).toBeUndefined();
    expect(response.data!.dataset.fieldTransformations).toEqual([
      { fieldKey: 'email', when: { type: 'jsonata', expression: 'amount > 5' } },
      { fieldKey: 'plain', when: null },
    ]);
  });
});
