// The two transports of schema inference: REST's dataschema envelope, GraphQL's inferSchema.
import { envelope, graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';
import type { SchemaInferenceDriver } from '../schema-inference.js';

export function restSchemaInferenceDriver(gw: TestGateway): SchemaInferenceDriver {
  return {
    infer: async (samples, dataset) =>
      mapOutcome(
        restOutcome<{ schema: Record<string, unknown> }>(await gw.http.post('/v2/datasets/dataschema').send(envelope('api.datasets.dataschema', { data: samples, config: { dataset } }))),
        (result) => result.schema,
      ),
  };
}

const INFER = 'query Infer($samples: [JSON]!, $dataset: String!) { inferSchema(samples: $samples, dataset: $dataset) { schema } }';

export function graphqlSchemaInferenceDriver(gw: TestGateway): SchemaInferenceDriver {
  return {
    infer: async (samples, dataset) => mapOutcome(graphqlServiceOutcome<{ schema: Record<string, unknown> }>(await graphql(gw, INFER, { samples, dataset }), 'inferSchema'), (result) => result.schema),
  };
}
