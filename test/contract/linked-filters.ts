// Filters and orders through links and figures (issue 49), written once and run over POST /graphql
// and, as a live query, over graphql-ws and graphql-sse: datasets by their tags, the severity and
// state of their alert rules and their ingestion counters; connectors by type; `neq`, `nin`,
// `isNull`, and `contains`/`startsWith` from 1 character. Bad input is refused naming what is wrong,
// and a filter through a link admits only a caller who may read what it reaches. Rows are written with SQL.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { token } from '../support/auth.js';
import type { GraphQueryCall } from './drivers/graph-query.js';
import { expectFailure, expectOk, type SuiteContext } from './harness.js';

export interface ListDriver {
  datasets(variables: Record<string, unknown>, bearer: string): Promise<ReturnType<GraphQueryCall> extends Promise<infer O> ? O : never>;
  connectors(variables: Record<string, unknown>, bearer: string): Promise<ReturnType<GraphQueryCall> extends Promise<infer O> ? O : never>;
  search(variables: Record<string, unknown>, bearer: string): Promise<ReturnType<GraphQueryCall> extends Promise<infer O> ? O : never>;
  /** The datasets' figures: their count, and the sum of their failed events when `failed` is set. */
  datasetFigures(variables: Record<string, unknown>, bearer: string, failed: boolean): Promise<ReturnType<GraphQueryCall> extends Promise<infer O> ? O : never>;
}

/** The suite's driver over one transport's call. */
export function listDriver(call: GraphQueryCall): ListDriver {
  return {
    datasets: (variables, bearer) =>
      call(
        'datasets',
        '$where: DatasetWhere, $orderBy: [DatasetOrder!], $first: Int',
        'datasets(where: $where, orderBy: $orderBy, first: $first) { totalCount edges { node { datasetId } } }',
        variables,
        bearer,
      ),
    connectors: (variables, bearer) =>
      call('connectors', '$where: ConnectorWhere, $first: Int', 'connectors(where: $where, first: $first) { totalCount edges { node { connectorVersionId } } }', variables, bearer),
    search: (variables, bearer) => call('search', '$q: String!, $where: SearchWhere', 'search(query: $q, where: $where) { totalCount }', variables, bearer),
    datasetFigures: (variables, bearer, failed) =>
      call('datasets', '$where: DatasetWhere', `datasets(where: $where, first: 0) { aggregate { count${failed ? ' sum { ingestionFailed }' : ''} } }`, variables, bearer),
  };
}

/** A role that may list datasets and nothing else (the suite's permissions file adds it). */
export const DATASET_LISTER_ROLE = 'dataset_lister';

type Page = { totalCount: number; edges: { node: Record<string, string> }[] };
const ids = (page: Page, key = 'datasetId') => page.edges.map((edge) => edge.node[key]).sort();

// Four Live datasets: lf_a (tags finance, pii; a critical Live rule, firing; 5 failed of 40), lf_b
// (tag Finance; a warning Draft rule; 0 failed of 10), lf_c (no tags; no rule; no counters), lf_d
// (tags NULL; alias lf-alias; 2 failed of 2).
const SEED = [
  `INSERT INTO datasets (dataset_id, stage, name, type, status, tags, version_key, data_schema, dataset_config, transformations_config, connectors_config, denorm_sources, created_by, updated_by, alias)
   VALUES ('lf_a', 'live', 'Payments', 'event', 'Live', ARRAY['finance','pii'], 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', NULL),
          ('lf_b', 'live', 'Orders', 'event', 'Live', ARRAY['Finance'], 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', NULL),
          ('lf_c', 'live', 'Parcels', 'event', 'Live', '{}', 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', NULL),
          ('lf_d', 'live', 'Devices', 'master', 'Live', NULL, 'k', '{}', '{}', '[]', '[]', '{}', 'u', 'u', 'lf-alias')`,
  `INSERT INTO alert_rules (id, name, manager, status, metric, operator, thresholds, expression, severity, category, evaluation_interval_ms, pending_for_ms, labels, context, created_by, updated_by)
   VALUES ('7a0e0000-0000-4000-8000-000000000001', 'Payments failing', 'embedded', 'live', 'm', 'gt', '{1}', 'm > 1', 'critical', 'c', 60000, 0, '{"dataset":"lf_a"}', '{}', 'u', 'u'),
          ('7a0e0000-0000-4000-8000-000000000002', 'Orders slow', 'embedded', 'draft', 'm', 'gt', '{1}', 'm > 1', 'warning', 'c', 60000, 0, '{}', '{"datasetId":"lf_b"}', 'u', 'u')`,
  `INSERT INTO alert_rule_states (rule_id, state, next_evaluation_at) VALUES ('7a0e0000-0000-4000-8000-000000000001', 'firing', now() + interval '1 hour')`,
  `INSERT INTO ingestion_counters (dataset_id, requests, received, processed, duplicates, failed, rejected_requests)
   VALUES ('lf_a', 4, 40, 35, 0, 5, 0), ('lf_b', 1, 10, 10, 0, 0, 0), ('lf_d', 1, 2, 0, 0, 2, 0)`,
  `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by)
   VALUES ('lf-kafka-1.0.0', 'lf-kafka', 'Kafka', 'source', 'Stream', '1.0.0', 'scala', 'spark', 'Live', '{}', 'u', 'u'),
          ('lf-sink-1.0.0', 'lf-sink', 'Lake sink', 'sink', 'File', '1.0.0', 'python', 'spark', 'Live', '{}', 'u', 'u')`,
];

