// The row bound of ad-hoc queries and of the SQL endpoint on a dataset of 1,000,000 events: it is
// held inside the database (a query asking for every row, or for a cross join of the dataset with
// itself, answers the bound's number of rows), never by reading everything first.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const DATASET = 'million_events';
const EVENTS = 1_000_000;
const MAX_ROWS = 50;
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ TEMPLATE_QUERY_MAX_ROWS: String(MAX_ROWS) });
  await seedDataset(gw, DATASET, 'Live');
  // Written straight into the embedded event store: ingesting a million events through the API is
  // the ingestion benchmark's job, not this test's.
  await gw.sql(
    `INSERT INTO events (dataset_id, event_time, msgid, payload)
     SELECT $1, timestamptz '2026-03-01' + i * interval '1 second', 'bulk',
            jsonb_build_object('id', 'e' || i, 'ts', to_char(timestamptz '2026-03-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'userid', 'u' || (i % 1000), 'amount', i)
       FROM generate_series(1, $2::int) AS i`,
    [DATASET, EVENTS],
  );
}, 120_000);

afterAll(async () => {
  await gw?.stop();
});

async function rows(path: string, body: unknown): Promise<{ status: number; rows: unknown[] }> {
  const response = await gw.http.post(path).send(body as object);
  return { status: response.status, rows: (path.includes('sql-query') ? response.body : response.body.result) as unknown[] };
}

describe(`a dataset of ${EVENTS.toLocaleString('en')} events`, () => {
  it('holds all of them (what the bound is tested against)', async () => {
    const counted = await rows('/v2/obsrv/data/sql-query', { query: `SELECT COUNT(*) AS n FROM "${DATASET}"` });
    expect(counted.rows).toEqual([{ n: EVENTS }]);
  });

  it.each([
    ['every row', `SELECT * FROM "${DATASET}"`],
    ['every row, with a LIMIT above the bound', `SELECT * FROM "${DATASET}" LIMIT 1000000`],
    ['a cross join of the dataset with itself (10^12 rows)', `SELECT a.id, b.id AS other FROM "${DATASET}" a CROSS JOIN "${DATASET}" b`],
  ])('answers at most the bound for %s, over the ad-hoc query and the SQL endpoint', async (_what, sql) => {
    const adHoc = await rows(`/v2/data/query/${DATASET}`, { ...envelope('api.data.out'), query: sql.replaceAll(`"${DATASET}"`, '{{DATASET}}') });
    const endpoint = await rows('/v2/obsrv/data/sql-query', { query: sql });
    expect([adHoc.status, adHoc.rows.length]).toEqual([200, MAX_ROWS]);
    // Bounded inside the database: a query that had to read everything first would have hit the
    // statement timeout (a refusal), not answered.
    expect([endpoint.status, endpoint.rows.length]).toEqual([200, MAX_ROWS]);
  });
});
