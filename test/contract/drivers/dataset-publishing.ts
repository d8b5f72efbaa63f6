// The two transports of the publishing scenarios.
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import type { PublishingDriver } from '../dataset-publishing.js';
import { graphqlOutcome, restOutcome } from '../harness.js';

export function restPublishingDriver(gw: TestGateway): PublishingDriver {
  return {
    importDataset: async (definition) => {
      const outcome = restOutcome<{ ignoredFields?: unknown }>(await gw.http.post('/v2/datasets/import').send(envelope('api.datasets.import', definition)));
      return outcome.ok ? { ok: true, value: outcome.value.ignoredFields ?? null } : outcome;
    },
    transition: async (datasetId, to) => restOutcome(await gw.http.post('/v2/datasets/status-transition').send(envelope('api.datasets.status-transition', { dataset_id: datasetId, status: to }))),
    ingest: async (datasetId, events) => restOutcome(await gw.http.post(`/v2/data/in/${datasetId}`).send({ ...envelope('api.data.in'), data: events })),
    exportDataset: async (datasetId, status) => restOutcome(await gw.http.get(`/v2/datasets/export/${datasetId}${status ? `?status=${status}` : ''}`)),
  };
}

const TRANSITIONS = { ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE' } as const;
const STATUSES = { Draft: 'DRAFT', ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE' } as const;

export function graphqlPublishingDriver(gw: TestGateway): PublishingDriver {
  return {
    importDataset: async (definition) => {
      const outcome = graphqlOutcome<{ ignoredFields: unknown }>(await graphql(gw, 'mutation($d: JSON!) { importDataset(definition: $d) { ignoredFields } }', { d: definition }), 'importDataset');
      return outcome.ok ? { ok: true, value: outcome.value.ignoredFields ?? null } : outcome;
    },
    transition: async (datasetId, to) =>
      graphqlOutcome(await graphql(gw, 'mutation($id: ID!, $to: DatasetTransition!) { transitionDataset(id: $id, to: $to) { id } }', { id: datasetId, to: TRANSITIONS[to] }), 'transitionDataset'),
    ingest: async (datasetId, events) =>
      graphqlOutcome(await graphql(gw, 'mutation($id: ID!, $data: JSON!) { ingest(datasetId: $id, data: $data) { message } }', { id: datasetId, data: events }), 'ingest'),
    exportDataset: async (datasetId, status) =>
      graphqlOutcome(
        await graphql(gw, 'query($id: ID!, $status: DatasetStatus) { exportDataset(id: $id, status: $status) }', { id: datasetId, status: status ? STATUSES[status] : null }),
        'exportDataset',
      ),
  };
}
