// Search as a list of the contract, written once and run over POST /graphql and, as a live query,
// over graphql-ws and graphql-sse: typo tolerance, matched fields, orders both ways with cursors
// both ways, facets (groupBy) on any field, filters that say which types they left out, type-ahead,
// and only what the caller may read. The records are written with SQL; the search table's
// triggers index them as any write does.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { token } from '../support/auth.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface SearchEdgeSeen {
  cursor: string;
  rank: number;
  type: string;
  matchedFields: { name: string; value: string }[];
  node: { __typename: string; name: string };
}

export interface SearchSeen {
  totalCount: number;
  facets: { type: string; count: number; excludedBy: string[] }[];
  excludedTypes: { type: string; filters: string[] }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  tags: { key: string | null; count: number }[];
  owners: { key: string | null; count: number }[];
  severities: { key: string | null; count: number }[];
  edges: SearchEdgeSeen[];
}

export interface AutocompleteSeen {
  query: string;
  suggestions: { text: string; type: string; node: { __typename: string } | null }[];
}

export interface SearchDriver {
  search(variables: Record<string, unknown>, bearer: string): Promise<Outcome<SearchSeen>>;
  autocomplete(variables: Record<string, unknown>, bearer: string): Promise<Outcome<AutocompleteSeen>>;
}

const names = (found: SearchSeen) => found.edges.map((edge) => `${edge.node.__typename}:${edge.node.name}`);

