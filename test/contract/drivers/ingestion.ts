// The two transports of ingestion: REST's POST /v2/data/in/{dataset_id} (the envelope with `data`
// instead of `request`) and GraphQL's ingest mutation, whose payload also counts what happened. Both
// hold a refusal to the shape of its transport on the way: REST's envelope names api.data.in with an
// empty trace, GraphQL answers no data beside the error.
import { expect } from '@jest/globals';
import { graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';
import { INGESTION_KINDS, type IngestCounts, type IngestionDriver } from '../ingestion.js';

export const INGEST_API_ID = 'api.data.in';

/** The ingest body of the contract: the envelope with `data` instead of `request`. */
export function ingestBody(data: unknown, msgid: string): Record<string, unknown> {
  return { id: INGEST_API_ID, ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data };
}

export function restIngestionDriver(gw: TestGateway): IngestionDriver {
  return {
    async ingest(datasetId, data, msgid) {
      const response = await gw.http.post(`/v2/data/in/${encodeURIComponent(datasetId)}`).send(ingestBody(data, msgid));
      const outcome = restOutcome<{ message: string }>(response, INGESTION_KINDS);
      if (!outcome.ok) expect({ id: response.body.id, trace: response.body.error?.trace }).toEqual({ id: INGEST_API_ID, trace: '' });
      return outcome;
    },
  };
}

export const INGEST_MUTATION = `mutation Ingest($datasetId: ID!, $data: JSON!, $msgid: String) {
  ingest(datasetId: $datasetId, data: $data, msgid: $msgid) { message accepted processed duplicates failed }
}`;

export function graphqlIngestionDriver(gw: TestGateway): IngestionDriver {
  return {
    async ingest(datasetId, data, msgid) {
      const response = await graphql(gw, INGEST_MUTATION, { datasetId, data, msgid });
      const outcome = graphqlServiceOutcome<{ message: string } & IngestCounts>(response, 'ingest');
      if (!outcome.ok) expect(response.data ?? null).toBeNull();
      return mapOutcome(outcome, ({ message, ...counts }) => ({ message, counts }));
    },
  };
}
