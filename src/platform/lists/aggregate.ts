// A list's figures over the rows its `where` matches (`aggregate { count sum avg min max }`) and its
// group counts by several fields, a time among them cut into buckets (`groupBy(fields, bucket)`):
// each one SQL statement over the same rows a page of the list reads (the same FROM ... WHERE, so
// the same filter, the same link to a parent, and nothing the list would not show the caller).
import { GatewayError } from '../../errors.js';
import { columnSql, enumNameOf, fieldNamed, type ListDeclaration } from './declaration.js';

/** The rows a list's counts read: `FROM ... WHERE ...` with its bound values. */
export interface FilteredRows {
  from: string;
  values: unknown[];
  /** Whether a `where` narrows them (else every row of the table, or of the parent). */
  filtered: boolean;
}

/** A statement over the filtered rows, and whether a `where` narrows them. */
export interface FiguresSql {
  text: string;
  values: unknown[];
  filtered: boolean;
}

/** The time buckets of `groupBy(bucket:)`: their length in seconds. */
export const TIME_BUCKETS = { MINUTE: 60, HOUR: 3600, DAY: 86_400, WEEK: 604_800 } as const;
/** Weeks start on Monday: the first Monday after the epoch (a Thursday) is 4 days after it. */
const WEEK_START_SECONDS = 4 * 86_400;
export type TimeBucket = keyof typeof TIME_BUCKETS;

/** What a `groupBy` asks: `field` (the older form, one field) or `fields`, and a bucket for the time fields among them. */
export interface GroupRequest {
  field?: string | null;
  fields?: readonly string[] | null;
  bucket?: TimeBucket | null;
}

/** One group: the values of the fields in their order (`key` is the first), and how many rows hold them. */
export interface ListGroup {
  key: string | null;
  keys: (string | null)[];
  count: number;
}

export type Figure = number | Date | null;

/** What `aggregate` answers: each figure by the field it is of. */
export interface ListAggregate {
  count: number;
  sum: Record<string, number | null>;
  avg: Record<string, number | null>;
  min: Record<string, Figure>;
  max: Record<string, Figure>;
}

/** Most groups one `groupBy` returns (the most frequent first), and most fields it may group by. */
const MAX_GROUPS = 1000;
const MAX_GROUP_FIELDS = 4;

/** A figure of a list: its SQL and whether it is summed and averaged (a number) or only bounded (a time). */
interface Measure {
  name: string;
  column: string;
  numeric: boolean;
  description: string;
}

/** The figures `aggregate` reads: the list's `int` and `time` fields, then its declared measures. */
export function measuresOf(declaration: ListDeclaration): Measure[] {
  const fields = Object.entries(declaration.fields)
    .filter(([, field]) => field.kind === 'int' || field.kind === 'time')
    .map(([name, field]) => ({ name, column: field.column, numeric: field.kind === 'int', description: field.description }));
  const measures = Object.entries(declaration.measures ?? {}).map(([name, measure]) => ({ name, column: measure.column, numeric: measure.kind === 'number', description: measure.description }));
  return [...fields, ...measures];
}

const invalid = (declaration: ListDeclaration, message: string) => new GatewayError(declaration.invalidInputCode, message);

/** `count`, and each number's sum, average, least and greatest, each time's least and greatest, in one statement. */
export function aggregateSql(declaration: ListDeclaration, rows: FilteredRows): FiguresSql {
  const parts = ['count(*)::int AS "count"'];
  for (const measure of measuresOf(declaration)) {
    const column = columnSql(measure.column);
    const cast = measure.numeric ? '::float8' : '';
    if (measure.numeric) parts.push(`sum(${column})${cast} AS "sum.${measure.name}"`, `avg(${column})${cast} AS "avg.${measure.name}"`);
    parts.push(`min(${column})${cast} AS "min.${measure.name}"`, `max(${column})${cast} AS "max.${measure.name}"`);
  }
  return { text: `SELECT ${parts.join(', ')} ${rows.from}`, values: rows.values, filtered: rows.filtered };
}

/** An aggregate statement's row as `aggregate` answers it (a row of perParent carries its parent too, which is left out). */
export function aggregateOf(row: Record<string, unknown> | undefined): ListAggregate {
  const figures: ListAggregate = { count: Number(row?.count ?? 0), sum: {}, avg: {}, min: {}, max: {} };
  for (const [column, value] of Object.entries(row ?? {})) {
    const [figure, name] = column.split('.', 2) as [keyof ListAggregate, string | undefined];
    if (name === undefined || figure === 'count') continue;
    (figures[figure] as Record<string, Figure>)[name] = (value as Figure | undefined) ?? null;
  }
  return figures;
}

