// A page of datasets with aggregates and group counts, on the page and on each dataset's alert rules,
// costs a constant number of SQL statements whatever the page's length: each aggregate is one
// statement over the list (a nested one, one for all the page's parents), as totalCount is.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  // 60 Live event datasets made a day apart; dataset n has n % 3 + 1 rules, a minute apart in evaluation interval.
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
                          dataset_config, transformations_config, connectors_config, created_by, updated_by, created_date, updated_date)
    SELECT 'events-' || lpad(n::text, 3, '0'), 'live', 'events ' || n, 'event', 'Live', '{}', 1, '1', 'v2', '{"type":"object","properties":{"a":{"type":"string"}}}',
           '{"keys_config":{"timestamp_key":"ts"},"indexing_config":{}}', '[]', '[]', 'SYSTEM', 'SYSTEM',
           timestamptz '2026-01-01T12:00:00Z' + n * interval '1 day', timestamptz '2026-01-01T12:00:00Z' + n * interval '1 day'
      FROM generate_series(1, 60) n`);
  await gw.sql(`
    INSERT INTO alert_rules (id, name, manager, description, metric, operator, thresholds, expression, category, severity, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by)
    SELECT gen_random_uuid(), 'rule ' || n || '.' || r, 'embedded', 'A rule', 'up', 'gt', ARRAY[1]::float8[], 'up > 1', 'ingest',
           CASE WHEN r = 1 THEN 'critical' ELSE 'warning' END, r * 60000, 0, jsonb_build_object('dataset', 'events-' || lpad(n::text, 3, '0')), 'SYSTEM', 'SYSTEM'
      FROM generate_series(1, 60) n CROSS JOIN generate_series(1, 3) r WHERE r <= n % 3 + 1`);
});
afterAll(async () => {
  await gw?.stop();
});

const PAGE = `query ($first: Int!) {
  datasets(first: $first, orderBy: [{ field: CREATED_AT, direction: ASC }]) {
    totalCount
    aggregate { count min { createdAt } max { createdAt } }
    groupBy(fields: [CREATED_AT, STATUS], bucket: WEEK) { keys count }
    nodes {
      id: datasetId
      alertRulePage(first: 2) {
        nodes { name }
        aggregate { count sum { evaluationIntervalMs } max { evaluationIntervalMs } }
        groupBy(fields: [SEVERITY]) { keys count }
      }
    }
  }
}`;

interface Seen {
  statements: number;
  nodes: { id: string; alertRulePage: { aggregate: { count: number; sum: { evaluationIntervalMs: number }; max: { evaluationIntervalMs: number } } } }[];
  aggregate: { count: number };
}

async function statementsOnce(first: number): Promise<Seen> {
  const before = gw.gateway.database.statementCount();
  const response = await graphql(gw, PAGE, { first });
  expect(response.errors).toBeUndefined();
  return { statements: gw.gateway.database.statementCount() - before, nodes: response.data?.datasets.nodes, aggregate: response.data?.datasets.aggregate };
}

/** The fewest statements of three runs (pages of `first`, `first - 1`, `first - 2`: none a kept answer of another); background work can add to one run, an N+1 shows in all. */
async function statementsFor(first: number): Promise<Seen> {
  const runs = [await statementsOnce(first), await statementsOnce(first - 1), await statementsOnce(first - 2)];
  runs.forEach((run, index) => expect(run.nodes).toHaveLength(first - index));
  return { ...runs[0]!, statements: Math.min(...runs.map((run) => run.statements)) };
}

describe('a page of datasets with aggregates on it and on each dataset’s alert rules', () => {
  it('answers every dataset’s own figures', async () => {
    const seen = await statementsOnce(60);
    expect(seen.aggregate.count).toBe(60);
    expect(seen.nodes).toHaveLength(60);
    // events-001: 1 % 3 + 1 = 2 rules (1 and 2 minutes); events-002: 3 rules; events-003: 1.
    expect(seen.nodes.slice(0, 3).map((node) => [node.id, node.alertRulePage.aggregate])).toEqual([
      ['events-001', { count: 2, sum: { evaluationIntervalMs: 180_000 }, max: { evaluationIntervalMs: 120_000 } }],
      ['events-002', { count: 3, sum: { evaluationIntervalMs: 360_000 }, max: { evaluationIntervalMs: 180_000 } }],
      ['events-003', { count: 1, sum: { evaluationIntervalMs: 60_000 }, max: { evaluationIntervalMs: 60_000 } }],
    ]);
  });

  it('sends the same statements for a page of 50 as for a page of 10, at most 7', async () => {
    const ten = await statementsFor(10);
    const fifty = await statementsFor(50);
    expect(ten.statements).toBeGreaterThan(0);
    expect(fifty.statements).toBe(ten.statements);
    // The page, totalCount, aggregate, groupBy; the rules' pages, their aggregates, their groupBy: one batch each.
    expect(fifty.statements).toBeLessThanOrEqual(7);
  });
});
