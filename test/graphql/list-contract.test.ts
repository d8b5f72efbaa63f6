// The list contract's scenarios, written once and run on every list from its declaration
// (test/support/list-harnesses.ts says how to reach each list): every `where` operator of every field
// and _and/_or/_not combinations, every orderBy field both ways, keyset cursors that hold while rows
// are added and removed between pages (forward and backward), groupBy against counts made in SQL, and
// the refusals of bad input. What each answer should be is worked out here from the rows read back
// from the table, not by the gateway's SQL builder. Lists under an item (a rule's notifications, a
// dataset's templates) run the same scenarios on one parent's items. `_not` is the complement of the
// filter under it: items without a value in a compared field are in it (tested on every nullable field).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LIST_DECLARATIONS } from '../../src/graphql/lists.js';
import { enumNameOf, keyColumns, type ListDeclaration, type ListField } from '../../src/platform/lists/declaration.js';
import { narrowsByIndex, operatorsOf, scanOperatorsOf } from '../../src/platform/lists/comparisons.js';
import { graphql, type GraphQLResponse } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { LIST_HARNESSES, type ListHarness } from '../support/list-harnesses.js';

let gw: TestGateway;
const SEEDED = Array.from({ length: 30 }, (_, index) => index + 1);
const PAGE = 5;

beforeAll(async () => {
  gw = await startTestGateway();
  const tables = new Map(LIST_HARNESSES.map((harness) => [harness.declaration.table, harness]));
  for (const harness of tables.values()) await gw.sql(harness.insert, [SEEDED]);
  for (const harness of tables.values()) await harness.prepare?.(gw, SEEDED);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
});

/** A row of the list's table: its key (`key` columns joined by `|`) and every declared field's value by column. */
interface Row {
  key: string;
  byColumn: Map<string, unknown>;
  byField: Record<string, unknown>;
}

const columnSql = (column: string) => (/^[a-z_][a-z0-9_]*$/.test(column) ? `"${column}"` : column);

/** Every row the list can show, read straight from its table. */
async function universe(harness: ListHarness): Promise<Row[]> {
  const { declaration } = harness;
  const fields = Object.entries(declaration.fields);
  const select = [...keyColumns(declaration).map((column, index) => `"${column}"::text AS "k${index}"`), ...fields.map(([, field], index) => `${columnSql(field.column)} AS "f${index}"`)];
  const { rows } = await gw.sql<Record<string, unknown>>(`SELECT ${select.join(', ')} FROM "${declaration.table}" WHERE ${harness.scope ?? 'TRUE'}`);
  return rows.map((row) => {
    const byColumn = new Map<string, unknown>();
    const byField: Record<string, unknown> = {};
    fields.forEach(([name, field], index) => {
      // PostgreSQL's bigint arrives as text; as a number it orders as the column does.
      const value = row[`f${index}`];
      byField[name] = field.bigint && typeof value === 'string' ? Number(value) : value;
      byColumn.set(field.column, byField[name]);
    });
    keyColumns(declaration).forEach((column, index) => {
      if (!byColumn.has(column)) byColumn.set(column, row[`k${index}`]);
    });
    return {
      key: keyColumns(declaration)
        .map((_, index) => String(row[`k${index}`]))
        .join('|'),
      byColumn,
      byField,
    };
  });
}

