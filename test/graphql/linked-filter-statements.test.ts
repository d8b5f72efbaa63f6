// A page of 50 datasets filtered and ordered through their links (tags, their alert rules' severity,
// their ingestion counters), with each dataset's rules and templates as nested connections and the
// counts: a constant number of SQL statements, however long the page (issue 49).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
  // 120 Live datasets tagged "ops", each with counters, one critical rule and one template naming it.
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by)
    SELECT 'lfs_' || lpad(e::text, 3, '0'), 'live', 'Linked ' || e, 'event', 'Live', ARRAY['ops'], 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u' FROM generate_series(1, 120) e`);
  await gw.sql(`INSERT INTO ingestion_counters (dataset_id, requests, received, processed, duplicates, failed, rejected_requests)
    SELECT 'lfs_' || lpad(e::text, 3, '0'), 1, e * 10, e * 9, 0, e % 13, 0 FROM generate_series(1, 120) e`);
  await gw.sql(`
    INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by)
    SELECT md5('lfs-rule' || e)::uuid, 'lfs rule ' || e, 'embedded', 'draft', 'm', 'gt', '{1}', 'm > 1', 'critical', 'c', 60000, 0,
           json_build_object('dataset', 'lfs_' || lpad(e::text, 3, '0')), 'u', 'u' FROM generate_series(1, 120) e`);
  await gw.sql(`
    INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by)
    SELECT 'lfs_t' || e, 'lfs ' || e, 'SELECT COUNT(*) FROM "lfs_' || lpad(e::text, 3, '0') || '" WHERE {{STARTDATE}}', 'sql', 'u', 'u' FROM generate_series(1, 120) e`);
});
afterAll(async () => {
  await gw?.stop();
});

const PAGE = `query ($first: Int!) {
  datasets(first: $first, where: { tags: { eq: "ops" }, alertSeverities: { eq: CRITICAL }, ingestionFailed: { gte: 1 }, name: { startsWith: "L" } },
           orderBy: [{ field: INGESTION_FAILED, direction: DESC }]) {
    totalCount
    nodes {
      datasetId
      alertRulePage(first: 5) { totalCount nodes { alertRuleId severity } }
      templatePage(first: 5) { nodes { templateId } }
    }
  }
}`;

/** Statements of one executed page (the fewest of three askings: a background job may send one meanwhile). */
async function statementsOf(first: number): Promise<{ statements: number; nodes: { datasetId: string; alertRulePage: { totalCount: number } }[]; totalCount: number }> {
  let fewest: Awaited<ReturnType<typeof statementsOf>> | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const before = gw.gateway.database.statementCount();
    const response = await graphql<{ datasets: { totalCount: number; nodes: { datasetId: string; alertRulePage: { totalCount: number } }[] } }>(gw, PAGE, { first });
    expect(response.errors).toBeUndefined();
    const statements = gw.gateway.database.statementCount() - before;
    if (statements > 0 && (!fewest || statements < fewest.statements)) fewest = { statements, nodes: response.data!.datasets.nodes, totalCount: response.data!.datasets.totalCount };
  }
  return fewest!;
}

/** The page, its count, each nested page and its count: at most this many, for 5 datasets as for 50. */
const MOST_STATEMENTS = 6;

it(`answers a page of 50 datasets filtered through their links, with their rules and templates, in at most ${MOST_STATEMENTS} statements, as a page of 5`, async () => {
  const five = await statementsOf(5);
  const fifty = await statementsOf(50);
  // 120 datasets, those with failed % 13 >= 1: 120 less the 9 with e % 13 = 0.
  expect({ five: five.nodes.length, fifty: fifty.nodes.length, totalCount: fifty.totalCount }).toEqual({ five: 5, fifty: 50, totalCount: 111 });
  expect(fifty.nodes.every((node) => node.alertRulePage.totalCount === 1)).toBe(true);
  expect({ five: five.statements <= MOST_STATEMENTS, fifty: fifty.statements <= MOST_STATEMENTS, fiftyStatements: fifty.statements }).toEqual({
    five: true,
    fifty: true,
    fiftyStatements: expect.any(Number),
  });
  // Printed for the report: the statements a page of 50 costs.
  console.log(`linked-filter page: 5 datasets ${five.statements} statements, 50 datasets ${fifty.statements} statements`);
});

it('drops a kept answer filtered by its rules’ severity when a rule changes, though no dataset did (its answer is made of alert_rules too)', async () => {
  const query = '{ datasets(first: 200, where: { alertSeverities: { eq: WARNING }, tags: { eq: "ops" } }) { totalCount } }';
  const before = await graphql<{ datasets: { totalCount: number } }>(gw, query);
  expect(before.data?.datasets.totalCount).toBe(0);
  // Asked again, unchanged: the same answer (kept or not).
  expect((await graphql<{ datasets: { totalCount: number } }>(gw, query)).data?.datasets.totalCount).toBe(0);
  await gw.sql(`UPDATE alert_rules SET severity = 'warning' WHERE id = md5('lfs-rule1')::uuid`);
  expect((await graphql<{ datasets: { totalCount: number } }>(gw, query)).data?.datasets.totalCount).toBe(1);
});
