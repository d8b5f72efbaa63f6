// The two transports of the dataset scenarios, answering in the REST contract's spelling: records
// with snake_case keys, statuses Draft/ReadyToPublish/Live/Retired, types event/master.
import { envelope, graphql } from '../../support/api.js';
import { API, type Json } from '../../support/datasets.js';
import type { TestGateway } from '../../support/gateway.js';
import type { DatasetsDriver, DatasetStatus, ListFilters } from '../datasets.js';
import { graphqlServiceOutcome, restOutcome } from '../harness.js';

function query(params: Record<string, string | undefined>): string {
  const pairs = Object.entries(params).filter((pair): pair is [string, string] => pair[1] !== undefined);
  return pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&')}`;
}

export function restDatasetsDriver(gw: TestGateway): DatasetsDriver {
  const readPath = (id: string) => `/v2/datasets/read/${encodeURIComponent(id)}`;
  return {
    transition: async (id, to) => restOutcome(await gw.http.post('/v2/datasets/status-transition').send(envelope(API.transition, { dataset_id: id, status: to }))),
    importDataset: async (definition, overwrite) => restOutcome(await gw.http.post(`/v2/datasets/import${query({ overwrite: overwrite?.toString() })}`).send(envelope(API.import, definition))),
    read: async (id, { status, fields } = {}) => restOutcome(await gw.http.get(`${readPath(id)}${query({ status, fields: fields?.join(',') })}`)),
    edit: async (id, fields) => restOutcome(await gw.http.get(`${readPath(id)}${query({ mode: 'edit', fields: fields?.join(',') })}`)),
    list: async (filters) => restOutcome(await gw.http.post('/v2/datasets/list').send(envelope(API.list, filters ? { filters } : {}))),
    copy: async (sourceId, isLive, destinationId) =>
      restOutcome(await gw.http.post('/v2/datasets/copy').send(envelope(API.copy, { source: { datasetId: sourceId, isLive }, destination: { datasetId: destinationId } }))),
  };
}

const STATUS_ENUM: Record<DatasetStatus, string> = { Draft: 'DRAFT', ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE', Retired: 'RETIRED' };
const STATUS_OF_ENUM = Object.fromEntries(Object.entries(STATUS_ENUM).map(([status, value]) => [value, status]));
const TRANSITION_ENUM = { ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE', Retired: 'RETIRED', Delete: 'DELETE' } as const;

interface ListedNode {
  id: string;
  name: string;
  type: string;
  status: string;
  tags: string[];
  version: number;
  apiVersion: string | null;
  datasetConfig: Json;
}

/** A list node's typed fields, in the contract's record spelling. */
function asRecord(node: ListedNode): Json {
  return {
    dataset_id: node.id,
    name: node.name,
    type: node.type.toLowerCase(),
    status: STATUS_OF_ENUM[node.status],
    tags: node.tags,
    version: node.version,
    api_version: node.apiVersion,
    dataset_config: node.datasetConfig,
  };
}

/** A single status stays a single enum value: GraphQL coerces it to a list itself. */
function statusFilter(status: ListFilters['status']): string | string[] | null {
  if (status === undefined) return null;
  return Array.isArray(status) ? status.map((value) => STATUS_ENUM[value]) : STATUS_ENUM[status];
}

export function graphqlDatasetsDriver(gw: TestGateway): DatasetsDriver {
  return {
    async transition(id, to) {
      const outcome = graphqlServiceOutcome<{ id: string; message: string }>(
        await graphql(gw, 'mutation($id: ID!, $to: DatasetTransition!) { transitionDataset(id: $id, to: $to) { id message } }', { id, to: TRANSITION_ENUM[to] }),
        'transitionDataset',
      );
      return outcome.ok ? { ok: true, value: { message: outcome.value.message, dataset_id: outcome.value.id } } : outcome;
    },
    async importDataset(definition, overwrite) {
      const outcome = graphqlServiceOutcome<{ id: string; versionKey: string; message: string; ignoredFields: Json | null }>(
        await graphql(gw, 'mutation($d: JSON!, $overwrite: Boolean) { importDataset(definition: $d, overwrite: $overwrite) { id versionKey message ignoredFields } }', {
          d: definition,
          ...(overwrite === undefined ? {} : { overwrite }),
        }),
        'importDataset',
      );
      if (!outcome.ok) return outcome;
      const { id, versionKey, message, ignoredFields } = outcome.value;
      return { ok: true, value: { message, data: { id, version_key: versionKey }, ...(ignoredFields === null ? {} : { ignoredFields }) } };
    },
    async read(id, { status, fields } = {}) {
      const outcome = graphqlServiceOutcome<{ definition: Json }>(
        await graphql(gw, 'query($id: ID!, $status: DatasetStatus, $fields: [String!]) { dataset(id: $id, status: $status) { definition(fields: $fields) } }', {
          id,
          status: status ? STATUS_ENUM[status] : null,
          fields: fields ?? null,
        }),
        'dataset',
      );
      return outcome.ok ? { ok: true, value: outcome.value.definition } : outcome;
    },
    async edit(id, fields) {
      const outcome = graphqlServiceOutcome<{ definition: Json }>(
        await graphql(gw, 'mutation($id: ID!, $fields: [String!]) { editDataset(id: $id) { definition(fields: $fields) } }', { id, fields: fields ?? null }),
        'editDataset',
      );
      return outcome.ok ? { ok: true, value: outcome.value.definition } : outcome;
    },
    async list(filters = {}) {
      const outcome = graphqlServiceOutcome<{ nodes: ListedNode[]; totalCount: number }>(
        await graphql(
          gw,
          // first: null asks for the largest page, as a REST list without a limit does.
          'query($filter: DatasetFilter) { datasets(filter: $filter, first: null) { nodes { id: datasetId name type status tags version apiVersion datasetConfig } totalCount } }',
          { filter: { status: statusFilter(filters.status), type: filters.type?.toUpperCase() ?? null } },
        ),
        'datasets',
      );
      return outcome.ok ? { ok: true, value: { data: outcome.value.nodes.map(asRecord), count: outcome.value.totalCount } } : outcome;
    },
    async copy(sourceId, isLive, destinationId) {
      const outcome = graphqlServiceOutcome<{ message: string; dataset: { id: string } }>(
        await graphql(gw, 'mutation($input: CopyDatasetInput!) { copyDataset(input: $input) { message dataset { id: datasetId } } }', {
          input: { sourceId, sourceVersion: isLive ? 'LIVE' : 'DRAFT', destinationId },
        }),
        'copyDataset',
      );
      return outcome.ok ? { ok: true, value: { dataset_id: outcome.value.dataset.id, message: outcome.value.message } } : outcome;
    },
  };
}
