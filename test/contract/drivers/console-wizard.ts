// The wizard's driver: the authoring, publishing and health drivers, plus schema inference and the list.
import { envelope, graphql } from '../../support/api.js';
import type { Json } from '../../support/datasets.js';
import type { TestGateway } from '../../support/gateway.js';
import type { WizardDriver } from '../console-wizard.js';
import { graphqlOutcome, restOutcome } from '../harness.js';
import { graphqlAuthoringDriver, restAuthoringDriver } from './dataset-authoring.js';
import { graphqlHealthDriver, restHealthDriver } from './dataset-health.js';
import { graphqlPublishingDriver, restPublishingDriver } from './dataset-publishing.js';

export function restWizardDriver(gw: TestGateway): WizardDriver {
  return {
    ...restAuthoringDriver(gw),
    ...restPublishingDriver(gw),
    ...restHealthDriver(gw),
    inferSchema: async (samples, datasetId) =>
      restOutcome<Json>(await gw.http.post('/v2/datasets/dataschema').send(envelope('api.datasets.dataschema', { data: samples, config: { dataset: datasetId } }))),
    list: async (statuses) => {
      const outcome = restOutcome<{ data: Json[] }>(await gw.http.post('/v2/datasets/list').send(envelope('api.datasets.list', { filters: { status: statuses } })));
      return outcome.ok ? { ok: true, value: outcome.value.data.map((dataset) => ({ dataset_id: dataset.dataset_id as string, status: dataset.status as string })) } : outcome;
    },
  };
}

export function graphqlWizardDriver(gw: TestGateway): WizardDriver {
  return {
    ...graphqlAuthoringDriver(gw),
    ...graphqlPublishingDriver(gw),
    ...graphqlHealthDriver(gw),
    inferSchema: async (samples, datasetId) =>
      graphqlOutcome<Json>(await graphql(gw, 'query($s: [JSON!]!, $d: String!) { inferSchema(samples: $s, dataset: $d) { schema } }', { s: samples, d: datasetId }), 'inferSchema'),
    list: async (statuses) => {
      const outcome = graphqlOutcome<{ nodes: { definition: Json }[] }>(
        await graphql(gw, 'query($status: [DatasetStatus!]) { datasets(filter: { status: $status }) { nodes { definition(fields: ["dataset_id", "status"]) } } }', {
          status: statuses.map((status) => status.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()),
        }),
        'datasets',
      );
      return outcome.ok ? { ok: true, value: outcome.value.nodes.map((node) => node.definition as { dataset_id: string; status: string }) } : outcome;
    },
  };
}
