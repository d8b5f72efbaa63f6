// Ad-hoc queries of a Live dataset and the raw SQL endpoint, written once for both transports:
// what they return, and that every hostile query of the template-injection suite is refused here
// too, with nothing read outside the datasource views and nothing written.
import { describe, expect, it, beforeAll } from '@jest/globals';
import { seedDataset, type Json } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** The row bound the suite's gateways run with, so a small dataset can show it holds. */
export const MAX_ROWS = 4;

export interface DataAccessDriver {
  query(dataset: string, query: unknown, aggregationLevel?: string): Promise<Outcome<Json[]>>;
  sql(query: string): Promise<Outcome<Json[]>>;
  ingest(datasetId: string, events: Json[]): Promise<void>;
  setAlias(datasetId: string, alias: string): Promise<void>;
}

const EVENTS = [1, 2, 3, 4, 5, 6].map((n) => ({ id: `e${n}`, ts: `2026-03-02T0${n}:00:00Z`, userid: n % 2 ? 'odd' : 'even', amount: n }));

/** The hostile statements of the template-injection suite, as an ad-hoc caller would send them. */
const WRITES: [string, string][] = [
  ['a DELETE through the datasource', 'DELETE FROM {{DATASET}}'],
  ['a DELETE from the event store', 'DELETE FROM public.events WHERE EXISTS (SELECT 1 FROM {{DATASET}})'],
  ['an UPDATE of the dataset registry', "UPDATE public.datasets SET name = 'pwned' WHERE EXISTS (SELECT 1 FROM {{DATASET}})"],
  ['a DELETE inside a WITH', 'WITH gone AS (DELETE FROM public.events RETURNING 1) SELECT count(*) AS n FROM gone, {{DATASET}}'],
  ['a SELECT ... FOR UPDATE lock', 'SELECT "id" FROM {{DATASET}} FOR UPDATE'],
  ['a second statement', 'SELECT * FROM {{DATASET}}; DELETE FROM public.events'],
  ['SET read-write then DELETE', 'SELECT 1 FROM {{DATASET}}; SET TRANSACTION READ WRITE; DELETE FROM public.events'],
  ['DROP VIEW of the datasource', 'DROP VIEW {{DATASET}}'],
  ['TRUNCATE of the event store', 'TRUNCATE public.events'],
  ['COPY to a program', "COPY (SELECT 1) TO PROGRAM 'true'"],
];
const READS_OUTSIDE: [string, string][] = [
  ['the session store', 'SELECT sid FROM public.session'],
  ['API keys', 'SELECT name, key_hash FROM public.api_keys'],
  ['the raw event store', 'SELECT payload FROM public.events'],
  ['the role catalogue', 'SELECT rolname, rolpassword FROM pg_authid'],
  ['a server file', "SELECT pg_read_file('/etc/passwd') AS f"],
];

export function dataAccessScenarios(ctx: SuiteContext<DataAccessDriver>): void {
  const id = `adhoc-${ctx.transport}`;
  let before: string;
  /** What must stay the same whatever a query tries: the counts of the tables that matter. */
  const snapshot = async () =>
    JSON.stringify(
      (await ctx.gw.sql("SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM datasets) AS datasets, (SELECT string_agg(name, ',' ORDER BY name) FROM datasets) AS names")).rows,
    );

  beforeAll(async () => {
    await seedDataset(ctx.gw, id, 'Live');
    await ctx.driver.ingest(id, EVENTS);
    await ctx.driver.setAlias(id, `${id}.alias`);
    before = await snapshot();
  });

  describe('ad-hoc queries of one dataset', () => {
    it('run SQL naming the dataset as {{DATASET}}, by id or by alias, and answer its rows', async () => {
      const sql = 'SELECT userid, COUNT(*) AS n FROM {{DATASET}} GROUP BY userid ORDER BY userid';
      expect(expectOk(await ctx.driver.query(id, sql))).toEqual([
        { userid: 'even', n: 3 },
        { userid: 'odd', n: 3 },
      ]);
      expect(expectOk(await ctx.driver.query(`${id}.alias`, `SELECT COUNT(*) AS n FROM "${id}"`))).toEqual([{ n: 6 }]);
      expect(expectOk(await ctx.driver.query(id, `SELECT COUNT(*) AS n FROM ${id}.alias WHERE amount > 3`))).toEqual([{ n: 3 }]);
    });

    it('hold the row bound inside the engine, whatever LIMIT the SQL has', async () => {
      expect(expectOk(await ctx.driver.query(id, 'SELECT id FROM {{DATASET}} ORDER BY id'))).toHaveLength(MAX_ROWS);
      expect(expectOk(await ctx.driver.query(id, 'SELECT id FROM {{DATASET}} ORDER BY id LIMIT 100000'))).toHaveLength(MAX_ROWS);
    });

    it('run a native query within 30 days, and refuse a longer interval', async () => {
      const timeseries = { queryType: 'timeseries', granularity: 'all', intervals: ['2026-03-01/2026-03-03'], aggregations: [{ type: 'count', name: 'events' }] };
      expect(expectOk(await ctx.driver.query(id, timeseries))).toEqual([{ timestamp: expect.any(String), result: { events: 6 } }]);
      expectFailure(await ctx.driver.query(id, { ...timeseries, intervals: ['2026-01-01/2026-03-03'] }), 'DATA_OUT_INVALID_DATE_RANGE', /30 days/);
    });

    it('answer DATASET_NOT_FOUND for a name that is neither a Live dataset nor an alias', async () => {
      expectFailure(await ctx.driver.query('adhoc-nowhere', 'SELECT 1'), 'DATASET_NOT_FOUND', /adhoc-nowhere/);
    });

    it.each(WRITES)('refuse %s and change nothing', async (_what, sql) => {
      const outcome = await ctx.driver.query(id, sql);
      expect(outcome.ok ? 'answered' : outcome.code).toBe('DATA_OUT_INVALID_INPUT');
      expect(await snapshot()).toBe(before);
    });

    it.each(READS_OUTSIDE)('refuse to read %s', async (_what, sql) => {
      const outcome = await ctx.driver.query(id, sql);
      expect(outcome.ok ? 'answered' : outcome.code).toBe('DATA_OUT_INVALID_INPUT');
    });
  });

  describe('the SQL endpoint for BI tools', () => {
    it('lists the datasources when asked for the tables, as a BI tool asks', async () => {
      const tables = expectOk(await ctx.driver.sql("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'DRUID'"));
      expect(tables).toContainEqual({ TABLE_NAME: id });
    });

    it('runs read-only SQL over the datasources, within the row bound', async () => {
      expect(expectOk(await ctx.driver.sql(`SELECT COUNT(*) AS n FROM "${id}"`))).toEqual([{ n: 6 }]);
      expect(expectOk(await ctx.driver.sql(`SELECT id FROM "${id}"`))).toHaveLength(MAX_ROWS);
    });

    it('refuses an empty query, SQL the engine cannot run, and every write, changing nothing', async () => {
      expectFailure(await ctx.driver.sql('  '), 'SQL_QUERY_EMPTY_REQUEST');
      expectFailure(await ctx.driver.sql('SELEC nothing'), 'SQL_QUERY_FAILURE', /syntax/);
      for (const [, sql] of [...WRITES, ...READS_OUTSIDE]) {
        const outcome = await ctx.driver.sql(sql.replaceAll('{{DATASET}}', `"${id}"`));
        expect([sql, outcome.ok ? 'answered' : outcome.code]).toEqual([sql, 'SQL_QUERY_FAILURE']);
      }
      expect(await snapshot()).toBe(before);
    });
  });
}
