// Lineage, written once and run over POST /graphql and, as a live query, over graphql-ws and
// graphql-sse: both ways with a cycle (orders and users denormalise from each other), the four kinds
// of edge with their degree, a depth outside 1..5, and only what the caller may read (records of a
// hidden type are not shown and nothing is reached through them). The records are written with SQL.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { token } from '../support/auth.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface LineageSeen {
  direction: string;
  depth: number;
  nodes: { type: string; key: string; degree: number; direction: string; entity: { __typename: string; name: string } | null }[];
  edges: { kind: string; degree: number; direction: string; from: { type: string; key: string }; to: { type: string; key: string } }[];
}

export type LineageOf = 'dataset' | 'template' | 'alertRule';

/** A page of the records one holds the ids of (a dataset's denorm sources, a template's datasets, a rule's channels) and the deprecated whole list. */
export interface HeldSeen {
  page: { totalCount: number; nodes: { key: string; stage?: string; name?: string }[] };
  whole: string[];
}

/** A page of a dataset's connector instances (`connectorPage`) and the deprecated whole list (`connectors`). */
export interface ConnectorPageSeen {
  page: {
    totalCount: number;
    nodes: { instanceId: string; connectorId: string; version: string | null }[];
    pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  };
  whole: string[];
}

export interface ConnectorPageVariables {
  first?: number;
  last?: number;
  after?: string;
  before?: string;
  where?: Record<string, unknown>;
  orderBy?: { field: string; direction?: string }[];
  /** Without the deprecated list. */
  pageOnly?: boolean;
}

export interface LineageDriver {
  lineage(of: LineageOf, id: string, variables: { direction?: string; depth?: number }, bearer: string): Promise<Outcome<LineageSeen | null>>;
  /** `pageOnly`: without the deprecated list. */
  held(of: LineageOf, id: string, variables: { first?: number; where?: Record<string, unknown>; pageOnly?: boolean }, bearer: string): Promise<Outcome<HeldSeen | null>>;
  connectorPage(id: string, variables: ConnectorPageVariables, bearer: string): Promise<Outcome<ConnectorPageSeen | null>>;
  /** The deprecated whole list of a dataset's connector instances (`connectors`), by instance id. */
  connectorList(id: string, bearer: string): Promise<Outcome<string[] | null>>;
}

const RULE_ID = '00000000-0000-4000-8000-00000000e001';
const CHANNEL_ID = '00000000-0000-4000-8000-00000000c001';
const DELETED_CHANNEL_ID = '00000000-0000-4000-8000-00000000c002';
const KAFKA = 'kafka-connector-1.0.0';

const nodesOf = (seen: LineageSeen) => seen.nodes.map((node) => `${node.direction} ${node.degree} ${node.type}:${node.key}`).sort();
const edgesOf = (seen: LineageSeen) => seen.edges.map((edge) => `${edge.direction} ${edge.degree} ${edge.kind} ${edge.from.key}->${edge.to.key}`).sort();

