// The two transports of dataset authoring: REST sends the console's request as it is; GraphQL
// writes the same request as CreateDatasetInput / UpdateDatasetInput, the way a GraphQL client would.
import { envelope, graphql } from '../../support/api.js';
import type { Json } from '../../support/datasets.js';
import type { TestGateway } from '../../support/gateway.js';
import type { AuthoringDriver, WrittenDraft } from '../dataset-authoring.js';
import { graphqlOutcome, restOutcome, type Outcome } from '../harness.js';

export function restAuthoringDriver(gw: TestGateway): AuthoringDriver {
  return {
    create: async (request) => restOutcome<WrittenDraft>(await gw.http.post('/v2/datasets/create').send(envelope('api.datasets.create', request))),
    update: async (request) => restOutcome<WrittenDraft>(await gw.http.patch('/v2/datasets/update').send(envelope('api.datasets.update', request))),
    draft: async (datasetId) => restOutcome<Json>(await gw.http.get(`/v2/datasets/read/${datasetId}?mode=edit`)),
  };
}

const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);
const changes = (list: unknown) => (Array.isArray(list) ? list.map((change: Json) => ({ action: upper(change.action), value: change.value })) : undefined);

/** The contract request's sections under their GraphQL input names (only those given). */
function sections(request: Json): Json {
  const names: Record<string, string> = {
    name: 'name',
    data_schema: 'dataSchema',
    dataset_config: 'datasetConfig',
    extraction_config: 'extractionConfig',
    validation_config: 'validationConfig',
    dedup_config: 'dedupConfig',
    sample_data: 'sampleData',
  };
  const input: Json = { id: request.dataset_id };
  for (const [contract, graph] of Object.entries(names)) if (contract in request) input[graph] = request[contract];
  if ('type' in request) input.type = upper(request.type);
  return input;
}

function createInput(request: Json): Json {
  const input = sections(request);
  if ('denorm_config' in request) input.denormConfig = request.denorm_config;
  if ('transformations_config' in request) input.transformations = request.transformations_config;
  if ('connectors_config' in request) input.connectors = request.connectors_config;
  if ('tags' in request) input.tags = request.tags;
  return input;
}

function updateInput(request: Json): Json {
  const input: Json = { ...sections(request), versionKey: request.version_key };
  if (request.denorm_config) {
    const { denorm_fields: fields, ...settings } = request.denorm_config as Json;
    if (fields) input.denormFields = changes(fields);
    if (Object.keys(settings).length > 0) input.denormSettings = settings;
  }
  if (request.transformations_config) input.transformations = changes(request.transformations_config);
  if (request.connectors_config) input.connectors = changes(request.connectors_config);
  if (request.tags) input.tags = changes(request.tags);
  return input;
}

function written(outcome: Outcome<{ id: string; versionKey: string }>): Outcome<WrittenDraft> {
  return outcome.ok ? { ok: true, value: { id: outcome.value.id, version_key: outcome.value.versionKey } } : outcome;
}

export function graphqlAuthoringDriver(gw: TestGateway): AuthoringDriver {
  return {
    create: async (request) =>
      written(
        graphqlOutcome(await graphql(gw, 'mutation($input: CreateDatasetInput!) { createDataset(input: $input) { id: datasetId versionKey } }', { input: createInput(request) }), 'createDataset'),
      ),
    update: async (request) =>
      written(
        graphqlOutcome(await graphql(gw, 'mutation($input: UpdateDatasetInput!) { updateDataset(input: $input) { id: datasetId versionKey } }', { input: updateInput(request) }), 'updateDataset'),
      ),
    draft: async (datasetId) => {
      const outcome = graphqlOutcome<{ definition: Json }>(await graphql(gw, 'mutation($id: ID!) { editDataset(id: $id) { definition } }', { id: datasetId }), 'editDataset');
      return outcome.ok ? { ok: true, value: outcome.value.definition } : outcome;
    },
  };
}
