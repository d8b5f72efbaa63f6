// What a template's own SQL can cost and leave behind: never more rows than the bound leave
// PostgreSQL (a cursor fetches them, whatever LIMIT the SQL lacks), a request too big for the
// engine is the caller's 400 and not a 500, and nothing a template does to its session (an advisory
// lock, a setting) outlives its run on the pooled reader connection.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { DAY_END, DAY_START, EVENTS, SALES_SCHEMA_OVERRIDES } from '../support/template-run.js';

const SALES = 'reader_sales';
const MAX_ROWS = 50;
const WINDOW = `"__time" >= {{STARTDATE}} AND "__time" < {{ENDDATE}}`;
let gw: TestGateway;

beforeAll(async () => {
  // 5 s per statement: fetching 100 million rows could not finish in it; fetching 50 does at once.
  gw = await startTestGateway({ TEMPLATE_QUERY_MAX_ROWS: String(MAX_ROWS), QUERY_TIMEOUT_MS: '5000' });
  await seedDataset(gw, SALES, 'Live', SALES_SCHEMA_OVERRIDES);
  const ingested = await gw.http.post(`/v2/data/in/${SALES}`).send({ ...envelope('api.data.in'), data: EVENTS });
  expect(ingested.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

async function runSql(name: string, sql: string) {
  const created = await gw.http.post('/v2/template/create').send(envelope('api.query.template.create', { template_name: name, query_type: 'sql', query: sql }));
  expect(created.status).toBe(200);
  const request = { startdate: DAY_START, enddate: DAY_END, dataset: SALES, aggregationLevel: 'hour', limit: MAX_ROWS };
  return gw.http.post(`/v2/template/query/${created.body.result.template_id as string}`).send(envelope('api.query.template.query', request));
}

describe("a template's own SQL", () => {
  it('without a LIMIT over 100 million rows answers the first TEMPLATE_QUERY_MAX_ROWS at once instead of loading them all', async () => {
    const response = await runSql('Reader Unbounded', `SELECT generate_series(1, 100000000) AS n FROM {{DATASET}} WHERE ${WINDOW}`);
    expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
    const rows = response.body.result as { n: number }[];
    expect(rows).toHaveLength(MAX_ROWS);
    expect(rows.slice(0, 3).map((row) => Number(row.n))).toEqual([1, 2, 3]);
    // Cut, and said so: the envelope is the contract's, the header names the bound.
    expect(response.headers['x-result-truncated']).toBe(String(MAX_ROWS));
  });

  it('says nothing of a cut when every row is there (exactly the bound, or fewer)', async () => {
    const exact = await runSql('Reader Exact', `SELECT generate_series(1, ${MAX_ROWS}) AS n FROM {{DATASET}} WHERE ${WINDOW} LIMIT ${MAX_ROWS}`);
    expect({ rows: (exact.body.result as unknown[]).length, header: exact.headers['x-result-truncated'] }).toEqual({ rows: MAX_ROWS, header: undefined });
  });

  it('POST /v2/data/query with LIMIT 20000 over more rows answers exactly the bound, with x-result-truncated', async () => {
    const response = await gw.http.post(`/v2/data/query/${SALES}`).send({ ...envelope('api.data.out'), query: `SELECT generate_series(1, 100000) AS n FROM ${SALES} LIMIT 20000` });
    expect({ status: response.status, rows: (response.body.result as unknown[]).length, header: response.headers['x-result-truncated'] }).toEqual({
      status: 200,
      rows: MAX_ROWS,
      header: String(MAX_ROWS),
    });
  });

  it('GraphQL frames say truncated and rowLimit when the rows were cut, false and null when not', async () => {
    const frame = async (query: string) =>
      (await gw.http.post('/graphql').send({ query: 'query($q: String!) { sqlQueryFrame(query: $q) { truncated rowLimit rows } }', variables: { q: query } })).body as {
        data: { sqlQueryFrame: { truncated: boolean; rowLimit: number | null; rows: unknown[] } };
      };
    const cut = (await frame(`SELECT generate_series(1, 100000) AS n FROM ${SALES}`)).data.sqlQueryFrame;
    expect({ truncated: cut.truncated, rowLimit: cut.rowLimit, rows: cut.rows.length }).toEqual({ truncated: true, rowLimit: MAX_ROWS, rows: MAX_ROWS });
    const whole = (await frame(`SELECT 1 AS n FROM ${SALES} LIMIT 1`)).data.sqlQueryFrame;
    expect({ truncated: whole.truncated, rowLimit: whole.rowLimit, rows: whole.rows.length }).toEqual({ truncated: false, rowLimit: null, rows: 1 });
  });

  it('that asks for more than the engine allows (class 54) is refused with 400, not a 500', async () => {
    const response = await runSql('Reader Too Big', `SELECT repeat('x', 1100000000) AS big FROM {{DATASET}} WHERE ${WINDOW}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('DATA_OUT_INVALID_INPUT');
    expect(response.body.error.message).toMatch(/more than the engine allows/);
  });

  it('leaves no advisory lock or setting behind on the pooled connection', async () => {
    const locked = await runSql('Reader Locks', `SELECT pg_advisory_lock(4242) IS NOT NULL AS locked, set_config('work_mem', '1MB', false) AS mem FROM {{DATASET}} WHERE ${WINDOW} LIMIT 1`);
    expect({ status: locked.status, error: locked.body.error }).toEqual({ status: 200, error: undefined });
    expect(locked.body.result).toEqual([{ locked: true, mem: '1MB' }]);
    // Another session can take the lock: the template's session let it go when its run ended.
    const probe = await gw.sql<{ taken: boolean }>('SELECT pg_try_advisory_lock(4242) AS taken');
    expect(probe.rows).toEqual([{ taken: true }]);
    await gw.sql('SELECT pg_advisory_unlock(4242)');
    // And the next runs on the pool see the default setting again.
    for (let i = 0; i < 4; i += 1) {
      const next = await runSql(`Reader Setting ${i}`, `SELECT current_setting('work_mem') AS mem FROM {{DATASET}} WHERE ${WINDOW} LIMIT 1`);
      expect(next.body.result).toEqual([{ mem: '64MB' }]);
    }
  });
});

// A native series is bounded by the same TEMPLATE_QUERY_MAX_ROWS: a minute series over a day has
// more buckets than that. Cut series say so, as cut SQL results do; a caller's own smaller limit is
// no cut.
describe('a native series longer than the row bound', () => {
  const SERIES = 'reader_series';
  const MINUTES = MAX_ROWS + 10;
  const DAY = '2026-03-10T00:00:00Z/2026-03-11T00:00:00Z';
  const minuteSeries = (extra: Record<string, unknown> = {}) => ({
    queryType: 'timeseries',
    dataSource: SERIES,
    intervals: [DAY],
    granularity: 'minute',
    aggregations: [{ type: 'longSum', name: 'qty', fieldName: 'qty' }],
    ...extra,
  });

  beforeAll(async () => {
    await seedDataset(gw, SERIES, 'Live', SALES_SCHEMA_OVERRIDES);
    // One event a minute from midnight: a bucket each.
    const data = Array.from({ length: MINUTES }, (_, i) => ({ id: `m${i}`, ts: new Date(Date.parse('2026-03-10T00:00:00Z') + i * 60_000).toISOString(), userid: 'u1', amount: 1, qty: 1 }));
    const ingested = await gw.http.post(`/v2/data/in/${SERIES}`).send({ ...envelope('api.data.in'), data });
    expect(ingested.status).toBe(200);
  }, 60_000);

  it('POST /v2/data/query answers the first TEMPLATE_QUERY_MAX_ROWS buckets with x-result-truncated', async () => {
    const response = await gw.http.post(`/v2/data/query/${SERIES}`).send({ ...envelope('api.data.out'), query: minuteSeries() });
    const rows = response.body.result as { timestamp: string }[];
    expect({ status: response.status, rows: rows.length, header: response.headers['x-result-truncated'] }).toEqual({ status: 200, rows: MAX_ROWS, header: String(MAX_ROWS) });
    expect(rows[0]!.timestamp).toBe('2026-03-10T00:00:00.000Z');
  });

  it("POST /v2/data/metrics (the console's route) says the same of a groupBy per minute", async () => {
    const response = await gw.http
      .post('/v2/data/metrics')
      .send({ query: { id: 'chart', type: 'api', url: '/config/v2/data/metrics', method: 'POST', body: { query: { ...minuteSeries(), queryType: 'groupBy', dimensions: ['userid'] } } } });
    expect({ status: response.status, rows: (response.body.result as unknown[]).length, header: response.headers['x-result-truncated'] }).toEqual({
      status: 200,
      rows: MAX_ROWS,
      header: String(MAX_ROWS),
    });
  });

  it("says nothing when the caller's own limit is smaller, or every bucket fits", async () => {
    const limited = await gw.http.post(`/v2/data/query/${SERIES}`).send({ ...envelope('api.data.out'), query: minuteSeries({ limit: 10 }) });
    expect({ rows: (limited.body.result as unknown[]).length, header: limited.headers['x-result-truncated'] }).toEqual({ rows: 10, header: undefined });
    const fits = await gw.http.post(`/v2/data/query/${SERIES}`).send({ ...envelope('api.data.out'), query: minuteSeries({ granularity: 'hour' }) });
    expect({ rows: (fits.body.result as unknown[]).length, header: fits.headers['x-result-truncated'] }).toEqual({ rows: 1, header: undefined });
  });

  it('GraphQL queryDatasetFrame says truncated and rowLimit', async () => {
    const answer = await gw.http.post('/graphql').send({
      query: 'query($d: String!, $q: JSON!) { queryDatasetFrame(dataset: $d, query: $q) { truncated rowLimit rows } }',
      variables: { d: SERIES, q: minuteSeries() },
    });
    const frame = answer.body.data?.queryDatasetFrame as { truncated: boolean; rowLimit: number | null; rows: unknown[] } | undefined;
    expect({ errors: answer.body.errors, truncated: frame?.truncated, rowLimit: frame?.rowLimit, rows: frame?.rows.length }).toEqual({
      errors: undefined,
      truncated: true,
      rowLimit: MAX_ROWS,
      rows: MAX_ROWS,
    });
  });
});