/** The field names a `groupBy` asks for (its older `field` or its `fields`), as given. */
function requestedFields(declaration: ListDeclaration, request: GroupRequest): readonly string[] {
  const given = (request.field !== null && request.field !== undefined ? 1 : 0) + (request.fields !== null && request.fields !== undefined ? 1 : 0);
  if (given !== 1) throw invalid(declaration, 'groupBy: give the fields to count by (fields), or the older field, not both');
  const fields = request.fields ?? [request.field!];
  if (fields.length === 0 || fields.length > MAX_GROUP_FIELDS) throw invalid(declaration, `groupBy(fields): give from 1 to ${MAX_GROUP_FIELDS} fields (got ${fields.length})`);
  return fields;
}

/** The arguments of a `groupBy` as a client wrote them (`fields: [CREATED_AT, STATUS], bucket: DAY`), for its messages. */
export function describeGroupRequest(request: GroupRequest): string {
  const fields = request.fields ? `fields: [${request.fields.join(', ')}]` : `field: ${request.field}`;
  return `groupBy(${fields}${request.bucket ? `, bucket: ${request.bucket}` : ''})`;
}

/**
 * The group-count statement: one key column per field (`k0`, `k1`, ...; a time field cut to the start of
 * its bucket, in UTC), the most frequent groups first. Refuses, naming it, a field the list cannot be
 * counted by, a time field without a bucket, and a bucket with no time field to cut.
 */
export function groupSql(declaration: ListDeclaration, rows: FilteredRows, request: GroupRequest): FiguresSql {
  const asked = requestedFields(declaration, request);
  const what = describeGroupRequest(request);
  const keys: string[] = [];
  let bucketed = false;
  for (const name of asked) {
    const fieldName = fieldNamed(declaration, name);
    const field = fieldName === undefined ? undefined : declaration.fields[fieldName];
    if (!field || (!field.groupable && field.kind !== 'time')) throw invalid(declaration, `groupBy: ${declaration.plural} cannot be counted by ${name}`);
    if (asked.filter((other) => fieldNamed(declaration, other) === fieldName).length > 1) throw invalid(declaration, `${what}: ${name} is given twice`);
    if (field.kind === 'time') {
      if (!request.bucket) throw invalid(declaration, `${what}: ${name} is a time; give a bucket (${Object.keys(TIME_BUCKETS).join(', ')}) to count it by`);
      // Arithmetic on the epoch, in UTC: date_trunc(..., 'UTC') took 2.4 times as long over 100,000 rows (bench:analytics, the statement alone: p50 209 against 86 ms).
      const seconds = TIME_BUCKETS[request.bucket];
      const offset = request.bucket === 'WEEK' ? WEEK_START_SECONDS : 0;
      keys.push(`to_timestamp(floor((date_part('epoch', ${columnSql(field.column)}) - ${offset}) / ${seconds}) * ${seconds} + ${offset})`);
      bucketed = true;
    } else {
      keys.push(columnSql(field.column));
    }
  }
  if (request.bucket && !bucketed) {
    const times = Object.entries(declaration.fields).filter(([, field]) => field.kind === 'time');
    throw invalid(
      declaration,
      `${what}: bucket cuts a time field, and ${asked.join(', ')} ${asked.length > 1 ? 'are' : 'is'} not one (${declaration.plural} have ${times.map(([name]) => enumNameOf(name)).join(', ')})`,
    );
  }
  const selected = keys.map((key, index) => `${key} AS k${index}`).join(', ');
  const positions = keys.map((_, index) => index + 1);
  return {
    text: `SELECT ${selected}, count(*)::int AS count ${rows.from} GROUP BY ${positions.join(', ')} ORDER BY count DESC, ${positions.map((at) => `${at} ASC`).join(', ')} LIMIT ${MAX_GROUPS}`,
    values: rows.values,
    filtered: rows.filtered,
  };
}

/** How a group's stored value is answered: an enum field's GraphQL name, a bucket's start as ISO 8601, any other value as text. */
function keyReader(declaration: ListDeclaration, name: string): (value: unknown) => string | null {
  const declared = declaration.fields[fieldNamed(declaration, name) ?? ''];
  const byStored = new Map(Object.entries(declared?.enumValues ?? {}).map(([graphqlName, stored]) => [stored, graphqlName]));
  return (value) => {
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    const stored = typeof value === 'string' ? value : JSON.stringify(value);
    return byStored.get(stored) ?? stored;
  };
}

/** Maps the rows of groupSql to the groups a client reads. */
export function groupsReader(declaration: ListDeclaration, request: GroupRequest): (rows: readonly Record<string, unknown>[]) => ListGroup[] {
  const readers = requestedFields(declaration, request).map((name) => keyReader(declaration, name));
  return (rows) =>
    rows.map((row) => {
      const keys = readers.map((read, index) => read(row[`k${index}`]));
      return { key: keys[0] ?? null, keys, count: row.count as number };
    });
}

/** A `groupBy` given as the older one field name, or as a request. */
export const groupRequestOf = (request: GroupRequest | string): GroupRequest => (typeof request === 'string' ? { field: request } : request);