export function searchScenarios(ctx: SuiteContext<SearchDriver>): void {
  let admin: string;
  let viewer: string;
  const search = async (variables: Record<string, unknown>, bearer = admin) => expectOk(await ctx.driver.search(variables, bearer));

  beforeAll(async () => {
    admin = await token({ roles: ['admin'] });
    viewer = await token({ roles: ['viewer'] });
    await ctx.gw.sql(`
      INSERT INTO query_templates (template_id, template_name, query, query_type, created_by, updated_by) VALUES
        ('payments_daily', 'Payments daily', 'SELECT amount FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}', 'sql', 'alice', 'alice'),
        ('refund_totals', 'Refund totals', 'SELECT count(*) FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} LIMIT {{LIMIT}}', 'sql', 'bob', 'bob')`);
    await ctx.gw.sql(`
      INSERT INTO alert_rules (id, name, manager, description, metric, operator, thresholds, expression, category, severity, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by) VALUES
        (gen_random_uuid(), 'Payments lag', 'embedded', 'Fires when the payments pipeline falls behind its ingestion by more than five minutes', 'up', 'gt', ARRAY[1]::float8[], 'up > 1', 'ingest', 'critical', 60000, 0, '{"team":"finance"}', 'alice', 'alice'),
        (gen_random_uuid(), 'Payments drop', 'embedded', 'Fires when payments stop arriving', 'up', 'gt', ARRAY[1]::float8[], 'up > 1', 'ingest', 'warning', 60000, 0, '{}', 'bob', 'bob')`);
    await ctx.gw.sql(`
      INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, created_by, updated_by) VALUES
        ('payments-raw', 'live', 'Payments raw', 'event', 'Live', ARRAY['finance'], 'k',
         '{"type":"object","properties":{"customer":{"type":"object","properties":{"email":{"type":"string"}}},"amount":{"type":"number"}}}', '{}', '[]', '[]', 'alice', 'alice')`);
  });

  describe('typo tolerance and highlights', () => {
    it('finds "payments" records for "paymnets", ranked below what the query finds as typed, and says where each matched', async () => {
      const typo = await search({ q: 'paymnets' });
      expect(names(typo).sort()).toEqual(['AlertRule:Payments drop', 'AlertRule:Payments lag', 'Dataset:Payments raw', 'QueryTemplate:Payments daily']);
      const template = typo.edges.find((edge) => edge.node.name === 'Payments daily')!;
      expect(template.matchedFields).toEqual([
        { name: 'NAME', value: 'Payments daily' },
        { name: 'ID', value: 'payments_daily' },
      ]);
      const rule = typo.edges.find((edge) => edge.node.name === 'Payments lag')!;
      expect(rule.matchedFields).toEqual([
        { name: 'NAME', value: 'Payments lag' },
        { name: 'DESCRIPTION', value: 'Fires when the payments pipeline falls behind its ingestion by more than five minutes up' },
      ]);
      // As typed, the same records rank higher than through the typo.
      const exact = await search({ q: 'payments' });
      expect(Math.min(...exact.edges.map((edge) => edge.rank))).toBeGreaterThan(Math.max(...typo.edges.map((edge) => edge.rank)));
    });

    it('highlights a field path of a data schema, and finds nothing for a word like no indexed word', async () => {
      const found = await search({ q: 'email', types: ['DATASET'] });
      expect(found.edges.map((edge) => edge.matchedFields)).toEqual([[{ name: 'FIELD', value: 'customer.email' }]]);
      expect((await search({ q: 'xylophone' })).totalCount).toBe(0);
    });
  });

  describe('order and cursors, both ways', () => {
    it('orders by name both ways, and pages forward with after and backward with last/before to the same records', async () => {
      const ascending = await search({ q: 'payments', orderBy: [{ field: 'NAME', direction: 'ASC' }] });
      expect(names(ascending)).toEqual(['QueryTemplate:Payments daily', 'AlertRule:Payments drop', 'AlertRule:Payments lag', 'Dataset:Payments raw']);
      const descending = await search({ q: 'payments', orderBy: [{ field: 'NAME', direction: 'DESC' }] });
      expect(names(descending)).toEqual([...names(ascending)].reverse());

      const first = await search({ q: 'payments', orderBy: [{ field: 'NAME' }], first: 2 });
      const rest = await search({ q: 'payments', orderBy: [{ field: 'NAME' }], first: 10, after: first.pageInfo.endCursor });
      expect([...names(first), ...names(rest)]).toEqual(names(ascending));
      expect({ first: first.pageInfo.hasNextPage, restNext: rest.pageInfo.hasNextPage, restPrevious: rest.pageInfo.hasPreviousPage }).toEqual({ first: true, restNext: false, restPrevious: true });

      const last = await search({ q: 'payments', orderBy: [{ field: 'NAME' }], last: 2 });
      expect(names(last)).toEqual(names(ascending).slice(-2));
      const before = await search({ q: 'payments', orderBy: [{ field: 'NAME' }], last: 10, before: last.pageInfo.startCursor });
      expect([...names(before), ...names(last)]).toEqual(names(ascending));
      expect({ lastPrevious: last.pageInfo.hasPreviousPage, beforePrevious: before.pageInfo.hasPreviousPage, beforeNext: before.pageInfo.hasNextPage }).toEqual({
        lastPrevious: true,
        beforePrevious: false,
        beforeNext: true,
      });
    });

    it('orders by relevance, best first by default and worst first when asked ascending', async () => {
      const best = await search({ q: 'payments' });
      const worst = await search({ q: 'payments', orderBy: [{ field: 'RELEVANCE', direction: 'ASC' }] });
      const ranks = best.edges.map((edge) => edge.rank);
      expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
      expect(worst.edges.map((edge) => edge.rank)).toEqual([...ranks].reverse());
    });

    it('refuses a cursor of another order with SEARCH_CURSOR_INVALID, and first with last with SEARCH_INVALID_INPUT', async () => {
      const byName = await search({ q: 'payments', orderBy: [{ field: 'NAME' }], first: 1 });
      expectFailure(await ctx.driver.search({ q: 'payments', first: 1, after: byName.pageInfo.endCursor }, admin), 'SEARCH_CURSOR_INVALID', /other words, types, filters or order/);
      expectFailure(await ctx.driver.search({ q: 'payments', first: 1, last: 1 }, admin), 'SEARCH_INVALID_INPUT', /first and last/);
    });
  });

  describe('facets and filters', () => {
    it('counts the match by tag, owner and severity (groupBy), as SQL counts the records', async () => {
      const found = await search({ q: 'payments' });
      expect(found.owners).toEqual([
        { key: 'alice', count: 3 },
        { key: 'bob', count: 1 },
      ]);
      expect(found.severities).toEqual([
        { key: null, count: 2 },
        { key: 'CRITICAL', count: 1 },
        { key: 'WARNING', count: 1 },
      ]);
      expect(found.tags.find((group) => group.key === 'finance')).toEqual({ key: 'finance', count: 1 });
      const counted = await ctx.gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM search_documents, unnest(tags) AS tag WHERE tag = 'sql' AND name ILIKE '%payments%'`);
      expect(found.tags.find((group) => group.key === 'sql')?.count).toBe(counted.rows[0]!.n);
    });

    it('leaves out the types a status filter cannot apply to, and says so in excludedTypes and the facets, rather than dropping them silently', async () => {
      const found = await search({ q: 'payments', where: { status: { eq: 'LIVE' } } });
      expect(found.excludedTypes).toEqual([{ type: 'QUERY_TEMPLATE', filters: ['STATUS'] }]);
      expect(found.facets.find((facet) => facet.type === 'QUERY_TEMPLATE')).toEqual({ type: 'QUERY_TEMPLATE', count: 0, excludedBy: ['STATUS'] });
      expect(found.facets.find((facet) => facet.type === 'DATASET')).toEqual({ type: 'DATASET', count: 1, excludedBy: [] });
      // Named in types, the same: left out and said so.
      const named = await search({ q: 'payments', types: ['QUERY_TEMPLATE'], where: { status: { eq: 'LIVE' } } });
      expect({ total: named.totalCount, edges: named.edges, excluded: named.excludedTypes }).toEqual({ total: 0, edges: [], excluded: [{ type: 'QUERY_TEMPLATE', filters: ['STATUS'] }] });
    });

    it('filters by severity (alert rules only) and by owner', async () => {
      const critical = await search({ q: 'payments', where: { severity: { eq: 'CRITICAL' } } });
      expect(names(critical)).toEqual(['AlertRule:Payments lag']);
      expect(critical.excludedTypes.map((excluded) => excluded.type).sort()).toEqual(['CONNECTOR', 'DATASET', 'NOTIFICATION_CHANNEL', 'QUERY_TEMPLATE']);
      const bobs = await search({ q: 'payments', where: { owner: { eq: 'bob' } } });
      expect({ names: names(bobs), excluded: bobs.excludedTypes }).toEqual({ names: ['AlertRule:Payments drop'], excluded: [] });
    });
  });

  describe('autocomplete', () => {
    it('suggests records whose name starts with the text typed, shortest first, and finds them through a typo too', async () => {
      const typed = expectOk(await ctx.driver.autocomplete({ q: 'pay' }, admin));
      expect(typed.suggestions.map((suggestion) => suggestion.text)).toEqual(['Payments lag', 'Payments raw', 'Payments drop', 'Payments daily']);
      expect(typed.suggestions.map((suggestion) => suggestion.node?.__typename)).toEqual(['AlertRule', 'Dataset', 'AlertRule', 'QueryTemplate']);
      // The last word as it is being typed ("dr"; alert rule ids are UUIDs, whose words hold no "r").
      expect(expectOk(await ctx.driver.autocomplete({ q: 'Payments dr' }, admin)).suggestions.map((suggestion) => suggestion.text)).toEqual(['Payments drop']);
      const typo = expectOk(await ctx.driver.autocomplete({ q: 'paymnets', types: ['QUERY_TEMPLATE'] }, admin));
      expect(typo.suggestions.map((suggestion) => suggestion.text)).toEqual(['Payments daily']);
      expectFailure(await ctx.driver.autocomplete({ q: 'pay', first: 21 }, admin), 'SEARCH_INVALID_INPUT', /first must be an integer from 1 to 20/);
    });
  });

  describe('access', () => {
    it('finds and suggests only what the caller may read: a viewer gets no query templates, and no facet of them', async () => {
      const found = await search({ q: 'payments' }, viewer);
      expect(names(found).filter((name) => name.startsWith('QueryTemplate:'))).toEqual([]);
      expect(names(found).length).toBe(3);
      expect(found.facets.map((facet) => facet.type)).not.toContain('QUERY_TEMPLATE');
      expect(found.owners).toEqual([
        { key: 'alice', count: 2 },
        { key: 'bob', count: 1 },
      ]);
      const suggested = expectOk(await ctx.driver.autocomplete({ q: 'payments' }, viewer));
      expect(suggested.suggestions.map((suggestion) => suggestion.type).sort()).toEqual(['ALERT_RULE', 'ALERT_RULE', 'DATASET']);
    });

    it('refuses a caller who may read none of the types with FORBIDDEN', async () => {
      const ingestor = await token({ roles: ['ingestor'] });
      expectFailure(await ctx.driver.search({ q: 'payments' }, ingestor), 'FORBIDDEN');
      expectFailure(await ctx.driver.autocomplete({ q: 'payments' }, ingestor), 'FORBIDDEN');
    });
  });
}
