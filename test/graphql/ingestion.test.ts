// Ingestion over GraphQL, the ingest mutation: what only GraphQL has. The behaviour both transports
// share (the payload's counts included) is in test/contract/ingestion.ts; here are a msgid left
// out, data null refused by its type, a body over INGEST_BODY_LIMIT (1 MB here) refused before
// GraphQL reads it, and a dataset id far longer than a REST path takes. Every test uses msgids and
// event ids of its own.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { graphqlIngestionDriver, INGEST_MUTATION } from '../contract/drivers/ingestion.js';
import { expectFailure } from '../contract/harness.js';
import { graphql, UUID_PATTERN, type GraphQLResponse } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { largeEvents, storeCounts, unique } from '../support/ingestion.js';

let gw: TestGateway;
const EVENTS = 'gql_ingest_events';

beforeAll(async () => {
  gw = await startTestGateway({ INGEST_BODY_LIMIT: '1mb' });
  await seedDataset(gw, EVENTS, 'Live');
});
afterAll(async () => {
  await gw?.stop();
});

function ingest(variables: Record<string, unknown>): Promise<GraphQLResponse> {
  return graphql(gw, INGEST_MUTATION, variables);
}

/** `call` writes nothing to the event store. */
async function writesNothing(call: () => Promise<void>): Promise<void> {
  const before = await storeCounts(gw);
  await call();
  expect(await storeCounts(gw)).toEqual(before);
}

it('stores the events under a generated msgid when none is given', async () => {
  const event = { id: unique('nomsgid') };
  expect((await ingest({ datasetId: EVENTS, data: event })).errors).toBeUndefined();
  const rows = await gw.sql<{ msgid: string }>(`SELECT msgid FROM events WHERE dataset_id = $1 AND payload ->> 'id' = $2`, [EVENTS, event.id]);
  expect(rows.rows).toHaveLength(1);
  expect(rows.rows[0]!.msgid).toMatch(UUID_PATTERN);
});

it('refuses data null at the type level (data is JSON!) and writes nothing', async () => {
  await writesNothing(async () => {
    const response = await ingest({ datasetId: EVENTS, data: null, msgid: unique('null') });
    expect(response.status).toBe(400);
    expect(response.data ?? null).toBeNull();
    expect(response.errors?.length).toBeGreaterThan(0);
    expect(response.errors![0]!.message).toMatch(/data/);
  });
});

it('refuses a body over INGEST_BODY_LIMIT (1 MB here) with a "too large" error, and writes none of it', async () => {
  await writesNothing(async () => {
    const response = await ingest({ datasetId: EVENTS, data: largeEvents(4, 300_000), msgid: unique('big') });
    expect(response.status).toBe(413);
    expect(response.data ?? null).toBeNull();
    expect(response.errors?.[0]?.message).toMatch(/too large: over the 1048576-byte limit \(INGEST_BODY_LIMIT=1mb\)/);
  });
});

it('refuses a dataset id over 200 characters (as REST does), writing nothing', async () => {
  await writesNothing(async () => {
    const outcome = await graphqlIngestionDriver(gw).ingest(`gql_${'x'.repeat(300_000)}`, { id: unique('e') }, unique('longid'));
    expectFailure(outcome, 'DATA_INGESTION_INVALID_INPUT', /datasetId.*200/);
  });
});
