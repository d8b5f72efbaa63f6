// planNativeQuery (src/platform/query-engine/native-to-sql.ts) as a pure function: the one SQL
// statement and the parameters it makes for each Druid native query type, filter and aggregator
// (issue 6, "Embedded engine"); that every name is checked against the datasource's columns; that
// unsupported constructs are refused naming them; and that every literal value of the query ends up
// in the parameters, never in the SQL text.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors.js';
import { planNativeQuery, type DatasourceShape } from '../../src/platform/query-engine/native-to-sql.js';

type Json = Record<string, unknown>;

const SOURCE: DatasourceShape = {
  relation: '"datasources"."sales"',
  columns: new Set(['id', 'userid', 'amount', 'qty', 'device.os', 'we"ird']),
};
const MAX_ROWS = 5000;
const START = '2026-03-02T00:00:00.000Z';
const END = '2026-03-03T00:00:00.000Z';
const FROM = 'FROM "datasources"."sales" WHERE "__time" >= $1::timestamptz AND "__time" < $2::timestamptz';

/** Whitespace runs as one space, so the expected SQL can be written on one line. */
function norm(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}

function plan(query: Json, maxRows = MAX_ROWS) {
  const planned = planNativeQuery({ dataSource: 'sales', intervals: [`${START}/${END}`], ...query }, SOURCE, maxRows);
  return { ...planned, sql: norm(planned.sql) };
}

/** The planner refuses the query with 400 DATA_OUT_INVALID_INPUT and a message matching `message`. */
function expectRefused(query: Json, message: RegExp): void {
  let caught: unknown;
  try {
    plan(query);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  const error = caught as GatewayError;
  expect({ code: error.code, status: error.httpStatus }).toEqual({ code: 'DATA_OUT_INVALID_INPUT', status: 400 });
  expect(error.message).toMatch(message);
}

const COUNT = { type: 'count', name: 'n' };

// ---------------------------------------------------------------------------------------------

describe('planNativeQuery: timeseries', () => {
  it('buckets by a named granularity with time_floor and the period as a parameter', () => {
    const { sql, params } = plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT] });
    expect(sql).toBe(`SELECT time_floor("__time", $3) AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
    expect(params).toEqual([START, END, 'PT1H', MAX_ROWS]);
  });

  it.each([
    ['five_minute', 'PT5M'],
    ['fifteen_minute', 'PT15M'],
    ['thirty_minute', 'PT30M'],
    ['six_hour', 'PT6H'],
    ['day', 'P1D'],
    ['week', 'P1W'],
    ['month', 'P1M'],
    ['quarter', 'P3M'],
    ['year', 'P1Y'],
  ])('maps granularity %s to the period %s', (granularity, period) => {
    expect(plan({ queryType: 'timeseries', granularity, aggregations: [COUNT] }).params).toEqual([START, END, period, MAX_ROWS]);
  });

  it('buckets by a period granularity object in UTC', () => {
    const { sql, params } = plan({ queryType: 'timeseries', granularity: { type: 'period', period: 'PT2H', timeZone: 'UTC' }, aggregations: [COUNT] });
    expect(sql).toBe(`SELECT time_floor("__time", $3) AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
    expect(params).toEqual([START, END, 'PT2H', MAX_ROWS]);
  });

  it("buckets a period granularity in another time zone at that zone's boundaries, the zone bound as a parameter", () => {
    const { sql, params } = plan({ queryType: 'timeseries', granularity: { type: 'period', period: 'P1D', timeZone: 'Asia/Kolkata' }, aggregations: [COUNT] });
    const bucket = `((time_floor(("__time" AT TIME ZONE $3) AT TIME ZONE 'UTC', $4) AT TIME ZONE 'UTC') AT TIME ZONE $3)`;
    expect(sql).toBe(`SELECT ${bucket} AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $5`);
    expect(params).toEqual([START, END, 'Asia/Kolkata', 'P1D', MAX_ROWS]);
  });

  it('makes one bucket for granularity {type: all} in any time zone, as the console writes it', () => {
    const { sql } = plan({ queryType: 'timeseries', granularity: { type: 'all', timeZone: 'Asia/Kolkata' }, aggregations: [COUNT] });
    expect(sql).toBe(`SELECT $3::timestamptz AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
  });

  it('makes one bucket for granularity all (and when no granularity is given), stamped with the interval start', () => {
    for (const granularity of ['all', undefined]) {
      const { sql, params } = plan({ queryType: 'timeseries', granularity, aggregations: [COUNT] });
      expect(sql).toBe(`SELECT $3::timestamptz AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
      expect(params).toEqual([START, END, START, MAX_ROWS]);
    }
  });

  it('orders buckets newest first when descending is true', () => {
    expect(plan({ queryType: 'timeseries', granularity: 'day', descending: true, aggregations: [COUNT] }).sql).toBe(
      `SELECT time_floor("__time", $3) AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 DESC LIMIT $4`,
    );
  });

  it('binds the query limit, capped at maxRows', () => {
    expect(plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT], limit: 10 }).params).toEqual([START, END, 'PT1H', 10]);
    expect(plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT], limit: 10 }, 7).params).toEqual([START, END, 'PT1H', 7]);
    expect(plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT], limit: 1e9 }).params).toEqual([START, END, 'PT1H', MAX_ROWS]);
  });

  it('accepts the interval as a string, a list of one, or an intervals object', () => {
    const forms = [`${START}/${END}`, [`${START}/${END}`], { type: 'intervals', intervals: [`${START}/${END}`] }];
    for (const intervals of forms) {
      const { sql, params } = plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT], intervals });
      expect(sql).toContain(FROM);
      expect(params.slice(0, 2)).toEqual([START, END]);
    }
  });

  it('stamps the granularity-all bucket with the interval start for an intervals object too', () => {
    const { params } = plan({ queryType: 'timeseries', granularity: 'all', aggregations: [COUNT], intervals: { type: 'intervals', intervals: [`${START}/${END}`] } });
    expect(params).toEqual([START, END, START, MAX_ROWS]);
  });

  it('stamps the granularity-all bucket with a zoned instant, as the WHERE bounds are (a date-only interval is UTC in Druid)', () => {
    // A zone-less text cast to timestamptz would depend on the session's TimeZone.
    const { params } = plan({ queryType: 'timeseries', granularity: 'all', aggregations: [COUNT], intervals: ['2026-03-02/2026-03-03'] });
    expect(params.slice(0, 2)).toEqual([START, END]);
    expect(String(params[2])).toMatch(/(Z|[+-]\d{2}:?\d{2})$/);
    expect(Date.parse(String(params[2]))).toBe(Date.parse(START));
  });

  it('shapes rows into [{timestamp, result}] with the aggregation names only, nulls kept', () => {
    const { shape } = plan({ queryType: 'timeseries', granularity: 'hour', aggregations: [COUNT, { type: 'doubleMax', name: 'top', fieldName: 'amount' }] });
    expect(
      shape([
        { timestamp: new Date('2026-03-02T10:00:00Z'), n: 2, top: null },
        { timestamp: '2026-03-02T11:00:00.000Z', n: 1, top: 4.5 },
      ]),
    ).toStrictEqual([
      { timestamp: '2026-03-02T10:00:00.000Z', result: { n: 2, top: null } },
      { timestamp: '2026-03-02T11:00:00.000Z', result: { n: 1, top: 4.5 } },
    ]);
  });
});

