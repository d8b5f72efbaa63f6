// The two transports of dataset health checks, answering in the REST contract's spelling.
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import type { HealthAnswer, HealthDriver } from '../dataset-health.js';
import { graphqlOutcome, restOutcome } from '../harness.js';

export function restHealthDriver(gw: TestGateway): HealthDriver {
  return {
    async check(datasetId, categories) {
      return restOutcome<HealthAnswer>(await gw.http.post('/v2/datasets/health').send(envelope('api.dataset.health', { dataset_id: datasetId, categories })));
    },
  };
}

const HEALTH = `query Health($id: ID!, $categories: [HealthCategory!]!) {
  datasetHealth(datasetId: $id, categories: $categories) { status details { category status components { type status message } } }
}`;

/** GraphQL's HEALTHY/UNHEALTHY and INFRA..., in the contract's Healthy/UnHealthy and infra... */
function asContract(health: { status: string; details: { category: string; status: string; components: { type: string; status: string; message: string | null }[] }[] }): HealthAnswer {
  const status = (value: string) => (value === 'HEALTHY' ? 'Healthy' : 'UnHealthy');
  return {
    status: status(health.status),
    details: health.details.map((detail) => ({
      category: detail.category.toLowerCase() as HealthAnswer['details'][number]['category'],
      status: status(detail.status),
      components: detail.components.map((component) => ({ type: component.type, status: status(component.status), ...(component.message === null ? {} : { message: component.message }) })),
    })),
  };
}

export function graphqlHealthDriver(gw: TestGateway): HealthDriver {
  return {
    async check(datasetId, categories) {
      const outcome = graphqlOutcome<Parameters<typeof asContract>[0]>(await graphql(gw, HEALTH, { id: datasetId, categories: categories.map((category) => category.toUpperCase()) }), 'datasetHealth');
      return outcome.ok ? { ok: true, value: asContract(outcome.value) } : outcome;
    },
  };
}