export function lineageScenarios(ctx: SuiteContext<LineageDriver>): void {
  let admin: string;
  let viewer: string;
  let ruleWatcher: string;
  let datasetReader: string;
  const lineage = async (of: LineageOf, id: string, variables: { direction?: string; depth?: number }, bearer = admin) => {
    const seen = expectOk(await ctx.driver.lineage(of, id, variables, bearer));
    if (!seen) throw new Error(`${of} ${id} was not found`);
    return seen;
  };

  beforeAll(async () => {
    admin = await token({ roles: ['admin'] });
    viewer = await token({ roles: ['viewer'] });
    ruleWatcher = await token({ roles: ['rule_watcher'] });
    datasetReader = await token({ roles: ['dataset_reader'] });
    // orders is fed by Kafka and denormalises from users; users denormalises from orders (a cycle);
    // enriched denormalises from orders; a template reads orders and a rule watches it.
    await ctx.gw.sql(`
      INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by)
      SELECT id, 'live', name, 'event', 'Live', '{}', 'k', '{"type":"object","properties":{"a":{"type":"string"}}}', '{}', '[]', connectors::json, sources, 'alice', 'alice'
      FROM (VALUES
        ('orders', 'Orders', '[{"id":"in-1","connector_id":"${KAFKA}","connector_config":{}}]', ARRAY['users']),
        ('users', 'Users', '[]', ARRAY['orders']),
        ('enriched', 'Enriched orders', '[]', ARRAY['orders']),
        ('archive', 'Archive', '[]', '{}'::text[]),
        ('feeds', 'Feeds', '[{"id":"in-b","connector_id":"http-pull-1.0.0","version":"1.0.0","connector_config":{}},{"id":"in-a","connector_id":"${KAFKA}","connector_config":{}},{"id":"in-c","connector_id":"${KAFKA}","version":"2.0.0","connector_config":{}}]', '{}'::text[])
      ) AS v(id, name, connectors, sources)`);
    await ctx.gw.sql(`
      INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES
        ('orders_daily', 'Orders daily', 'SELECT count(*) FROM orders WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}', 'sql', 'alice', 'alice')`);
    // Outside the lineage of the others: a draft that was never published, read with archive by a second template.
    await ctx.gw.sql(`
      INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by)
      VALUES ('sketch', 'draft', 'Sketch', 'event', 'Draft', '{}', 'k', '{"type":"object"}', '{}', '[]', '[]', '{}', 'alice', 'alice')`);
    await ctx.gw.sql(`
      INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES
        ('archive_vs_sketch', 'Archive against the sketch', 'SELECT count(*) FROM archive, sketch WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}', 'sql', 'alice', 'alice')`);
    await ctx.gw.sql(`
      INSERT INTO notification_channels (id, manager, name, type, status, config, created_by, updated_by) VALUES
        ('${CHANNEL_ID}', 'embedded', 'On call', 'email', 'live', '{"recipientAddresses":"ops@example.com"}', 'alice', 'alice')`);
    // The rule notifies the channel and one deleted since.
    await ctx.gw.sql(`
      INSERT INTO alert_rules (id, name, manager, metric, operator, thresholds, expression, category, evaluation_interval_ms, pending_for_ms, labels, channel_ids, created_by, updated_by) VALUES
        ('${RULE_ID}', 'Orders lag', 'embedded', 'up', 'gt', ARRAY[1]::float8[], 'up > 1', 'ingest', 60000, 0, '{"dataset":"orders"}', ARRAY['${CHANNEL_ID}', '${DELETED_CHANNEL_ID}']::uuid[], 'alice', 'alice')`);
  });

  describe('both ways, with a cycle', () => {
    it('goes downstream to what denormalises from, reads and watches a dataset, and stops where the cycle comes back', async () => {
      const seen = await lineage('dataset', 'orders', { direction: 'DOWNSTREAM', depth: 2 });
      expect(nodesOf(seen)).toEqual(['DOWNSTREAM 1 AlertRule:' + RULE_ID, 'DOWNSTREAM 1 Dataset:enriched', 'DOWNSTREAM 1 Dataset:users', 'DOWNSTREAM 1 QueryTemplate:orders_daily']);
      expect(edgesOf(seen)).toEqual([
        'DOWNSTREAM 1 DENORM_SOURCE orders->enriched',
        'DOWNSTREAM 1 DENORM_SOURCE orders->users',
        'DOWNSTREAM 1 RULE_WATCHES orders->' + RULE_ID,
        'DOWNSTREAM 1 TEMPLATE_READS orders->orders_daily',
        // users feeds orders back: the edge is shown, orders is not visited again.
        'DOWNSTREAM 2 DENORM_SOURCE users->orders',
      ]);
      const names = Object.fromEntries(seen.nodes.map((node) => [node.key, node.entity && `${node.entity.__typename}:${node.entity.name}`]));
      expect(names).toEqual({ users: 'Dataset:Users', enriched: 'Dataset:Enriched orders', orders_daily: 'QueryTemplate:Orders daily', [RULE_ID]: 'AlertRule:Orders lag' });
    });

    it("goes upstream from a template to the dataset it reads, then to that dataset's connector and denorm source, each at its degree", async () => {
      const seen = await lineage('template', 'orders_daily', { direction: 'UPSTREAM', depth: 5 });
      expect(nodesOf(seen)).toEqual([`UPSTREAM 1 Dataset:orders`, `UPSTREAM 2 Connector:${KAFKA}`, 'UPSTREAM 2 Dataset:users']);
      expect(edgesOf(seen)).toEqual([
        `UPSTREAM 1 TEMPLATE_READS orders->orders_daily`,
        `UPSTREAM 2 CONNECTOR_FEEDS ${KAFKA}->orders`,
        'UPSTREAM 2 DENORM_SOURCE users->orders',
        // orders denormalises users: back to a record already reached, and the walk ends there.
        'UPSTREAM 3 DENORM_SOURCE orders->users',
      ]);
      expect(seen.nodes.find((node) => node.type === 'Connector')?.entity?.__typename).toBe('Connector');
    });

    it('goes both ways from one dataset, each way on its own, a record reached both ways listed once per way', async () => {
      const seen = await lineage('dataset', 'orders', { direction: 'BOTH', depth: 1 });
      expect(seen).toMatchObject({ direction: 'BOTH', depth: 1 });
      expect(nodesOf(seen)).toEqual([
        'DOWNSTREAM 1 AlertRule:' + RULE_ID,
        'DOWNSTREAM 1 Dataset:enriched',
        'DOWNSTREAM 1 Dataset:users',
        'DOWNSTREAM 1 QueryTemplate:orders_daily',
        `UPSTREAM 1 Connector:${KAFKA}`,
        'UPSTREAM 1 Dataset:users',
      ]);
    });

    it('goes upstream from an alert rule to the dataset it watches', async () => {
      const seen = await lineage('alertRule', RULE_ID, { direction: 'UPSTREAM' });
      expect(seen.depth).toBe(1);
      expect(edgesOf(seen)).toEqual([`UPSTREAM 1 RULE_WATCHES orders->${RULE_ID}`]);
    });
  });

  describe('depth', () => {
    it.each([0, 6, -1])('refuses depth %i with LINEAGE_INVALID_INPUT naming the bounds', async (depth) => {
      expectFailure(await ctx.driver.lineage('dataset', 'orders', { depth }, admin), 'LINEAGE_INVALID_INPUT', new RegExp(`depth must be an integer from 1 to 5; ${depth} was given`));
    });
  });

  describe('pages of the records one holds the ids of', () => {
    const held = async (of: LineageOf, id: string, variables: { first?: number; where?: Record<string, unknown> } = {}, bearer = admin) => {
      const seen = expectOk(await ctx.driver.held(of, id, variables, bearer));
      if (!seen) throw new Error(`${of} ${id} was not found`);
      return seen;
    };

    it("pages a dataset's denorm sources (Live versions only) as the deprecated list has them, filtered by the dataset list's where", async () => {
      expect(await held('dataset', 'orders')).toEqual({ page: { totalCount: 1, nodes: [{ key: 'users', stage: 'LIVE' }] }, whole: ['users'] });
      expect(await held('dataset', 'orders', { where: { name: { eq: 'Users' } } })).toMatchObject({ page: { totalCount: 1 } });
      expect(await held('dataset', 'orders', { where: { name: { eq: 'Enriched orders' } } })).toMatchObject({ page: { totalCount: 0, nodes: [] } });
    });

    it("pages the datasets a template's query names: of each its Live version, else its draft, a page at a time with the total", async () => {
      const both = await held('template', 'archive_vs_sketch');
      expect({ ...both, page: { ...both.page, nodes: [...both.page.nodes].sort((a, b) => a.key.localeCompare(b.key)) } }).toEqual({
        page: {
          totalCount: 2,
          nodes: [
            { key: 'archive', stage: 'LIVE' },
            { key: 'sketch', stage: 'DRAFT' },
          ],
        },
        whole: expect.arrayContaining(['archive', 'sketch']),
      });
      expect((await held('template', 'archive_vs_sketch', { first: 1 })).page).toMatchObject({ totalCount: 2, nodes: [expect.objectContaining({ key: expect.any(String) })] });
    });

    it("pages a rule's channels that still exist, as the deprecated list has them", async () => {
      expect(await held('alertRule', RULE_ID)).toEqual({ page: { totalCount: 1, nodes: [{ key: CHANNEL_ID, name: 'On call' }] }, whole: [CHANNEL_ID] });
    });

    it("refuses a viewer, who may not read channels, a rule's channel page as it refuses the rule's channels", async () => {
      expectFailure(await ctx.driver.held('alertRule', RULE_ID, { pageOnly: true }, viewer), 'FORBIDDEN', /api\.alert\.notification\.(get|list)/);
      expectFailure(await ctx.driver.held('alertRule', RULE_ID, {}, viewer), 'FORBIDDEN', /api\.alert\.notification\.(get|list)/);
    });

    it("refuses a page size outside the list's bounds with the list's code, naming the bounds", async () => {
      expectFailure(await ctx.driver.held('dataset', 'orders', { first: -1 }, admin), 'DATASET_LIST_INPUT_INVALID', /the page size must be an integer from 0 to \d+ \(got -1\)/);
    });
  });

  describe("a dataset's connector instances, a page at a time", () => {
    const connectorPage = async (variables: ConnectorPageVariables = {}, bearer = admin) => {
      const seen = expectOk(await ctx.driver.connectorPage('feeds', variables, bearer));
      if (!seen) throw new Error('feeds was not found');
      return seen;
    };
    const ids = (seen: ConnectorPageSeen) => seen.page.nodes.map((node) => node.instanceId);

    it('pages the instances of the definition by instance id, with the total, as the deprecated list has them', async () => {
      const seen = await connectorPage();
      expect(seen.whole).toEqual(['in-b', 'in-a', 'in-c']);
      expect(seen.page).toMatchObject({
        totalCount: 3,
        nodes: [
          { instanceId: 'in-a', connectorId: KAFKA, version: null },
          { instanceId: 'in-b', connectorId: 'http-pull-1.0.0', version: '1.0.0' },
          { instanceId: 'in-c', connectorId: KAFKA, version: '2.0.0' },
        ],
        pageInfo: { hasNextPage: false, hasPreviousPage: false },
      });
    });

    it("filters by the connector, the version's absence and a negation, and orders by the connector", async () => {
      expect(ids(await connectorPage({ where: { connectorId: { eq: KAFKA } } }))).toEqual(['in-a', 'in-c']);
      expect(ids(await connectorPage({ where: { version: { isNull: true } } }))).toEqual(['in-a']);
      expect(await connectorPage({ where: { _not: { connectorId: { contains: 'HTTP' } } }, pageOnly: true })).toMatchObject({ page: { totalCount: 2 } });
      expect(ids(await connectorPage({ orderBy: [{ field: 'CONNECTOR_ID', direction: 'DESC' }] }))).toEqual(['in-a', 'in-c', 'in-b']);
    });

    it('walks forward and back by cursors, the total over all pages', async () => {
      const first = await connectorPage({ first: 2 });
      expect({ ids: ids(first), totalCount: first.page.totalCount, next: first.page.pageInfo.hasNextPage }).toEqual({ ids: ['in-a', 'in-b'], totalCount: 3, next: true });
      const rest = await connectorPage({ first: 2, after: first.page.pageInfo.endCursor! });
      expect({ ids: ids(rest), next: rest.page.pageInfo.hasNextPage, previous: rest.page.pageInfo.hasPreviousPage }).toEqual({ ids: ['in-c'], next: false, previous: true });
      expect(ids(await connectorPage({ last: 1, before: rest.page.pageInfo.startCursor! }))).toEqual(['in-b']);
    });

    it("refuses a cursor of another order, a bad page size and an operator a field has not, with the dataset list's code", async () => {
      const { page } = await connectorPage({ first: 1 });
      const otherOrder = await ctx.driver.connectorPage('feeds', { after: page.pageInfo.endCursor!, orderBy: [{ field: 'CONNECTOR_ID' }], pageOnly: true }, admin);
      expectFailure(otherOrder, 'DATASET_LIST_INPUT_INVALID', /after: .* is not a cursor of this list \(it was made for another orderBy\)/);
      expectFailure(await ctx.driver.connectorPage('feeds', { first: -1, pageOnly: true }, admin), 'DATASET_LIST_INPUT_INVALID', /the page size must be an integer from 0 to \d+ \(got -1\)/);
      expectFailure(
        await ctx.driver.connectorPage('feeds', { where: { instanceId: { isNull: true } }, pageOnly: true }, admin),
        'DATASET_LIST_INPUT_INVALID',
        /where\.instanceId\.isNull: not an operator of this field/,
      );
    });

    it('refuses a caller who may read datasets but not connectors the page, as the connectors list refuses them; the deprecated list still answers', async () => {
      expectFailure(await ctx.driver.connectorPage('feeds', { pageOnly: true }, datasetReader), 'FORBIDDEN', /api\.connectors\.(read|list)/);
      expect(expectOk(await ctx.driver.connectorList('feeds', datasetReader))).toEqual(['in-b', 'in-a', 'in-c']);
    });
  });

  describe("the caller's access", () => {
    it('shows a viewer, who may not read templates, the datasets and rules but no template and no edge to one', async () => {
      const seen = await lineage('dataset', 'orders', { direction: 'DOWNSTREAM', depth: 2 }, viewer);
      expect(nodesOf(seen)).toEqual(['DOWNSTREAM 1 AlertRule:' + RULE_ID, 'DOWNSTREAM 1 Dataset:enriched', 'DOWNSTREAM 1 Dataset:users']);
      expect(edgesOf(seen).filter((edge) => edge.includes('TEMPLATE_READS'))).toEqual([]);
    });

    it('does not traverse through a record the caller may not read: a rule watcher sees neither the dataset nor the connector behind it', async () => {
      const seen = await lineage('alertRule', RULE_ID, { direction: 'UPSTREAM', depth: 3 }, ruleWatcher);
      expect({ nodes: seen.nodes, edges: seen.edges }).toEqual({ nodes: [], edges: [] });
      // The same walk for an admin reaches the connector through orders.
      const full = await lineage('alertRule', RULE_ID, { direction: 'UPSTREAM', depth: 3 });
      expect(nodesOf(full)).toContain(`UPSTREAM 2 Connector:${KAFKA}`);
    });
  });
}
