// The two transports of the template-run scenarios: REST's POST /v2/template/query/{id} envelope and
// GraphQL's runTemplate, whose input is camelCase with the aggregation level as an enum value.
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, restOutcome } from '../harness.js';
import type { TemplateRunDriver } from '../template-run.js';

export function restTemplateRunDriver(gw: TestGateway): TemplateRunDriver {
  return {
    run: async (templateId, request) => restOutcome(await gw.http.post(`/v2/template/query/${encodeURIComponent(templateId)}`).send(envelope('api.query.template.query', request))),
  };
}

export function graphqlTemplateRunDriver(gw: TestGateway): TemplateRunDriver {
  return {
    async run(templateId, { startdate, enddate, dataset, aggregationLevel, limit }) {
      const input = { startDate: startdate, endDate: enddate, dataset, aggregationLevel: aggregationLevel?.toUpperCase(), limit };
      return graphqlServiceOutcome(await graphql(gw, 'query Run($id: ID!, $input: RunTemplateInput!) { runTemplate(id: $id, input: $input) }', { id: templateId, input }), 'runTemplate');
    },
  };
}
