// The two transports of PII analysis; each call names the gateway it asks (the run's, or the one
// with a downstream detector).
import { envelope, graphql } from '../../support/api.js';
import type { PiiDriver } from '../pii.js';
import { graphqlServiceOutcome, restOutcome } from '../harness.js';

export function restPiiDriver(): PiiDriver {
  return {
    analyze: async (target, datasetId, records) =>
      restOutcome<unknown[]>(await target.http.post('/v2/data/analyze/pii').send(envelope('api.data.analyze.pii', { dataset_id: datasetId, data: records }))),
  };
}

const ANALYZE = `query Analyze($datasetId: ID!, $records: [JSON!]!) {
  analyzePii(datasetId: $datasetId, records: $records) { field type score reason { code resourceKey region score } }
}`;

export function graphqlPiiDriver(): PiiDriver {
  return {
    analyze: async (target, datasetId, records) => graphqlServiceOutcome<unknown[]>(await graphql(target, ANALYZE, { datasetId, records }), 'analyzePii'),
  };
}