export function linkedFilterScenarios(context: SuiteContext<ListDriver>): void {
  let admin: string;
  beforeAll(async () => {
    for (const statement of SEED) await context.gw.sql(statement);
    admin = await token();
  });
  const datasets = async (where: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    expectOk(await context.driver.datasets({ where: { _and: [{ datasetId: { in: ['lf_a', 'lf_b', 'lf_c', 'lf_d'] } }, where] }, ...extra }, admin)) as Page;

  describe('datasets by their tags (a set: holds, holds one of, holds none of, holds nothing)', () => {
    it('finds the datasets holding a tag, exactly as written', async () => {
      expect(ids(await datasets({ tags: { eq: 'finance' } }))).toEqual(['lf_a']);
      expect(ids(await datasets({ tags: { in: ['Finance', 'pii'] } }))).toEqual(['lf_a', 'lf_b']);
    });
    it('finds those without a tag, and those holding none at all (no tags or NULL)', async () => {
      expect(ids(await datasets({ tags: { neq: 'pii' } }))).toEqual(['lf_b', 'lf_c', 'lf_d']);
      expect(ids(await datasets({ tags: { nin: ['finance', 'Finance'] } }))).toEqual(['lf_c', 'lf_d']);
      expect(ids(await datasets({ tags: { isNull: true } }))).toEqual(['lf_c', 'lf_d']);
      expect(ids(await datasets({ _not: { tags: { isNull: true } } }))).toEqual(['lf_a', 'lf_b']);
    });
  });

  describe('datasets by their alert rules and ingestion counters', () => {
    it('finds the datasets with a critical rule, and those whose Live rules fire', async () => {
      expect(ids(await datasets({ alertSeverities: { eq: 'CRITICAL' } }))).toEqual(['lf_a']);
      expect(ids(await datasets({ alertSeverities: { in: ['WARNING', 'CRITICAL'] } }))).toEqual(['lf_a', 'lf_b']);
      expect(ids(await datasets({ alertSeverities: { isNull: true } }))).toEqual(['lf_c', 'lf_d']);
      expect(ids(await datasets({ alertStates: { eq: 'FIRING' } }))).toEqual(['lf_a']);
    });
    it('filters and orders by ingestion counters (0 for a dataset that has ingested nothing)', async () => {
      expect(ids(await datasets({ ingestionFailed: { gt: 0 } }))).toEqual(['lf_a', 'lf_d']);
      expect(ids(await datasets({ ingestionReceived: { eq: 0 } }))).toEqual(['lf_c']);
      const ordered = await datasets({}, { orderBy: [{ field: 'INGESTION_FAILED', direction: 'DESC' }] });
      expect(ordered.edges.map((edge) => edge.node.datasetId)).toEqual(['lf_a', 'lf_d', 'lf_b', 'lf_c']);
    });
    it('combines a linked filter with the list’s own fields', async () => {
      expect(ids(await datasets({ _or: [{ alertStates: { eq: 'FIRING' } }, { ingestionFailed: { gte: 2 } }], type: { neq: 'MASTER' } }))).toEqual(['lf_a']);
    });
  });

  describe('neq, nin, isNull and short patterns', () => {
    it('takes neq and nin (items without a value included), and isNull on a field that may be empty', async () => {
      expect(ids(await datasets({ datasetId: { nin: ['lf_a', 'lf_b'] } }))).toEqual(['lf_c', 'lf_d']);
      expect(ids(await datasets({ alias: { neq: 'lf-alias' } }))).toEqual(['lf_a', 'lf_b', 'lf_c']);
      expect(ids(await datasets({ alias: { isNull: false } }))).toEqual(['lf_d']);
    });
    it('matches contains and startsWith from 1 character, ignoring case', async () => {
      expect(ids(await datasets({ name: { startsWith: 'p' } }))).toEqual(['lf_a', 'lf_c']);
      expect(ids(await datasets({ name: { contains: 'V' } }))).toEqual(['lf_d']);
      expect(ids(await datasets({ name: { contains: 'rd' } }))).toEqual(['lf_b']);
    });
    it('filters connectors by type', async () => {
      const page = expectOk(await context.driver.connectors({ where: { connectorId: { in: ['lf-kafka', 'lf-sink'] }, type: { eq: 'sink' } } }, admin)) as Page;
      expect(ids(page, 'connectorVersionId')).toEqual(['lf-sink-1.0.0']);
    });
  });

  describe('bad input', () => {
    it('refuses isNull on a field every item has, naming the field and the operator', async () => {
      expectFailure(await context.driver.datasets({ where: { name: { isNull: true } } }, admin), 'DATASET_LIST_INPUT_INVALID', /^where\.name\.isNull: not an operator of this field/);
    });
    it('refuses an empty contains or startsWith, naming it', async () => {
      expectFailure(await context.driver.datasets({ where: { name: { contains: '' } } }, admin), 'DATASET_LIST_INPUT_INVALID', /^where\.name\.contains: give at least 1 character \(got 0\)$/);
      expectFailure(await context.driver.connectors({ where: { name: { startsWith: '' } } }, admin), 'CONNECTORS_LIST_INPUT_INVALID', /^where\.name\.startsWith: give at least 1 character/);
    });
    it('refuses an operator the field’s comparison does not offer (contains on a set), naming it', async () => {
      // GraphQL refuses it before anything runs (its code is the transport's: BAD_USER_INPUT over POST, none over a subscription).
      const outcome = await context.driver.datasets({ where: { tags: { contains: 'fin' } } }, admin);
      expect(outcome.ok ? { ok: true } : { ok: false, names: /"contains" is not defined by type "StringSetComparison"/.test(outcome.message) }).toEqual({ ok: false, names: true });
    });
  });

  it('refuses neq, nin and isNull in search’s filters (which share the lists’ comparisons) rather than ignoring them', async () => {
    expectFailure(await context.driver.search({ q: 'payments', where: { owner: { neq: 'u' } } }, admin), 'SEARCH_INVALID_INPUT', /^where\.owner\.neq: search filters by eq and in only$/);
    expectFailure(await context.driver.search({ q: 'payments', where: { severity: { isNull: true } } }, admin), 'SEARCH_INVALID_INPUT', /^where\.severity\.isNull/);
  });

  describe('access', () => {
    it('lets a caller who may list datasets but not alert rules filter by tags, and refuses a filter by its rules’ severity', async () => {
      const lister = await token({ roles: [DATASET_LISTER_ROLE] });
      expect(ids(expectOk(await context.driver.datasets({ where: { tags: { eq: 'pii' }, datasetId: { in: ['lf_a', 'lf_b'] } } }, lister)) as Page)).toEqual(['lf_a']);
      expectFailure(await context.driver.datasets({ where: { alertSeverities: { eq: 'CRITICAL' } } }, lister), 'FORBIDDEN');
      expectFailure(await context.driver.datasets({ where: { ingestionFailed: { gt: 0 } } }, lister), 'FORBIDDEN');
    });

    it('refuses an order by a figure, and the sum of it, to a caller who may not read the figures; counts them for one who may', async () => {
      const lister = await token({ roles: [DATASET_LISTER_ROLE] });
      const mine = { datasetId: { in: ['lf_a', 'lf_b'] } };
      expectFailure(await context.driver.datasets({ where: mine, orderBy: [{ field: 'INGESTION_FAILED', direction: 'DESC' }] }, lister), 'FORBIDDEN');
      expectFailure(await context.driver.datasetFigures({ where: mine }, lister, true), 'FORBIDDEN');
      expect(expectOk(await context.driver.datasetFigures({ where: mine }, lister, false))).toEqual({ aggregate: { count: 2 } });
      expect(expectOk(await context.driver.datasetFigures({ where: { datasetId: { eq: 'lf_a' } } }, admin, true))).toEqual({ aggregate: { count: 1, sum: { ingestionFailed: 5 } } });
    });
  });
}
