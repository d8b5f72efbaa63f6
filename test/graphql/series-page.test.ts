// A page of series (bench/series-page.ts times it): a page of datasets, each asking for its ingestion
// series over a relative range, is read in one range query of the metrics store, a few statements
// however long the page (it was one range query, two or three statements, per dataset).
import { beforeAll, describe, expect, it } from '@jest/globals';
import { graphql } from '../support/api.js';
import { startTestGateway, useForFile } from '../support/gateway.js';

const gwFor = useForFile(() => startTestGateway({ METRICS_SAMPLE_INTERVAL_SECONDS: '0' }));

const DATASETS = 50;
const STEP = 60;
/** Statements the series may add to the list, whatever its length: the series listed, their samples read (up to 4 at once), their chunks fetched. */
const SERIES_STATEMENTS_MAX = 6;

const PAGE = (first: number, run: number) => `query {
  datasets(first: ${first}, filter: { status: [LIVE] }, orderBy: { field: DATASET_ID, direction: ASC }) {
    nodes { datasetId ingestionSeries(last: 900, step: ${STEP}) { t eventsIn processed failed } }
  }
}
# run ${run}`;
const LIST = (first: number, run: number) => `query {
  datasets(first: ${first}, filter: { status: [LIVE] }, orderBy: { field: DATASET_ID, direction: ASC }) { nodes { datasetId } }
}
# run ${run}`;

interface PageNode {
  datasetId: string;
  ingestionSeries: { t: string; eventsIn: number; processed: number; failed: number }[];
}

let run = 0;
async function counted(query: string): Promise<{ statements: number; nodes: PageNode[] }> {
  const gw = gwFor();
  const before = gw.gateway.database.statementCount();
  const response = await graphql(gw, query);
  expect(response.errors).toBeUndefined();
  return { statements: gw.gateway.database.statementCount() - before, nodes: (response.data!.datasets as { nodes: PageNode[] }).nodes };
}

beforeAll(async () => {
  const gw = gwFor();
  await gw.sql(`
    INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version, version_key, api_version, data_schema,
                          dataset_config, transformations_config, connectors_config, denorm_config, denorm_sources, created_by, updated_by)
    SELECT 'page-' || lpad(e::text, 3, '0'), 'live', 'Page ' || e, 'event', 'Live', '{}', 1, '1', 'v2', '{"type":"object","properties":{"a":{"type":"string"}}}',
           '{"keys_config":{"timestamp_key":"ts"},"indexing_config":{}}', '[]', '[]', '{"denorm_fields":[]}', '{}', 'SYSTEM', 'SYSTEM'
    FROM generate_series(1, ${DATASETS}) e`);
  // Dataset n received n events before the first sampling and n more before the second.
  await gw.sql(`INSERT INTO ingestion_counters (dataset_id, requests, received, processed) SELECT 'page-' || lpad(e::text, 3, '0'), 1, e, e FROM generate_series(1, ${DATASETS}) e`);
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  await gw.gateway.metricsSampler!.sample(minute - 120_000);
  await gw.sql(`UPDATE ingestion_counters SET received = 2 * received, processed = 2 * processed WHERE dataset_id LIKE 'page-%'`);
  await gw.gateway.metricsSampler!.sample(minute - 60_000);
}, 120_000);

describe('a page of datasets with their ingestion series', () => {
  it('reads every series of the page in a few statements, for 50 datasets as for 5, each with its own counts', async () => {
    /** The fewest statements the series add to the list (a background job may fall within one request: asked three times). */
    const seriesStatements = async (first: number) => {
      let fewest = Infinity;
      let nodes: PageNode[] = [];
      for (let attempt = 0; attempt < 3 && fewest > SERIES_STATEMENTS_MAX; attempt += 1) {
        run += 1;
        const list = await counted(LIST(first, run));
        const page = await counted(PAGE(first, run));
        nodes = page.nodes;
        fewest = Math.min(fewest, page.statements - list.statements);
      }
      return { fewest, nodes };
    };
    const five = await seriesStatements(5);
    const fifty = await seriesStatements(DATASETS);
    // More than none: the series were read from the store for this page, not an answer kept from before.
    expect(five.fewest).toBeGreaterThan(0);
    expect(fifty.fewest).toBeGreaterThan(0);
    expect(Math.max(five.fewest, fifty.fewest)).toBeLessThanOrEqual(SERIES_STATEMENTS_MAX);
    expect(fifty.nodes).toHaveLength(DATASETS);
    for (const node of fifty.nodes) {
      const n = Number(node.datasetId.slice(-3));
      // 15 minutes at a minute's step: 16 points on the minute, and the dataset's own 2n events (not another's).
      expect(node.ingestionSeries).toHaveLength(16);
      expect(node.ingestionSeries.every((point) => Date.parse(point.t) % 60_000 === 0)).toBe(true);
      expect(node.ingestionSeries.reduce((sum, point) => sum + point.eventsIn, 0)).toBe(2 * n);
      expect(node.ingestionSeries.reduce((sum, point) => sum + point.processed, 0)).toBe(2 * n);
    }
  });

  it('answers a dataset alone as it answers it within the page', async () => {
    run += 1;
    const [page, alone] = await Promise.all([
      counted(PAGE(DATASETS, run)),
      graphql(gwFor(), `query { dataset(id: "page-007") { ingestionSeries(last: 900, step: ${STEP}) { t eventsIn processed failed } } }`),
    ]);
    expect(alone.errors).toBeUndefined();
    expect((alone.data!.dataset as PageNode).ingestionSeries).toEqual(page.nodes.find((node) => node.datasetId === 'page-007')!.ingestionSeries);
  });
});