describe('planNativeQuery: aggregators', () => {
  it.each([
    ['count', { type: 'count', name: 'a' }, 'COUNT(*) AS "a"'],
    ['longSum', { type: 'longSum', name: 'a', fieldName: 'qty' }, 'SUM("qty"::bigint) AS "a"'],
    ['doubleSum', { type: 'doubleSum', name: 'a', fieldName: 'amount' }, 'SUM("amount"::double precision) AS "a"'],
    ['floatSum', { type: 'floatSum', name: 'a', fieldName: 'amount' }, 'SUM("amount"::double precision) AS "a"'],
    ['longMin', { type: 'longMin', name: 'a', fieldName: 'qty' }, 'MIN("qty"::bigint) AS "a"'],
    ['longMax', { type: 'longMax', name: 'a', fieldName: 'qty' }, 'MAX("qty"::bigint) AS "a"'],
    ['doubleMin', { type: 'doubleMin', name: 'a', fieldName: 'amount' }, 'MIN("amount"::double precision) AS "a"'],
    ['doubleMax', { type: 'doubleMax', name: 'a', fieldName: 'amount' }, 'MAX("amount"::double precision) AS "a"'],
    ['floatMin', { type: 'floatMin', name: 'a', fieldName: 'amount' }, 'MIN("amount"::double precision) AS "a"'],
    ['floatMax', { type: 'floatMax', name: 'a', fieldName: 'amount' }, 'MAX("amount"::double precision) AS "a"'],
    ['a nested field', { type: 'longSum', name: 'a', fieldName: 'device.os' }, 'SUM("device.os"::bigint) AS "a"'],
    ['a column whose name has a double quote', { type: 'longSum', name: 'a', fieldName: 'we"ird' }, 'SUM("we""ird"::bigint) AS "a"'],
  ])('writes %s as one SQL aggregate', (_, aggregation, select) => {
    const { sql, params } = plan({ queryType: 'timeseries', granularity: 'all', aggregations: [aggregation] });
    expect(sql).toBe(`SELECT $3::timestamptz AS "timestamp", ${select} ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
    expect(params).toEqual([START, END, START, MAX_ROWS]);
  });

  it('quotes an output name that holds SQL, so it stays one identifier', () => {
    const { sql } = plan({ queryType: 'timeseries', granularity: 'all', aggregations: [{ type: 'count', name: 'x" FROM pg_shadow; --' }] });
    expect(sql).toBe(`SELECT $3::timestamptz AS "timestamp", COUNT(*) AS "x"" FROM pg_shadow; --" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`);
  });

  it('writes several aggregations in their order', () => {
    const { sql } = plan({
      queryType: 'timeseries',
      granularity: 'all',
      aggregations: [COUNT, { type: 'longSum', name: 'q', fieldName: 'qty' }, { type: 'doubleMin', name: 'm', fieldName: 'amount' }],
    });
    expect(sql).toContain('COUNT(*) AS "n", SUM("qty"::bigint) AS "q", MIN("amount"::double precision) AS "m" FROM');
  });
});

describe('planNativeQuery: filters', () => {
  /** The SQL of a timeseries (granularity all, count) with `where` after the time bounds, filter parameters from $3. */
  function expectFilter(filter: Json, where: string, filterParams: unknown[]): void {
    const { sql, params } = plan({ queryType: 'timeseries', granularity: 'all', aggregations: [COUNT], filter });
    const stamp = 3 + filterParams.length;
    expect(sql).toBe(`SELECT $${stamp}::timestamptz AS "timestamp", COUNT(*) AS "n" ${FROM} AND ${where} GROUP BY 1 ORDER BY 1 ASC LIMIT $${stamp + 1}`);
    expect(params).toEqual([START, END, ...filterParams, START, MAX_ROWS]);
  }

  it.each<[string, Json, string, unknown[]]>([
    ['selector', { type: 'selector', dimension: 'userid', value: 'u1' }, '"userid"::text = $3', ['u1']],
    ['selector on a nested field', { type: 'selector', dimension: 'device.os', value: 'ios' }, '"device.os"::text = $3', ['ios']],
    ['selector with a number (compared as text, as Druid does)', { type: 'selector', dimension: 'qty', value: 5 }, '"qty"::text = $3', ['5']],
    ['selector with null', { type: 'selector', dimension: 'device.os', value: null }, '"device.os" IS NULL', []],
    ['selector on __time', { type: 'selector', dimension: '__time', value: 'x' }, '"__time"::text = $3', ['x']],
    ['in', { type: 'in', dimension: 'userid', values: ['u1', 'u3'] }, '"userid"::text = ANY($3::text[])', [['u1', 'u3']]],
    [
      'numeric bound',
      { type: 'bound', dimension: 'qty', lower: '2', upper: 4, ordering: 'numeric' },
      '("qty"::double precision >= $3::double precision AND "qty"::double precision <= $4::double precision)',
      [2, 4],
    ],
    [
      'numeric bound, strict',
      { type: 'bound', dimension: 'amount', lower: 1, lowerStrict: true, upper: 9.5, upperStrict: true, ordering: 'numeric' },
      '("amount"::double precision > $3::double precision AND "amount"::double precision < $4::double precision)',
      [1, 9.5],
    ],
    ['lexicographic bound, lower only', { type: 'bound', dimension: 'userid', lower: 'u2' }, '("userid"::text >= $3::text)', ['u2']],
    ['lexicographic bound, upper only', { type: 'bound', dimension: 'userid', upper: 'u2', upperStrict: true }, '("userid"::text < $3::text)', ['u2']],
    ['bound without ends', { type: 'bound', dimension: 'userid' }, 'TRUE', []],
    [
      'and',
      {
        type: 'and',
        fields: [
          { type: 'selector', dimension: 'userid', value: 'u1' },
          { type: 'selector', dimension: 'device.os', value: 'ios' },
        ],
      },
      '("userid"::text = $3 AND "device.os"::text = $4)',
      ['u1', 'ios'],
    ],
    [
      'or',
      {
        type: 'or',
        fields: [
          { type: 'selector', dimension: 'userid', value: 'u1' },
          { type: 'in', dimension: 'userid', values: ['u2'] },
        ],
      },
      '("userid"::text = $3 OR "userid"::text = ANY($4::text[]))',
      ['u1', ['u2']],
    ],
    ['not', { type: 'not', field: { type: 'selector', dimension: 'userid', value: 'u1' } }, 'NOT ("userid"::text = $3)', ['u1']],
    [
      'nested and/or/not',
      {
        type: 'and',
        fields: [
          {
            type: 'or',
            fields: [
              { type: 'selector', dimension: 'userid', value: 'a' },
              { type: 'not', field: { type: 'selector', dimension: 'id', value: 'b' } },
            ],
          },
          { type: 'bound', dimension: 'qty', lower: 1, ordering: 'numeric' },
        ],
      },
      '(("userid"::text = $3 OR NOT ("id"::text = $4)) AND ("qty"::double precision >= $5::double precision))',
      ['a', 'b', 1],
    ],
  ])('writes a %s filter with its values as parameters', (_, filter, where, filterParams) => {
    expectFilter(filter, where, filterParams);
  });

  it('adds no condition for a null filter', () => {
    expect(plan({ queryType: 'timeseries', granularity: 'all', aggregations: [COUNT], filter: null }).sql).toBe(
      `SELECT $3::timestamptz AS "timestamp", COUNT(*) AS "n" ${FROM} GROUP BY 1 ORDER BY 1 ASC LIMIT $4`,
    );
  });
});

describe('planNativeQuery: groupBy', () => {
  const query = {
    queryType: 'groupBy',
    granularity: 'all',
    dimensions: ['userid', { type: 'default', dimension: 'device.os', outputName: 'os' }],
    aggregations: [
      { type: 'count', name: 'events' },
      { type: 'longSum', name: 'qty', fieldName: 'qty' },
    ],
  };

  it('groups by time and each dimension, ordered and limited by the limitSpec', () => {
    const { sql, params } = plan({ ...query, limitSpec: { type: 'default', limit: 3, columns: [{ dimension: 'qty', direction: 'descending' }, 'userid'] } });
    expect(sql).toBe(
      `SELECT $3::timestamptz AS "timestamp", "userid" AS "userid", "device.os" AS "os", COUNT(*) AS "events", SUM("qty"::bigint) AS "qty" ` +
        `${FROM} GROUP BY 1, 2, 3 ORDER BY 1, "qty" DESC, "userid" ASC LIMIT $4`,
    );
    expect(params).toEqual([START, END, START, 3]);
  });

  it('caps the limitSpec limit at maxRows', () => {
    expect(plan({ ...query, limitSpec: { type: 'default', limit: 100_000 } }).params).toEqual([START, END, START, MAX_ROWS]);
  });

  it('orders rows of a bucket by the dimensions when no limitSpec says otherwise (Druid sorts groupBy rows by time, then dimensions)', () => {
    const { sql } = plan({ ...query, granularity: 'hour' });
    expect(sql).toBe(
      `SELECT time_floor("__time", $3) AS "timestamp", "userid" AS "userid", "device.os" AS "os", COUNT(*) AS "events", SUM("qty"::bigint) AS "qty" ` +
        `${FROM} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LIMIT $4`,
    );
  });

  it('shapes rows into [{timestamp, result}] with dimensions and aggregations, nulls kept', () => {
    const { shape } = plan(query);
    expect(shape([{ timestamp: START, userid: 'u1', os: null, events: 1, qty: 6, extra: 'dropped' }])).toStrictEqual([{ timestamp: START, result: { userid: 'u1', os: null, events: 1, qty: 6 } }]);
  });

  it('refuses a limitSpec column that is neither a dimension nor an aggregation, naming it', () => {
    expectRefused({ ...query, limitSpec: { type: 'default', columns: ['amount'] } }, /"amount"/);
  });
});

describe('planNativeQuery: topN', () => {
  it('ranks the dimension by the metric within each bucket and keeps threshold rows per bucket', () => {
    const { sql, params } = plan({
      queryType: 'topN',
      granularity: 'all',
      dimension: 'userid',
      metric: 'qty',
      threshold: 2,
      aggregations: [{ type: 'longSum', name: 'qty', fieldName: 'qty' }],
    });
    expect(sql).toBe(
      'SELECT * FROM (SELECT ranked.*, row_number() OVER (PARTITION BY "timestamp" ORDER BY "qty" DESC) AS "__rank" FROM ' +
        `(SELECT $3::timestamptz AS "timestamp", "userid" AS "userid", SUM("qty"::bigint) AS "qty" ${FROM} GROUP BY 1, 2) AS ranked) AS top ` +
        'WHERE "__rank" <= $4 ORDER BY "timestamp", "__rank"',
    );
    expect(params).toEqual([START, END, START, 2]);
  });

  it('accepts the metric as a numeric metric spec and a dimension spec with an output name', () => {
    const { sql } = plan({
      queryType: 'topN',
      granularity: 'hour',
      dimension: { type: 'default', dimension: 'device.os', outputName: 'os' },
      metric: { type: 'numeric', metric: 'n' },
      threshold: 1,
      aggregations: [COUNT],
    });
    expect(sql).toContain('ORDER BY "n" DESC');
    expect(sql).toContain('"device.os" AS "os"');
  });

  it('shapes rows into one item per bucket holding the ranked list', () => {
    const { shape } = plan({ queryType: 'topN', granularity: 'hour', dimension: 'userid', metric: 'n', threshold: 2, aggregations: [COUNT] });
    expect(
      shape([
        { timestamp: '2026-03-02T10:00:00.000Z', userid: 'u1', n: 2, __rank: 1 },
        { timestamp: '2026-03-02T10:00:00.000Z', userid: 'u2', n: 1, __rank: 2 },
        { timestamp: '2026-03-02T11:00:00.000Z', userid: 'u3', n: 1, __rank: 1 },
      ]),
    ).toStrictEqual([
      {
        timestamp: '2026-03-02T10:00:00.000Z',
        result: [
          { userid: 'u1', n: 2 },
          { userid: 'u2', n: 1 },
        ],
      },
      { timestamp: '2026-03-02T11:00:00.000Z', result: [{ userid: 'u3', n: 1 }] },
    ]);
  });

  it('refuses a metric that is not one of its aggregations, naming it', () => {
    expectRefused({ queryType: 'topN', dimension: 'userid', metric: 'amount', threshold: 2, aggregations: [COUNT] }, /"amount"/);
  });
});

describe('planNativeQuery: virtualColumns and postAggregations', () => {
  const ratio = { type: 'expression', name: 'v0', expression: 'case_searched((qty > 0),(amount/qty),0', outputType: 'DOUBLE' };

  it('computes a virtual column per row wherever a column is named: aggregations, dimensions and filters', () => {
    const { sql } = plan({
      queryType: 'groupBy',
      granularity: 'all',
      virtualColumns: [ratio, { type: 'expression', name: 'big', expression: 'v0 > 10' }],
      dimensions: ['big'],
      aggregations: [{ type: 'doubleMin', name: 'least', fieldName: 'v0' }],
      filter: { type: 'selector', dimension: 'big', value: '1' },
    });
    const v0 = '(((CASE WHEN (("qty") > ($3::bigint)) THEN (("amount") / NULLIF("qty", 0)) ELSE $4::bigint END))::double precision)';
    expect(sql).toContain(`MIN((${v0})::double precision) AS "least"`);
    // A later virtual column sees the earlier one; a comparison is 1 or 0 as a value.
    expect(sql).toContain(`((((${v0}) > ($5::bigint)))::int) AS "big"`);
    expect(sql).toContain(`${FROM} AND ((((${v0}) > ($5::bigint)))::int)::text = $6 GROUP BY 1, 2`);
  });

  it('computes post-aggregations over each aggregated row, in their order, each seeing those before it', () => {
    const { sql, shape } = plan({
      queryType: 'timeseries',
      granularity: 'hour',
      aggregations: [
        { type: 'longSum', name: 'qty', fieldName: 'qty' },
        { type: 'doubleSum', name: 'amount', fieldName: 'amount' },
      ],
      postAggregations: [
        { type: 'expression', name: 'avg', expression: 'case_searched((qty > 0),(amount/qty),0' },
        {
          type: 'arithmetic',
          name: 'twice',
          fn: '*',
          fields: [
            { type: 'fieldAccess', fieldName: 'avg' },
            { type: 'constant', name: 'two', value: 2 },
          ],
        },
      ],
    });
    expect(sql).toMatch(/^SELECT agg\.\*, \(CASE WHEN \(\(agg\."qty"::bigint\) > \(\$4::bigint\)\) THEN \(\(agg\."amount"\) \/ NULLIF\(agg\."qty"::bigint, 0\)\) ELSE \$5::bigint END\) AS "avg", /);
    expect(sql).toContain(
      `FROM (SELECT time_floor("__time", $3) AS "timestamp", SUM("qty"::bigint) AS "qty", SUM("amount"::double precision) AS "amount" ${FROM} GROUP BY 1) AS agg ORDER BY 1 ASC LIMIT $7`,
    );
    expect(shape([{ timestamp: START, qty: 4, amount: 10, avg: 2.5, twice: 5 }])).toStrictEqual([{ timestamp: START, result: { qty: 4, amount: 10, avg: 2.5, twice: 5 } }]);
  });

  it('orders a groupBy and ranks a topN by a post-aggregation', () => {
    const average = {
      type: 'arithmetic',
      name: 'average',
      fn: '/',
      fields: [
        { type: 'fieldAccess', fieldName: 'qty' },
        { type: 'fieldAccess', fieldName: 'n' },
      ],
    };
    const grouped = plan({
      queryType: 'groupBy',
      granularity: 'all',
      dimensions: ['userid'],
      aggregations: [COUNT, { type: 'longSum', name: 'qty', fieldName: 'qty' }],
      postAggregations: [average],
      limitSpec: { type: 'default', limit: 5, columns: [{ dimension: 'average', direction: 'descending' }] },
    });
    expect(grouped.sql).toContain('COALESCE((agg."qty"::bigint)::double precision / NULLIF((agg."n"::bigint)::double precision, 0), 0) AS "average"');
    expect(grouped.sql).toMatch(/\) AS agg ORDER BY 1, "average" DESC LIMIT \$\d+$/);
    const top = plan({
      queryType: 'topN',
      granularity: 'all',
      dimension: 'userid',
      metric: 'average',
      threshold: 3,
      aggregations: [COUNT, { type: 'longSum', name: 'qty', fieldName: 'qty' }],
      postAggregations: [average],
    });
    expect(top.sql).toContain('ORDER BY "average" DESC');
    expect(top.shape([{ timestamp: START, userid: 'u1', n: 2, qty: 5, average: 2.5, __rank: 1 }])).toStrictEqual([{ timestamp: START, result: [{ userid: 'u1', n: 2, qty: 5, average: 2.5 }] }]);
  });

  it('refuses what names nothing it knows, naming it', () => {
    expectRefused(
      { queryType: 'timeseries', aggregations: [COUNT], virtualColumns: [{ type: 'expression', name: 'v', expression: 'nope + 1' }] },
      /virtualColumns\[0\] v: the expression names "nope"/,
    );
    expectRefused(
      { queryType: 'timeseries', aggregations: [COUNT], postAggregations: [{ type: 'expression', name: 'p', expression: 'qty / n' }] },
      /postAggregations\[0\]: the expression names "qty"/,
    );
    expectRefused(
      {
        queryType: 'timeseries',
        aggregations: [COUNT],
        postAggregations: [
          { type: 'fieldAccess', name: 'p', fieldName: 'later' },
          { type: 'fieldAccess', name: 'later', fieldName: 'n' },
        ],
      },
      /fieldName "later"/,
    );
    expectRefused({ queryType: 'timeseries', aggregations: [COUNT], postAggregations: [{ type: 'constant', name: 'c', value: 'DROP' }] }, /constant's value must be a number/);
    expectRefused(
      { queryType: 'timeseries', aggregations: [COUNT], virtualColumns: Array.from({ length: 51 }, (_, i) => ({ type: 'expression', name: `v${i}`, expression: '1' })) },
      /at most 50 virtualColumns/,
    );
  });
});

describe('planNativeQuery: scan', () => {
  it('selects the listed columns in time order with the limit as a parameter', () => {
    const { sql, params } = plan({ queryType: 'scan', columns: ['__time', 'id', 'device.os'], limit: 10, order: 'descending' });
    expect(sql).toBe(`SELECT "__time" AS "__time", "id" AS "id", "device.os" AS "device.os" ${FROM} ORDER BY "__time" DESC LIMIT $3`);
    expect(params).toEqual([START, END, 10]);
  });

  it('selects __time and every column when no columns are listed, up to maxRows', () => {
    const { sql, params } = plan({ queryType: 'scan' });
    expect(sql).toBe(
      `SELECT "__time" AS "__time", "id" AS "id", "userid" AS "userid", "amount" AS "amount", "qty" AS "qty", "device.os" AS "device.os", "we""ird" AS "we""ird" ` +
        `${FROM} ORDER BY "__time" ASC LIMIT $3`,
    );
    expect(params).toEqual([START, END, MAX_ROWS]);
  });

  it('shapes rows into one batch of {columns, events} with __time as ISO text', () => {
    const { shape } = plan({ queryType: 'scan', columns: ['__time', 'id'] });
    expect(shape([{ __time: new Date('2026-03-02T10:05:00Z'), id: 'e1' }])).toStrictEqual([
      { segmentId: expect.any(String), columns: ['__time', 'id'], events: [{ __time: '2026-03-02T10:05:00.000Z', id: 'e1' }] },
    ]);
  });
});

describe('planNativeQuery: timeBoundary', () => {
  it('selects the first and last time of the interval (and filter)', () => {
    const { sql, params } = plan({ queryType: 'timeBoundary', filter: { type: 'selector', dimension: 'userid', value: 'u2' } });
    expect(sql).toBe(`SELECT MIN("__time") AS "minTime", MAX("__time") AS "maxTime" ${FROM} AND "userid"::text = $3`);
    expect(params).toEqual([START, END, 'u2']);
  });

  it('shapes the row into [{timestamp: minTime, result: {minTime, maxTime}}], and no row into []', () => {
    const { shape } = plan({ queryType: 'timeBoundary' });
    expect(shape([{ minTime: '2026-03-02T10:05:00.000Z', maxTime: '2026-03-02T12:30:00.000Z' }])).toStrictEqual([
      { timestamp: '2026-03-02T10:05:00.000Z', result: { minTime: '2026-03-02T10:05:00.000Z', maxTime: '2026-03-02T12:30:00.000Z' } },
    ]);
    expect(shape([{ minTime: null, maxTime: null }])).toEqual([]);
  });

  it('gives only the bound asked for ("bound": "maxTime" / "minTime"), as Druid does', () => {
    const row = { minTime: '2026-03-02T10:05:00.000Z', maxTime: '2026-03-02T12:30:00.000Z' };
    const max = plan({ queryType: 'timeBoundary', bound: 'maxTime' }).shape([row]) as { result: Json }[];
    expect(max).toHaveLength(1);
    expect(max[0]!.result).toStrictEqual({ maxTime: '2026-03-02T12:30:00.000Z' });
    const min = plan({ queryType: 'timeBoundary', bound: 'minTime' }).shape([row]) as { result: Json }[];
    expect(min[0]!.result).toStrictEqual({ minTime: '2026-03-02T10:05:00.000Z' });
  });
});

describe('planNativeQuery: names are checked against the datasource', () => {
  it.each<[string, Json]>([
    ['a filter dimension', { queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'selector', dimension: 'nope', value: 'x' } }],
    ['an in filter dimension', { queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'in', dimension: 'nope', values: ['x'] } }],
    ['a bound filter dimension', { queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'bound', dimension: 'nope', lower: 1 } }],
    ['a dimension nested in not', { queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'not', field: { type: 'selector', dimension: 'nope', value: 'x' } } }],
    ['an aggregator fieldName', { queryType: 'timeseries', aggregations: [{ type: 'longSum', name: 'a', fieldName: 'nope' }] }],
    ['a groupBy dimension', { queryType: 'groupBy', dimensions: ['nope'], aggregations: [COUNT] }],
    ['a groupBy dimension spec', { queryType: 'groupBy', dimensions: [{ type: 'default', dimension: 'nope', outputName: 'x' }], aggregations: [COUNT] }],
    ['a topN dimension', { queryType: 'topN', dimension: 'nope', metric: 'n', threshold: 1, aggregations: [COUNT] }],
    ['a scan column', { queryType: 'scan', columns: ['id', 'nope'] }],
  ])('refuses %s that is not a column, naming it', (_, query) => {
    expectRefused(query, /"nope" is not a column/);
  });

  it.each(['userid"; DROP TABLE events; --', 'userid" FROM pg_shadow --', "userid' OR '1'='1", 'USERID', 'device', 'os', ' userid', 'userid\u0000'])(
    'refuses the name %j, which only looks like a column',
    (name) => {
      expectRefused({ queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'selector', dimension: name, value: 'x' } }, /is not a column/);
      expectRefused({ queryType: 'scan', columns: [name] }, /is not a column/);
    },
  );

  it('refuses a dimension or field that is not a string', () => {
    expectRefused({ queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'selector', dimension: ['userid'], value: 'x' } }, /is not a column/);
    expectRefused({ queryType: 'timeseries', aggregations: [{ type: 'longSum', name: 'a', fieldName: { $ne: 1 } }] }, /is not a column/);
  });
});

describe('planNativeQuery: unsupported constructs are refused, naming them', () => {
  const base = { queryType: 'timeseries', granularity: 'all', aggregations: [COUNT] };
  it.each<[string, Json, RegExp]>([
    ['a search query', { queryType: 'search' }, /queryType "search"/],
    ['a segmentMetadata query', { queryType: 'segmentMetadata' }, /queryType "segmentMetadata"/],
    ['a dataSourceMetadata query', { queryType: 'dataSourceMetadata' }, /queryType "dataSourceMetadata"/],
    ['a query without a type', { queryType: undefined }, /queryType/],
    [
      'an arithmetic post-aggregator without fields',
      { ...base, postAggregations: [{ type: 'arithmetic', name: 'x', fn: '+', fields: [] }] },
      /postAggregations\[0\]: an arithmetic post-aggregator needs at least two fields/,
    ],
    [
      'a javascript post-aggregator',
      { ...base, postAggregations: [{ type: 'javascript', name: 'x', fieldNames: ['n'], function: 'f' }] },
      /post-aggregator type "javascript" \(postAggregations\[0\]\)/,
    ],
    ['a hyperUniqueCardinality post-aggregator', { ...base, postAggregations: [{ type: 'hyperUniqueCardinality', name: 'x', fieldName: 'n' }] }, /hyperUniqueCardinality/],
    [
      'a nested-field virtual column',
      { ...base, virtualColumns: [{ type: 'nested-field', name: 'v', columnName: 'device', path: '$.os' }] },
      /virtual column type "nested-field" \(virtualColumns\[0\]\)/,
    ],
    [
      'an expression with a function it does not have',
      { ...base, virtualColumns: [{ type: 'expression', name: 'v', expression: "regexp_extract(userid, 'a')" }] },
      /virtualColumns\[0\] v: .*regexp_extract\(\)/,
    ],
    ['an ARRAY output type', { ...base, virtualColumns: [{ type: 'expression', name: 'v', expression: 'qty', outputType: 'ARRAY<LONG>' }] }, /outputType "ARRAY<LONG>"/],
    ['a having clause', { queryType: 'groupBy', dimensions: ['userid'], aggregations: [COUNT], having: { type: 'greaterThan', aggregation: 'n', value: 1 } }, /having/],
    ['subtotalsSpec', { queryType: 'groupBy', dimensions: ['userid'], aggregations: [COUNT], subtotalsSpec: [[]] }, /subtotalsSpec/],
    ['a javascript filter', { ...base, filter: { type: 'javascript', dimension: 'userid', function: 'function(x){return true}' } }, /javascript/],
    ['a regex filter', { ...base, filter: { type: 'regex', dimension: 'userid', pattern: '.*' } }, /regex/],
    ['a like filter', { ...base, filter: { type: 'like', dimension: 'userid', pattern: '%' } }, /like/],
    ['an expression filter', { ...base, filter: { type: 'expression', expression: '1' } }, /expression/],
    ['a javascript filter inside not', { ...base, filter: { type: 'not', field: { type: 'javascript', dimension: 'userid', function: 'f' } } }, /javascript/],
    ['a hyperUnique aggregator', { ...base, aggregations: [{ type: 'hyperUnique', name: 'u', fieldName: 'userid' }] }, /hyperUnique/],
    ['a cardinality aggregator', { ...base, aggregations: [{ type: 'cardinality', name: 'u', fields: ['userid'] }] }, /cardinality/],
    ['a javascript aggregator', { ...base, aggregations: [{ type: 'javascript', name: 'j', fieldNames: ['qty'] }] }, /javascript/],
    ['a filtered aggregator', { ...base, aggregations: [{ type: 'filtered', name: 'f', filter: {}, aggregator: COUNT }] }, /filtered/],
    ['a thetaSketch aggregator', { ...base, aggregations: [{ type: 'thetaSketch', name: 't', fieldName: 'userid' }] }, /thetaSketch/],
    ['a granularity period string', { ...base, granularity: 'PT1H' }, /granularity "PT1H"/],
    ['a duration granularity', { ...base, granularity: { type: 'duration', duration: 3600000 } }, /granularity/],
    ['a time zone that is not a zone name', { ...base, granularity: { type: 'period', period: 'P1D', timeZone: "Asia/Kolkata'; DROP TABLE events; --" } }, /time zone/],
    ['a time zone that is not text', { ...base, granularity: { type: 'all', timeZone: 530 } }, /time zone/],
    ['a period that is not an ISO period', { ...base, granularity: { type: 'period', period: "P1D'; DROP TABLE events; --" } }, /granularity/],
    ['an extraction dimension', { queryType: 'groupBy', dimensions: [{ type: 'extraction', dimension: 'userid', outputName: 'u', extractionFn: {} }], aggregations: [COUNT] }, /dimension spec/],
    ['two intervals', { ...base, intervals: [`${START}/${END}`, `${START}/${END}`] }, /interval/],
    ['no interval', { ...base, intervals: [] }, /interval/],
  ])('refuses %s', (_, query, message) => {
    expectRefused(query, message);
  });

  it('refuses an interval that is not two dates', () => {
    expectRefused({ ...base, intervals: ["2026-03-02'; DROP TABLE events; --/2026-03-03"] }, /interval/);
    expectRefused({ ...base, intervals: ['2026-03-02'] }, /interval/);
  });

  it('refuses filters nested deeper than 20 levels', () => {
    let filter: Json = { type: 'selector', dimension: 'userid', value: 'x' };
    for (let depth = 0; depth < 25; depth += 1) filter = { type: 'not', field: filter };
    expectRefused({ ...base, filter }, /deeper/);
  });
});

describe('planNativeQuery: literal values go to the parameters, never into the SQL', () => {
  const MARK = 'ZQXJ';
  const value = fc.string({ maxLength: 40 }).map((text) => `${MARK}${text}`);

  function filtersWith(text: string): Json[] {
    return [
      { type: 'selector', dimension: 'userid', value: text },
      { type: 'in', dimension: 'userid', values: [text, `${text}2`] },
      { type: 'bound', dimension: 'userid', lower: text, upper: `${text}~` },
      {
        type: 'and',
        fields: [
          { type: 'not', field: { type: 'selector', dimension: 'id', value: text } },
          { type: 'selector', dimension: 'device.os', value: text },
        ],
      },
    ];
  }

  it('keeps any string value of a selector, in, bound, and or not filter out of the SQL text', () => {
    fc.assert(
      fc.property(value, (text) => {
        for (const filter of filtersWith(text)) {
          for (const queryType of ['timeseries', 'groupBy', 'scan', 'timeBoundary']) {
            const query: Json = {
              queryType,
              filter,
              ...(queryType === 'groupBy' ? { dimensions: ['userid'] } : {}),
              ...(queryType === 'timeseries' || queryType === 'groupBy' ? { aggregations: [COUNT] } : {}),
            };
            const { sql, params } = plan(query);
            expect(sql).not.toContain(MARK);
            expect(JSON.stringify(params)).toContain(JSON.stringify(text).slice(1, -1).slice(0, 8));
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('binds the interval bounds, the granularity period and the limits; no number or date is written into the SQL', () => {
    const samples: Json[] = [
      { queryType: 'timeseries', granularity: 'fifteen_minute', aggregations: [COUNT], limit: 123 },
      { queryType: 'timeseries', granularity: { type: 'period', period: 'P2W' }, aggregations: [COUNT] },
      { queryType: 'groupBy', dimensions: ['userid'], aggregations: [COUNT], limitSpec: { type: 'default', limit: 77 } },
      { queryType: 'topN', dimension: 'userid', metric: 'n', threshold: 9, aggregations: [COUNT] },
      { queryType: 'scan', columns: ['id'], limit: 55 },
      { queryType: 'timeBoundary', filter: { type: 'bound', dimension: 'qty', lower: 31, upper: 47.5, ordering: 'numeric' } },
      { queryType: 'timeseries', aggregations: [COUNT], filter: { type: 'selector', dimension: 'qty', value: 1234 } },
    ];
    for (const query of samples) {
      const { sql, params } = plan(query);
      // Placeholders ($n) and the "1" / "1, 2, 3" of GROUP BY / ORDER BY positions are the only digits.
      const digits = sql
        .replace(/\$\d+/g, '')
        .replace(/(GROUP BY|ORDER BY) [\d, ]+/g, '$1 ')
        .replace(/"[^"]*"/g, '""');
      expect({ query: query.queryType, digits: digits.match(/\d/g) }).toEqual({ query: query.queryType, digits: null });
      expect(sql).not.toContain('2026');
      expect(params).toEqual(expect.arrayContaining([START, END]));
    }
  });

  it('leaves the datasource name, the query context and unknown values of the query out of the SQL', () => {
    const { sql } = plan({ queryType: 'timeseries', dataSource: `sales"; DROP TABLE events; --`, aggregations: [COUNT], context: { timeout: 1, x: "'; DROP" } });
    expect(sql).not.toContain('DROP');
    expect(sql).toContain('FROM "datasources"."sales" WHERE');
  });
});
