// Druid expressions (virtual columns, expression post-aggregators) compiled to SQL and evaluated by
// the real PostgreSQL: the console's processing-time expressions (one of them missing its last
// parenthesis, as the console sends it), Druid's LONG/DOUBLE arithmetic, logic, functions, and the
// refusal of what the engine does not support, naming it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { GatewayError } from '../../src/errors.js';
import { compileExpression, type CompiledExpression, type ExpressionType } from '../../src/platform/query-engine/druid-expression.js';

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
  await client.connect();
});
afterAll(async () => {
  await client.end();
});

/** The columns an expression may name here, with their Druid types and values. */
const COLUMNS: Record<string, { type: ExpressionType; value: unknown }> = {
  count: { type: 'long', value: 3 },
  zero: { type: 'long', value: 0 },
  total_processing_time: { type: 'long', value: 10 },
  a2: { type: 'double', value: 10 },
  a3: { type: 'long', value: 4 },
  s: { type: 'string', value: 'b' },
  'we ird': { type: 'long', value: 21 },
};

function compile(text: string, columns: Record<string, { type: ExpressionType; value: unknown }> = COLUMNS): { compiled: CompiledExpression; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const compiled = compileExpression(
    text,
    {
      bind,
      resolve: (name) => {
        const column = columns[name];
        if (!column) return undefined;
        const cast = column.type === 'long' ? 'bigint' : column.type === 'double' ? 'double precision' : 'text';
        return { sql: `${bind(column.value)}::${cast}`, type: column.type };
      },
    },
    'test',
  );
  return { compiled, params };
}

async function evaluate(text: string, columns?: Record<string, { type: ExpressionType; value: unknown }>): Promise<unknown> {
  const { compiled, params } = compile(text, columns);
  const result = await client.query({ text: `SELECT ${compiled.sql} AS v`, values: params, rowMode: 'array' });
  const value = (result.rows[0] as unknown[])[0];
  // bigint and numeric come back as text from node-postgres.
  return typeof value === 'string' && compiled.type !== 'string' ? Number(value) : value;
}

describe('Druid expressions on PostgreSQL', () => {
  it.each<[string, unknown]>([
    // The console's processing charts: a LONG by a LONG is whole-number division, as in Druid.
    ['case_searched((count > 0),(total_processing_time/count),0', 3],
    ['case_searched((zero > 0),(total_processing_time/zero),0', 0],
    ['case_searched((a3 > 0),(a2/a3),0', 2.5],
    // Parentheses left open at the very end are closed, as Druid's parser recovers them.
    ['(1 + (2', 3],
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['-2 + 5', 3],
    ['7 % 3', 1],
    ['7.5 / 2', 3.75],
    ['7 / 2', 3],
    ['count / zero', null],
    ['!(1 > 2)', 1],
    ['1 > 2 || 3 > 2', 1],
    ['count > 1 && a2 < 5', 0],
    ['if(count > 1, 10, 20)', 10],
    ['nvl(null, 5)', 5],
    ['greatest(1, count, 2)', 3],
    ['least(a2, 4.5)', 4.5],
    ["case_simple(s, 'a', 1, 'b', 2, 0)", 2],
    ["case_simple(s, 'x', 1, 0)", 0],
    ["s + '-x'", 'b-x'],
    ["s == 'b'", 1],
    ['abs(-3)', 3],
    ['round(2.567, 2)', 2.57],
    ['div(7, 2)', 3],
    ['pow(2, 10)', 1024],
    ['"we ird" * 2', 42],
  ])('%s is %p', async (expression, expected) => {
    expect(await evaluate(expression)).toEqual(expected);
  });

  it('binds every literal: no number or text of the expression is written into the SQL', () => {
    const { compiled, params } = compile("case_searched((count > 12345),(total_processing_time/count), s == 'DROP TABLE', 6.789, 0");
    expect(compiled.sql).not.toMatch(/12345|6\.789|DROP/);
    expect(params).toEqual(expect.arrayContaining(['12345', 6.789, 'DROP TABLE']));
  });

  it.each<[string, RegExp]>([
    ['lookup(s, "names")', /function lookup\(\)/],
    ['count +', /ends early/],
    ['nope * 2', /"nope", which is neither a column nor an output/],
    ["'abc", /string is not closed/],
    ['[1, 2]', /"\[1, 2\]" is not part of the expressions/],
    ['if(1, 2)', /if\(\) takes 3 arguments, not 2/],
    ['s * 2', /"\*" needs numbers, not text/],
    ['1 + 2) * 3', /unexpected "\)"/],
    [`${'('.repeat(60)}1${')'.repeat(60)}`, /nested deeper than 40 levels/],
    ['', /an expression is required/],
  ])('refuses %s, naming what is wrong', (expression, message) => {
    let caught: unknown;
    try {
      compile(expression);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).code).toBe('DATA_OUT_INVALID_INPUT');
    expect((caught as GatewayError).message).toMatch(message);
    expect((caught as GatewayError).message).toMatch(/^test: /);
  });
});
