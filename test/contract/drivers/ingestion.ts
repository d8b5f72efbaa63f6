// The two transports of ingestion: REST's POST /v2/data/in/{dataset_id} (the envelope with `data`
// instead of `request`, the counts in x-events-* headers) and GraphQL's ingest mutation, whose payload
// counts what happened and names each refused event. Both hold their answer to the shape of the
// transport on the way: REST's success body is the contract's, byte for byte, and its envelope of a
// refusal names api.data.in with an empty trace; GraphQL answers no data beside an error.
import { expect } from '@jest/globals';
import { graphql } from '../../support/api.js';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, mapOutcome, restOutcome } from '../harness.js';
import { INGESTION_KINDS, type IngestCounts, type IngestionDriver, type IngestRefusal } from '../ingestion.js';

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
      if (!outcome.ok) {
        expect({ id: response.body.id, trace: response.body.error?.trace }).toEqual({ id: INGEST_API_ID, trace: '' });
        return outcome;
      }
      expect(response.text).toBe(contractSuccessText(response.body as ContractSuccess, msgid));
      return mapOutcome(outcome, ({ message }) => ({ message, counts: countsOfHeaders(response.headers) }));
    },
  };
}

interface ContractSuccess {
  ts: string;
  params: { resmsgid: string };
}

/** The contract's success answer of an ingest call, as text: only its time and response id vary. */
function contractSuccessText(body: ContractSuccess, msgid: string): string {
  // An empty msgid is none: the envelope then names no msgid.
  const params = msgid ? { status: 'SUCCESS', msgid, resmsgid: body.params.resmsgid } : { status: 'SUCCESS', resmsgid: body.params.resmsgid };
  return `${JSON.stringify({ id: INGEST_API_ID, ver: 'v2', ts: body.ts, params, responseCode: 'OK', result: { message: 'Data ingested successfully' } })}\n`;
}

/** The counts REST tells in headers (docs/datasets.md "Ingestion guarantees"); a count not sent reads as null. */
function countsOfHeaders(headers: Record<string, string | undefined>): IngestCounts {
  const count = (name: string) => {
    const value = headers[name];
    if (value === undefined) return null;
    expect(value).toMatch(/^\d+$/);
    return Number(value);
  };
  return {
    outcome: headers['x-ingest-outcome']?.toUpperCase() as IngestCounts['outcome'],
    accepted: count('x-events-accepted')!,
    processed: count('x-events-processed'),
    duplicates: count('x-events-duplicates'),
    failed: count('x-events-failed'),
  };
}

export const INGEST_MUTATION = `mutation Ingest($datasetId: ID!, $data: JSON!, $msgid: String) {
  ingest(datasetId: $datasetId, data: $data, msgid: $msgid) { message outcome accepted processed duplicates failed refused { index item stage reason } }
}`;

export function graphqlIngestionDriver(gw: TestGateway): IngestionDriver {
  return {
    async ingest(datasetId, data, msgid) {
      const response = await graphql(gw, INGEST_MUTATION, { datasetId, data, msgid });
      const outcome = graphqlServiceOutcome<{ message: string; refused: IngestRefusal[] | null } & IngestCounts>(response, 'ingest');
      if (!outcome.ok) expect(response.data ?? null).toBeNull();
      return mapOutcome(outcome, ({ message, refused, ...counts }) => ({ message, counts, refused }));
    },
  };
}
