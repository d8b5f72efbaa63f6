// Lineage of a page costs one statement per level, whatever the page's length: every dataset's
// lineage is traversed together (one DataLoader batch), and the records reached are loaded by type
// (one batch each). A page of 50 datasets with lineage of depth 2, both ways, with every record
// reached, stays within LINEAGE_PAGE_BOUND statements, as a page of 10 does.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

/** The page (1) + 2 levels (one each) + the records reached by type (datasets, templates, rules, connectors: 4) + slack for the page's own count (1). */
const LINEAGE_PAGE_BOUND = 8;

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  // 5 Live masters; 100 Live event datasets, each fed by a built-in connector, denormalising from one
  // master, read by one template and watched by one rule.
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by)
    SELECT id, 'live', id, type, 'Live', '{}', '1', '{"type":"object"}', '{}', '[]', connectors::json, sources, 'SYSTEM', 'SYSTEM'
    FROM (
      SELECT 'master-' || m AS id, 'master' AS type, '[]' AS connectors, '{}'::text[] AS sources FROM generate_series(1, 5) m
      UNION ALL
      SELECT 'events-' || lpad(e::text, 3, '0'), 'event', '[{"id":"in","connector_id":"kafka-connector-1.0.0","connector_config":{}}]', ARRAY['master-' || (e % 5 + 1)]
        FROM generate_series(1, 100) e
    ) rows`);
  await gw.sql(`
    INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
    SELECT 'read_' || e, 'read ' || e, 'SELECT count(*) FROM "events-' || lpad(e::text, 3, '0') || '" WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}', 'sql', 'SYSTEM', 'SYSTEM'
    FROM generate_series(1, 100) e`);
  await gw.sql(`
    INSERT INTO alert_rules (id, name, manager, metric, operator, thresholds, expression, category, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by)
    SELECT gen_random_uuid(), 'watch-' || e, 'embedded', 'up', 'gt', '{1}', 'up > 1', 'lineage', 60000, 0, json_build_object('dataset', 'events-' || lpad(e::text, 3, '0')), 'SYSTEM', 'SYSTEM'
    FROM generate_series(1, 100) e`);
});
afterAll(async () => {
  await gw?.stop();
});

const PAGE = `query ($first: Int!) {
  datasets(first: $first, filter: { type: EVENT }) {
    nodes {
      datasetId
      lineage(direction: BOTH, depth: 2) {
        nodes { type key degree direction entity { __typename ... on Dataset { name } ... on QueryTemplate { name } ... on AlertRule { name } ... on Connector { name } } }
        edges { kind degree from { key } to { key } }
      }
    }
  }
}`;

async function statementsFor(first: number): Promise<{ statements: number; page: any[] }> {
  let fewest = Number.POSITIVE_INFINITY;
  let page: any[] = [];
  // The fewest of three askings: a background job of the gateway may send a statement meanwhile.
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = gw.gateway.database.statementCount();
    const response = await graphql(gw, PAGE, { first });
    expect(response.errors).toBeUndefined();
    fewest = Math.min(fewest, gw.gateway.database.statementCount() - before);
    page = response.data!.datasets.nodes;
  }
  return { statements: fewest, page };
}

describe('a page of datasets with their lineage', () => {
  it(`costs at most ${LINEAGE_PAGE_BOUND} statements for 50 datasets at depth 2, as for 10, with every record reached`, async () => {
    const ten = await statementsFor(10);
    const fifty = await statementsFor(50);
    expect({ ten: ten.page.length, fifty: fifty.page.length }).toEqual({ ten: 10, fifty: 50 });
    expect(fifty.statements).toBeGreaterThan(0);
    expect(Math.max(ten.statements, fifty.statements)).toBeLessThanOrEqual(LINEAGE_PAGE_BOUND);
    // Each dataset's lineage is its own: its master and connector upstream, its template and rule
    // downstream; at depth 2 nothing more (masters have no sources, templates and rules are ends).
    const one = fifty.page.find((dataset) => dataset.datasetId === 'events-005')!;
    const byWay = (way: string) =>
      one.lineage.nodes
        .filter((node: any) => node.direction === way && node.degree === 1)
        .map((node: any) => `${node.type}:${node.entity?.name}`)
        .sort();
    expect(byWay('UPSTREAM')).toEqual(['Connector:Kafka', 'Dataset:master-1']);
    expect(byWay('DOWNSTREAM')).toEqual(['AlertRule:watch-5', 'QueryTemplate:read 5']);
    expect(one.lineage.nodes.filter((node: any) => node.degree === 2)).toEqual([]);
    console.log(`lineage page statements: 10 datasets ${ten.statements}, 50 datasets ${fifty.statements}`);
  });
});