function compareValues(a: unknown, b: unknown): number {
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

type OrderKey = { column: string; direction: 'asc' | 'desc' };

/** The whole order a list applies: the keys given (or its own), its follow-up keys, then its identifying columns. */
function fullOrder(declaration: ListDeclaration, given: readonly { field: string; direction: 'asc' | 'desc' }[]): OrderKey[] {
  const keys = [...(given.length > 0 ? given : declaration.defaultOrder), ...(declaration.thenBy ?? [])].map((key) => ({ column: declaration.fields[key.field]!.column, direction: key.direction }));
  const seen = new Set<string>();
  return [...keys, ...keyColumns(declaration).map((column) => ({ column, direction: 'asc' as const }))].filter((key) => !seen.has(key.column) && Boolean(seen.add(key.column)));
}

function comparator(order: readonly OrderKey[]) {
  return (a: Row, b: Row) => {
    for (const key of order) {
      const difference = compareValues(a.byColumn.get(key.column), b.byColumn.get(key.column));
      if (difference !== 0) return key.direction === 'asc' ? difference : -difference;
    }
    return 0;
  };
}

const storedOf = (field: ListField, operand: unknown) => (field.enumValues ? field.enumValues[operand as string] : operand);
const graphqlValueOf = (field: ListField, stored: unknown) =>
  field.enumValues ? Object.entries(field.enumValues).find(([, value]) => value === stored)![0] : stored instanceof Date ? stored.toISOString() : field.bigint ? String(stored) : stored;

/**
 * Whether `value` passes one comparison, as the contract defines it: a row without a value passes
 * none but `neq`, `nin` and `isNull: true`; a set (an array) holds a value, one of them, or none.
 */
function passes(field: ListField, value: unknown, operator: string, operand: unknown): boolean {
  if (field.kind === 'set') {
    const values = (value ?? []) as unknown[]; // a set without a value holds nothing
    const held = (candidate: unknown) => values.includes(storedOf(field, candidate));
    const any = (operand as unknown[] | undefined)?.some?.(held);
    return { eq: () => held(operand), neq: () => !held(operand), in: () => any === true, nin: () => any !== true, isNull: () => (values.length === 0) === operand }[operator]!();
  }
  if (operator === 'isNull') return (value === null || value === undefined) === operand;
  if (operator === 'neq') return !passes(field, value, 'eq', operand);
  if (operator === 'nin') return !passes(field, value, 'in', operand);
  if (value === null || value === undefined) return false;
  const same = (candidate: unknown) =>
    field.kind === 'time' ? Date.parse(candidate as string) === (value as Date).getTime() : field.bigint ? Number(candidate) === value : storedOf(field, candidate) === value;
  switch (operator) {
    case 'eq':
      return same(operand);
    case 'in':
      return (operand as unknown[]).some(same);
    case 'contains':
      return (value as string).toLowerCase().includes((operand as string).toLowerCase());
    case 'startsWith':
      return (value as string).toLowerCase().startsWith((operand as string).toLowerCase());
    default: {
      const difference = field.kind === 'time' ? (value as Date).getTime() - Date.parse(operand as string) : (value as number) - (operand as number);
      return { gt: difference > 0, gte: difference >= 0, lt: difference < 0, lte: difference <= 0 }[operator as 'gt' | 'gte' | 'lt' | 'lte'];
    }
  }
}

type Where = Record<string, unknown>;

function selects(declaration: ListDeclaration, where: Where, row: Row): boolean {
  return Object.entries(where).every(([name, value]) => {
    if (name === '_and') return (value as Where[]).every((item) => selects(declaration, item, row));
    if (name === '_or') return (value as Where[]).some((item) => selects(declaration, item, row));
    if (name === '_not') return !selects(declaration, value as Where, row);
    const field = declaration.fields[name]!;
    return Object.entries(value as Record<string, unknown>).every(([operator, operand]) => passes(field, row.byField[name], operator, operand));
  });
}

/** One comparison to test, its operand picked from the rows when the test runs. */
interface WhereCase {
  name: string;
  build: (rows: readonly Row[]) => Where;
  /** The nullable field whose items without a value the answer must hold (a `_not` of a comparison on it). */
  withoutValue?: string;
}

function distinctValues(rows: readonly Row[], name: string): unknown[] {
  // A set's values are those its rows hold.
  const values = rows.flatMap((row) => (Array.isArray(row.byField[name]) ? (row.byField[name] as unknown[]) : [row.byField[name]])).filter((value) => value !== null && value !== undefined);
  const unique = [...new Map(values.map((value) => [value instanceof Date ? value.getTime() : value, value])).values()];
  return unique.sort(compareValues);
}

/** Flips the case of every letter, so a match must ignore case to be found. */
const flipCase = (text: string) => [...text].map((character) => (character === character.toUpperCase() ? character.toLowerCase() : character.toUpperCase())).join('');

function whereCases(declaration: ListDeclaration): WhereCase[] {
  const cases: WhereCase[] = [];
  const [timeName, timeField] = Object.entries(declaration.fields).find(([, field]) => field.kind === 'time')!;
  // A large list refuses a filter made only of `_not`: its `_not` cases also keep every row by time (an indexed, positive filter).
  const everyRow = (rows: readonly Row[]): Where => (declaration.large ? { [timeName]: { gte: graphqlValueOf(timeField, distinctValues(rows, timeName)[0]) } } : {});
  for (const [name, field] of Object.entries(declaration.fields)) {
    const positive = cases.length;
    const middle = (rows: readonly Row[]) => {
      const values = distinctValues(rows, name);
      return values[Math.floor(values.length / 2)];
    };
    const value = (rows: readonly Row[]) => graphqlValueOf(field, middle(rows));
    for (const operator of operatorsOf(field.kind)) {
      if (operator === 'in') {
        cases.push({
          name: `${name} in`,
          build: (rows) => {
            const values = distinctValues(rows, name).map((stored) => graphqlValueOf(field, stored));
            const unknown = field.enumValues ? [] : field.kind === 'int' ? [-1] : field.uuid ? ['not-a-uuid', '00000000-0000-4000-8000-000000000000'] : ['no such value'];
            return { [name]: { in: [values[0], values.at(-1), ...unknown] } };
          },
        });
        cases.push({ name: `${name} in nothing`, build: () => ({ [name]: { in: [] } }) });
      } else if (operator === 'contains') {
        cases.push({ name: `${name} contains, ignoring case`, build: (rows) => ({ [name]: { contains: flipCase(String(middle(rows)).slice(-6)) } }) });
        // A LIKE wildcard in the text is a character to find, not a pattern: `e_0` does not match "e 0".
        cases.push({
          name: `${name} contains a LIKE wildcard, taken literally`,
          build: (rows) => ({ [name]: { contains: `${String(middle(rows)).slice(-4, -3)}_${String(middle(rows)).slice(-2)}` } }),
        });
      } else if (operator === 'startsWith') {
        cases.push({ name: `${name} startsWith, ignoring case`, build: (rows) => ({ [name]: { startsWith: flipCase(String(middle(rows)).slice(0, -1)) } }) });
      } else {
        cases.push({ name: `${name} ${operator}`, build: (rows) => ({ [name]: { [operator]: value(rows) } }) });
      }
    }
    if (field.kind === 'time')
      cases.push({ name: `${name} between (gte and lt together)`, build: (rows) => ({ [name]: { gte: graphqlValueOf(field, distinctValues(rows, name)[1]), lt: value(rows) } }) });
    if (field.uuid) cases.push({ name: `${name} eq a value that is not a UUID`, build: () => ({ [name]: { eq: 'not-a-uuid' } }) });
    if (field.nullable) {
      for (const item of cases.slice(positive)) {
        cases.push({ name: `_not (${item.name}) keeps the items without a value`, withoutValue: name, build: (rows) => ({ ...everyRow(rows), _not: item.build(rows) }) });
      }
    }
    cases.push(...scanCases(name, field, value, everyRow));
  }
  // Combinations of two filters on different fields, each picking some rows but not all.
  const fields = Object.entries(declaration.fields).filter(([, field]) => field.kind === 'time' || field.kind === 'enum');
  const [[first, firstField], [second, secondField]] = [fields[0]!, fields.find(([, field]) => field.kind !== fields[0]![1].kind) ?? fields[1]!];
  const a = (rows: readonly Row[]): Where => ({
    [first]:
      firstField.kind === 'time'
        ? { gte: graphqlValueOf(firstField, distinctValues(rows, first)[Math.floor(distinctValues(rows, first).length / 3)]) }
        : { eq: graphqlValueOf(firstField, distinctValues(rows, first)[0]) },
  });
  const b = (rows: readonly Row[]): Where => ({
    [second]: secondField.kind === 'time' ? { lt: graphqlValueOf(secondField, distinctValues(rows, second).at(-3)) } : { in: [graphqlValueOf(secondField, distinctValues(rows, second).at(-1))] },
  });
  cases.push(
    { name: `two fields (${first} and ${second}, both must match)`, build: (rows) => ({ ...a(rows), ...b(rows) }) },
    { name: '_and', build: (rows) => ({ _and: [a(rows), b(rows)] }) },
    { name: '_or', build: (rows) => ({ _or: [a(rows), b(rows)] }) },
    { name: '_not', build: (rows) => ({ _not: a(rows) }) },
    { name: '_not of _or', build: (rows) => ({ _not: { _or: [a(rows), b(rows)] } }) },
    { name: '_and of _not and a filter', build: (rows) => ({ _and: [{ _not: a(rows) }, b(rows)] }) },
    { name: '_or of _and and _not', build: (rows) => ({ _or: [{ _and: [a(rows), b(rows)] }, { _not: b(rows) }] }) },
    { name: 'empty _and (every row)', build: () => ({ _and: [] }) },
    { name: 'empty _or (no row)', build: () => ({ _or: [] }) },
  );
  return cases;
}

/**
 * The comparisons no index serves (issue 49): `neq`, `nin`, `isNull`, a `contains` of 1 character, a
 * `startsWith` of 2 (the lower-case prefix index), and each under `_not`. On a large list they keep every
 * row by time too, as `_not` does (it refuses a filter only they make).
 */
function scanCases(name: string, field: ListField, value: (rows: readonly Row[]) => unknown, everyRow: (rows: readonly Row[]) => Where): WhereCase[] {
  const cases: WhereCase[] = [];
  const some = (rows: readonly Row[]) => distinctValues(rows, name).map((stored) => graphqlValueOf(field, stored));
  for (const operator of scanOperatorsOf(field.kind)) {
    if (operator === 'isNull' && !field.nullable && field.kind !== 'set') continue;
    const operands: [string, (rows: readonly Row[]) => unknown][] =
      operator === 'isNull'
        ? [
            ['true', () => true],
            ['false', () => false],
          ]
        : operator === 'nin'
          ? [
              ['two values', (rows) => [some(rows)[0], some(rows).at(-1)]],
              ['nothing', () => []],
            ]
          : [['a value', (rows) => (field.kind === 'set' ? some(rows)[0] : value(rows))]];
    for (const [what, operand] of operands) {
      const build = (rows: readonly Row[]): Where => ({ ...everyRow(rows), [name]: { [operator]: operand(rows) } });
      cases.push(
        { name: `${name} ${operator} ${what}`, build },
        { name: `_not (${name} ${operator} ${what})`, build: (rows) => ({ ...everyRow(rows), _not: { [name]: { [operator]: operand(rows) } } }) },
      );
    }
  }
  if (field.kind === 'text') {
    const middle = (rows: readonly Row[]) => String(distinctValues(rows, name)[Math.floor(distinctValues(rows, name).length / 2)]);
    cases.push(
      { name: `${name} contains 1 character, ignoring case`, build: (rows) => ({ ...everyRow(rows), [name]: { contains: flipCase(middle(rows).slice(-1)) } }) },
      { name: `${name} startsWith 2 characters, ignoring case`, build: (rows) => ({ [name]: { startsWith: flipCase(middle(rows).slice(0, 2)) } }) },
      { name: `${name} startsWith 1 character`, build: (rows) => ({ [name]: { startsWith: middle(rows).slice(0, 1) } }) },
    );
  }
  return cases;
}

interface Page {
  edges: { cursor: string; node: Record<string, unknown> }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** The list's selection placed where the list is: at the root, or under its parent item. */
const reach = (harness: ListHarness, selection: string) => (harness.parent ? harness.parent.selection.replace('LIST', selection) : selection);

/** The list's answer within the data of an operation made with `reach`. */
function answerOf<T>(harness: ListHarness, data: Record<string, unknown> | null | undefined): T {
  let at: unknown = data;
  for (const step of harness.parent?.path ?? []) at = (at as Record<string, unknown>)[step];
  return (at as Record<string, T>)[harness.field]!;
}

function document(harness: ListHarness): string {
  const type = harness.declaration.type;
  return `query List($where: ${type}Where, $orderBy: [${type}Order!], $first: Int, $after: String, $last: Int, $before: String) {
    ${reach(
      harness,
      `${harness.field}(where: $where, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      edges { cursor node { ${harness.node} } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } totalCount }`,
    )} }`;
}

async function list(harness: ListHarness, variables: Record<string, unknown>): Promise<Page> {
  const response = await graphql<Record<string, unknown>>(gw, document(harness), variables);
  expect(response.errors).toBeUndefined();
  return answerOf<Page>(harness, response.data);
}

const keys = (harness: ListHarness, page: Page) => page.edges.map((edge) => harness.keyOf(edge.node));

/** The first error of a refused call: HTTP status, code, responseCode and message. */
function refusal(response: GraphQLResponse): { status: number; code: unknown; responseCode: unknown; message: string } {
  const error = response.errors?.[0];
  return { status: response.status, code: error?.extensions?.code, responseCode: error?.extensions?.responseCode, message: String(error?.message) };
}

describe('every list of the contract has scenarios', () => {
  it('each declared list is reached by a harness', () => {
    const reached = new Set(LIST_HARNESSES.map((harness) => harness.declaration));
    expect(LIST_DECLARATIONS.map(({ declaration }) => declaration.type).filter((type) => ![...reached].some((declaration) => declaration.type === type))).toEqual([]);
  });
});

describe.each(LIST_HARNESSES.map((harness) => [harness.parent ? `${harness.parent.type}.${harness.field}` : harness.field, harness] as const))('%s', (_field, harness) => {
  const { declaration } = harness;
  const defaultOrder = fullOrder(declaration, []);

  // The where and orderBy scenarios change no row: they share one reading of the table.
  let rows: Row[];
  beforeAll(async () => {
    rows = await universe(harness);
  });

  describe('where', () => {
    it.each(whereCases(declaration).map((item) => [item.name, item] as const))('%s: the items and totalCount are those the filter selects', async (_name, item) => {
      const where = item.build(rows);
      if (declaration.large && !narrowsByIndex(declaration, where)) {
        // A large table (the audit trail) refuses a filter no index can serve, rather than scanning it.
        const refused = await graphql(gw, document(harness), { where, first: 100 });
        expect(refused.errors?.map((error) => error.extensions?.code)).toEqual([declaration.invalidInputCode]);
        return;
      }
      const expected = rows.filter((row) => selects(declaration, where, row)).sort(comparator(defaultOrder));
      const page = await list(harness, { where, first: 100 });
      expect({ where, keys: keys(harness, page), totalCount: page.totalCount }).toEqual({ where, keys: expected.map((row) => row.key), totalCount: expected.length });
      if (item.withoutValue) {
        // Else the case would not show that `_not` keeps the items without a value.
        expect({ where, holdsItemsWithoutValue: expected.some((row) => row.byField[item.withoutValue!] === null) }).toEqual({ where, holdsItemsWithoutValue: true });
      }
    });

    it('declares nullable every field whose column may hold null, so that its `_not` cases run', async () => {
      const { rows: columns } = await gw.sql<{ column: string }>("SELECT column_name AS column FROM information_schema.columns WHERE table_name = $1 AND is_nullable = 'YES'", [declaration.table]);
      const nullableColumns = new Set(columns.map((column) => column.column));
      const holdNull = Object.entries(declaration.fields)
        .filter(([name, field]) => nullableColumns.has(field.column) || rows.some((row) => row.byField[name] === null))
        .map(([name]) => name);
      const declared = Object.entries(declaration.fields)
        .filter(([, field]) => field.nullable)
        .map(([name]) => name);
      expect(declared).toEqual(expect.arrayContaining(holdNull));
    });
  });

  const orderable = Object.entries(declaration.fields).filter(([, field]) => field.orderable);
  const orders = orderable.flatMap(([name]) => (['asc', 'desc'] as const).map((direction) => [`${enumNameOf(name)} ${direction.toUpperCase()}`, name, direction] as const));
  describe('orderBy', () => {
    it.each([['the list’s own order', '', 'asc'] as const, ...orders])('%s, the identifier breaking ties', async (_name, field, direction) => {
      const given = field ? [{ field, direction }] : [];
      const expected = [...rows].sort(comparator(fullOrder(declaration, given)));
      const page = await list(harness, { orderBy: given.map((key) => ({ field: enumNameOf(key.field), direction: key.direction.toUpperCase() })), first: 100 });
      expect(keys(harness, page)).toEqual(expected.map((row) => row.key));
    });

    if (orderable.length >= 2) {
      it('orders by two keys, most significant first', async () => {
        const given = [
          { field: orderable[1]![0], direction: 'desc' as const },
          { field: orderable[0]![0], direction: 'asc' as const },
        ];
        const expected = [...rows].sort(comparator(fullOrder(declaration, given)));
        const page = await list(harness, { orderBy: given.map((key) => ({ field: enumNameOf(key.field), direction: key.direction.toUpperCase() })), first: 100 });
        expect(keys(harness, page)).toEqual(expected.map((row) => row.key));
      });
    }
  });

  describe('cursors', () => {
    const compare = comparator(defaultOrder);

    /** Deletes rows; gives back the deleted records, to put back after the scenario. */
    async function deleteRows(deleted: readonly Row[]): Promise<unknown[]> {
      const records: unknown[] = [];
      for (const row of deleted) {
        const values = keyColumns(declaration).map((column) => String(row.byColumn.get(column)));
        const condition = keyColumns(declaration)
          .map((column, index) => `"${column}"::text = $${index + 1}`)
          .join(' AND ');
        const { rows: gone } = await gw.sql<{ record: unknown }>(`DELETE FROM "${declaration.table}" t WHERE ${condition} RETURNING to_jsonb(t) AS record`, values);
        records.push(...gone.map((record) => record.record));
      }
      return records;
    }

    async function restore(records: readonly unknown[]): Promise<void> {
      for (const record of records) await gw.sql(`INSERT INTO "${declaration.table}" SELECT * FROM jsonb_populate_record(NULL::"${declaration.table}", $1)`, [record]);
    }

    /** Inserts rows numbered `numbers`; they must land on both sides of `cursor` in the list's order (else the scenario proves nothing). */
    async function insertAround(numbers: number[], before: readonly Row[], cursor: Row): Promise<Row[]> {
      await gw.sql(harness.insert, [numbers]);
      await harness.prepare?.(gw, numbers);
      const known = new Set(before.map((row) => row.key));
      const added = (await universe(harness)).filter((row) => !known.has(row.key));
      expect({ added: added.length > 0, sides: [...new Set(added.map((row) => Math.sign(compare(row, cursor))))].sort() }).toEqual({ added: true, sides: [-1, 1] });
      return added;
    }

    it('pages forward from row to row while rows are added on both sides of the cursor and removed, the cursor’s own row too', async () => {
      const start = (await universe(harness)).sort(compare);
      expect(start.length).toBeGreaterThanOrEqual(2 * PAGE + 2);
      let page = await list(harness, { first: PAGE });
      expect({ keys: keys(harness, page), hasNextPage: page.pageInfo.hasNextPage, hasPreviousPage: page.pageInfo.hasPreviousPage }).toEqual({
        keys: start.slice(0, PAGE).map((row) => row.key),
        hasNextPage: true,
        hasPreviousPage: false,
      });
      const cursorRow = start[PAGE - 1]!;
      const added = await insertAround([0, 99, 98], start, cursorRow);
      const deleted = await deleteRows([start[1]!, cursorRow, start[PAGE + 2]!]);
      const seen: string[] = [];
      while (page.pageInfo.hasNextPage) {
        page = await list(harness, { first: PAGE, after: page.pageInfo.endCursor });
        expect(page.pageInfo.hasPreviousPage).toBe(true);
        seen.push(...keys(harness, page));
      }
      const expected = (await universe(harness)).sort(compare).filter((row) => compare(row, cursorRow) > 0);
      expect(seen).toEqual(expected.map((row) => row.key));
      await deleteRows(added);
      await restore(deleted);
    });

    it('pages backward with last and before while rows are added on both sides of the cursor and removed, the cursor’s own row too', async () => {
      const start = (await universe(harness)).sort(compare);
      let page = await list(harness, { last: PAGE });
      expect({ keys: keys(harness, page), hasNextPage: page.pageInfo.hasNextPage, hasPreviousPage: page.pageInfo.hasPreviousPage }).toEqual({
        keys: start.slice(-PAGE).map((row) => row.key),
        hasNextPage: false,
        hasPreviousPage: true,
      });
      const cursorRow = start.at(-PAGE)!;
      const added = await insertAround([0, 99, 97], start, cursorRow);
      const deleted = await deleteRows([start.at(-2)!, cursorRow, start.at(-PAGE - 3)!]);
      const seen: string[] = [];
      while (page.pageInfo.hasPreviousPage) {
        page = await list(harness, { last: PAGE, before: page.pageInfo.startCursor });
        expect(page.pageInfo.hasNextPage).toBe(true);
        seen.unshift(...keys(harness, page));
      }
      const expected = (await universe(harness)).sort(compare).filter((row) => compare(row, cursorRow) < 0);
      expect(seen).toEqual(expected.map((row) => row.key));
      await deleteRows(added);
      await restore(deleted);
    });
  });

  const groupable = Object.entries(declaration.fields).filter(([, field]) => field.groupable);
  describe('groupBy', () => {
    it.each([
      ['every row', false],
      ['the rows a where selects', true],
    ] as const)('counts %s by each groupable field as SQL counts them, and the counts add up to totalCount', async (_name, filtered) => {
      const [timeName, timeField] = Object.entries(declaration.fields).find(([, field]) => field.kind === 'time')!;
      const { rows: bounds } = await gw.sql<{ bound: Date }>(
        `SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ${columnSql(timeField.column)}) AS bound FROM "${declaration.table}" WHERE ${harness.scope ?? 'TRUE'}`,
      );
      const bound = bounds[0]!.bound;
      const selections = groupable.map(([name], index) => `g${index}: groupBy(field: ${enumNameOf(name)}) { key count }`).join(' ');
      const response = await graphql<Record<string, unknown>>(
        gw,
        `query($where: ${declaration.type}Where) { ${reach(harness, `${harness.field}(where: $where) { totalCount ${selections} }`)} }`,
        filtered ? { where: { [timeName]: { gte: bound.toISOString() } } } : {},
      );
      expect(response.errors).toBeUndefined();
      const answer = answerOf<Record<string, unknown>>(harness, response.data);
      const condition = `${harness.scope ?? 'TRUE'}${filtered ? ` AND ${columnSql(timeField.column)} >= $1` : ''}`;
      for (const [index, [name, field]] of groupable.entries()) {
        const { rows: counts } = await gw.sql<{ key: unknown; count: number }>(
          `SELECT ${columnSql(field.column)} AS key, count(*)::int AS count FROM "${declaration.table}" WHERE ${condition} GROUP BY 1 ORDER BY 2 DESC, 1`,
          filtered ? [bound] : [],
        );
        const expected = counts.map((row) => ({ key: row.key === null ? null : graphqlValueOf(field, row.key), count: row.count }));
        expect({ name, groups: answer[`g${index}`] }).toEqual({ name, groups: expected });
        expect(counts.reduce((sum, row) => sum + row.count, 0)).toBe(answer.totalCount);
      }
      expect(answer.totalCount).toBeGreaterThan(0);
    });
  });

  describe('bad input', () => {
    const code = declaration.invalidInputCode;
    const refused = (message: RegExp) => ({ status: 200, code, responseCode: 'BAD_REQUEST', message: expect.stringMatching(message) });

    it('refuses an unknown where field or an operator its field does not take, before anything runs', async () => {
      const [name, field] = Object.entries(declaration.fields)[0]!;
      const wrongOperator = field.kind === 'time' ? 'contains' : 'gt';
      for (const where of [{ noSuchField: { eq: 'x' } }, { [name]: { [wrongOperator]: 'x' } }, { _not: { noSuchField: { eq: 'x' } } }]) {
        const response = await graphql(gw, document(harness), { where });
        expect({ where, status: response.status, code: response.errors?.[0]?.extensions?.code, data: response.data }).toEqual({ where, status: 400, code: 'BAD_USER_INPUT', data: undefined });
      }
      const literal = await graphql(gw, `{ ${reach(harness, `${harness.field}(where: { noSuchField: { eq: "x" } }) { totalCount }`)} }`);
      expect({ status: literal.status, code: literal.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
    });

    it('refuses a malformed, over-long or foreign cursor, and a cursor of another order, with the list’s code', async () => {
      const other = LIST_HARNESSES.find((candidate) => candidate.declaration.type !== declaration.type)!;
      const foreign = (await list(other, { first: 1 })).pageInfo.endCursor;
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ after: 'not a cursor' }, /after: .* is not a cursor of this list \(malformed\)/],
        [{ last: 2, before: Buffer.from('["k1"]').toString('base64url') }, /before: .* is not a cursor of this list \(malformed\)/],
        [{ after: 'x'.repeat(5000) }, /too long/],
        [{ after: foreign }, new RegExp(`made by a list of ${other.declaration.type}`)],
      ];
      // An order the list does not use by default (the audit trail's default is its first orderable field, descending).
      const [ownFirst] = declaration.defaultOrder;
      const another = orderable
        .flatMap(([fieldName]) => (['ASC', 'DESC'] as const).map((direction) => ({ fieldName, direction })))
        .find(({ fieldName, direction }) => fieldName !== ownFirst?.field || direction.toLowerCase() !== ownFirst.direction);
      if (another) {
        const otherOrder = (await list(harness, { orderBy: [{ field: enumNameOf(another.fieldName), direction: another.direction }], first: 1 })).pageInfo.endCursor;
        cases.push([{ after: otherOrder }, /made for another orderBy/]);
      }
      for (const [variables, message] of cases) expect(refusal(await graphql(gw, document(harness), variables))).toEqual(refused(message));
    });

    it('refuses first with last, a page over the maximum, and prices a page of 100,000 out before it runs', async () => {
      expect(refusal(await graphql(gw, document(harness), { first: 2, last: 2 }))).toEqual(refused(/first and last: give one of them, not both/));
      expect(refusal(await graphql(gw, document(harness), { first: 1001 }))).toEqual(refused(/^the page size must be an integer from 0 to 1000 \(got 1001\)$/));
      for (const variables of [{ first: 100_000 }, { last: 100_000 }]) {
        expect(refusal(await graphql(gw, document(harness), variables))).toEqual({
          status: 400,
          code: 'GRAPHQL_VALIDATION_FAILED',
          responseCode: undefined,
          message: expect.stringMatching(/^The operation costs \d+; at most \d+ is allowed/),
        });
      }
    });
  });
});
