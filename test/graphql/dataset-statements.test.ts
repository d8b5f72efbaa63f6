// A dataset list with its nested versions and denorm sources costs a constant number of SQL
// statements, whatever its length: nested fields go through one DataLoader batch per level.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  // 100 event datasets, each Live with a Draft beside it, denormalising from one of 5 Live masters.
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
                          dataset_config, transformations_config, connectors_config, denorm_config, denorm_sources, created_by, updated_by)
    SELECT id, stage, id, type, status, '{}', 1, '1', 'v2', '{"type":"object","properties":{"a":{"type":"string"}}}',
           '{"keys_config":{"timestamp_key":"ts"},"indexing_config":{}}', '[]', '[]', denorm::json, sources, 'SYSTEM', 'SYSTEM'
    FROM (
      SELECT 'master-' || m AS id, 'live' AS stage, 'master' AS type, 'Live' AS status, '{"denorm_fields":[]}' AS denorm, '{}'::text[] AS sources
        FROM generate_series(1, 5) m
      UNION ALL
      SELECT 'events-' || lpad(e::text, 3, '0'), s.stage, 'event', CASE s.stage WHEN 'live' THEN 'Live' ELSE 'Draft' END,
             '{"denorm_fields":[{"denorm_key":"k","dataset_id":"master-' || (e % 5 + 1) || '","denorm_out_field":"o"}]}',
             ARRAY['master-' || (e % 5 + 1)]
        FROM generate_series(1, 100) e CROSS JOIN (VALUES ('live'), ('draft')) AS s(stage)
    ) rows`);
});
afterAll(async () => {
  await gw?.stop();
});

const LIST = `query ($first: Int!) {
  datasets(first: $first, filter: { type: EVENT, status: [LIVE] }) {
    totalCount
    nodes { id: datasetId name status live { id: datasetId } draft { id: datasetId version } denormSources { id: datasetId type draft { id: datasetId } } definition(fields: ["dataset_id", "status"]) }
  }
}`;

async function statementsOnce(first: number): Promise<{ statements: number; nodes: number }> {
  const before = gw.gateway.database.statementCount();
  const response = await graphql(gw, LIST, { first });
  expect(response.errors).toBeUndefined();
  const nodes = (response.data?.datasets.nodes as unknown[]).length;
  return { statements: gw.gateway.database.statementCount() - before, nodes };
}

/**
 * The fewest statements of three runs (pages of `first`, `first - 1` and `first - 2`, so that no run
 * is a kept answer of another): the count is the database's, so work the gateway does in the
 * background meanwhile (a table-size estimate refreshed, a change log read) can add to one run; an
 * N+1 in the request itself shows in every run.
 */
async function statementsFor(first: number): Promise<{ statements: number; nodes: number }> {
  const runs = [await statementsOnce(first), await statementsOnce(first - 1), await statementsOnce(first - 2)];
  runs.forEach((run, index) => expect(run.nodes).toBe(first - index));
  return { statements: Math.min(...runs.map((run) => run.statements)), nodes: runs[0]!.nodes };
}

describe('listing datasets with nested fields', () => {
  it('returns every version with its draft and denorm sources', async () => {
    const response = await graphql(gw, LIST, { first: 3 });
    const first = response.data?.datasets.nodes[0];
    expect(response.data?.datasets.totalCount).toBe(100);
    // Same update time for all rows, so the id breaks the tie: events-001 (1 % 5 + 1 = master-2).
    expect(first).toMatchObject({ id: 'events-001', status: 'LIVE', live: { id: 'events-001' }, draft: { id: 'events-001', version: 1 } });
    expect(first.denormSources).toEqual([{ id: 'master-2', type: 'MASTER', draft: null }]);
  });

  it('sends the same small number of SQL statements for 10 datasets as for 100', async () => {
    const ten = await statementsFor(10);
    const hundred = await statementsFor(100);
    expect(ten.nodes).toBe(10);
    expect(hundred.nodes).toBe(100);
    // Executed, not a kept answer (which runs none and would pass any bound).
    expect(ten.statements).toBeGreaterThan(0);
    expect(hundred.statements).toBe(ten.statements);
    // list + count + one batch for versions + one batch for the masters' versions
    expect(hundred.statements).toBeLessThanOrEqual(5);
  });
});
