// The two transports of datasources, aliases, reset and the schema check.
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import type { DatasourceEntry, DatasourcesDriver } from '../dataset-datasources.js';
import { graphqlOutcome, restOutcome } from '../harness.js';

export function restDatasourcesDriver(gw: TestGateway): DatasourcesDriver {
  return {
    setAlias: async (datasetId, alias, table) =>
      restOutcome(await gw.http.post('/v2/datasets/alias').send(envelope('api.datasets.alias', { dataset_id: datasetId, alias_name: alias, ...(table ? { table_name: table } : {}) }))),
    aliasOf: async (datasetId) => {
      const outcome = restOutcome<{ alias: string | null }>(await gw.http.get(`/v2/datasets/read/${datasetId}?fields=alias`));
      return outcome.ok ? { ok: true, value: outcome.value.alias } : outcome;
    },
    datasources: async (statuses, type) => {
      const filters = { ...(statuses ? { status: statuses } : {}), ...(type === undefined ? {} : { type }) };
      const outcome = restOutcome<{ data: DatasourceEntry[] }>(await gw.http.post('/v2/datasources/list').send(envelope('api.datasources.list', Object.keys(filters).length > 0 ? { filters } : {})));
      return outcome.ok ? { ok: true, value: outcome.value.data } : outcome;
    },
    reset: async (datasetId, category) => restOutcome(await gw.http.post(`/v2/datasets/reset/${datasetId}`).send(envelope('api.datasets.reset', { category }))),
    checkEvent: async (datasetId, isLive, event) => restOutcome(await gw.http.post('/v2/schema/validate').send(envelope('api.schema.validator', { datasetId, isLive, event }))),
    retire: async (datasetId) => restOutcome(await gw.http.post('/v2/datasets/status-transition').send(envelope('api.datasets.status-transition', { dataset_id: datasetId, status: 'Retired' }))),
  };
}

const STATUS = { LIVE: 'Live', DRAFT: 'Draft', READY_TO_PUBLISH: 'ReadyToPublish', RETIRED: 'Retired' } as Record<string, string>;

export function graphqlDatasourcesDriver(gw: TestGateway): DatasourcesDriver {
  return {
    setAlias: async (datasetId, alias, table) =>
      graphqlOutcome(
        await graphql(gw, 'mutation($id: ID!, $alias: String!, $table: String) { setDatasetAlias(id: $id, alias: $alias, table: $table) { id: datasetId } }', {
          id: datasetId,
          alias,
          table: table ?? null,
        }),
        'setDatasetAlias',
      ),
    aliasOf: async (datasetId) => {
      const outcome = graphqlOutcome<{ alias: string | null }>(await graphql(gw, 'query($id: ID!) { dataset(id: $id) { alias } }', { id: datasetId }), 'dataset');
      return outcome.ok ? { ok: true, value: outcome.value.alias } : outcome;
    },
    datasources: async (statuses, type) => {
      const filter = { status: statuses ? statuses.map((status) => Object.keys(STATUS).find((key) => STATUS[key] === status)) : null, type: type ?? null };
      const outcome = graphqlOutcome<{ datasource: string; datasetId: string; status: string; type: string; alias: string | null }[]>(
        await graphql(gw, 'query($filter: DatasourceFilter) { datasources(filter: $filter) { datasource datasetId status type alias } }', { filter }),
        'datasources',
      );
      return outcome.ok
        ? { ok: true, value: outcome.value.map((entry) => ({ datasource: entry.datasource, dataset_id: entry.datasetId, status: STATUS[entry.status]!, type: entry.type, alias: entry.alias })) }
        : outcome;
    },
    reset: async (datasetId, category) =>
      graphqlOutcome(await graphql(gw, 'mutation($id: ID!, $c: ResetCategory!) { resetDataset(id: $id, category: $c) { status } }', { id: datasetId, c: category.toUpperCase() }), 'resetDataset'),
    retire: async (datasetId) => graphqlOutcome(await graphql(gw, 'mutation($id: ID!) { transitionDataset(id: $id, to: RETIRED) { id } }', { id: datasetId }), 'transitionDataset'),
    checkEvent: async (datasetId, isLive, event) =>
      graphqlOutcome(
        await graphql(gw, 'query($id: ID!, $v: DatasetVersion, $e: JSON!) { checkEvent(datasetId: $id, version: $v, event: $e) { isValid message } }', {
          id: datasetId,
          v: isLive ? 'LIVE' : 'DRAFT',
          e: event,
        }),
        'checkEvent',
      ),
  };
}
