// The two transports of exhaust.
import { envelope, graphql } from '../../support/api.js';
import type { StoreGateway } from '../../support/connectors.js';
import type { ExhaustAnswer, ExhaustDriver } from '../exhaust.js';
import { graphqlOutcome, restOutcome } from '../harness.js';

async function ingest(gw: StoreGateway, datasetId: string, events: Record<string, unknown>[]): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${datasetId}`).send({ ...envelope('api.data.in'), data: events });
  if (response.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(response.body)}`);
}

export function restExhaustDriver(gw: StoreGateway): ExhaustDriver {
  return {
    exhaust: async (datasetId, query) => restOutcome<ExhaustAnswer>(await gw.http.get(`/v2/data/exhaust/${datasetId}`).query(query)),
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
  };
}

const EXHAUST = `query Exhaust($id: ID!, $type: ExhaustType, $from: String, $to: String, $since: String) {
  datasetExhaust(datasetId: $id, type: $type, from: $from, to: $to, since: $since) { expiresAt files days { day files } }
}`;

export function graphqlExhaustDriver(gw: StoreGateway): ExhaustDriver {
  return {
    exhaust: async (datasetId, query) => {
      const outcome = graphqlOutcome<{ expiresAt: string; files: string[]; days: { day: string; files: string[] }[] }>(
        await graphql(gw, EXHAUST, { id: datasetId, type: query.type?.toUpperCase() ?? null, from: query.from ?? null, to: query.to ?? null, since: query.since ?? null }),
        'datasetExhaust',
      );
      return outcome.ok
        ? { ok: true, value: { expiresAt: outcome.value.expiresAt, files: outcome.value.files, periodWiseFiles: Object.fromEntries(outcome.value.days.map((day) => [day.day, day.files])) } }
        : outcome;
    },
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
  };
}
