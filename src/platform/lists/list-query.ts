// The SQL of a list page, built from its declaration: the client's `where` as bound parameters, the
// order with the identifying columns last (so the order is total), and a keyset predicate from a
// cursor, so a page starts right after the row the cursor names, however many rows were added or
// removed before it. Also the count and the group counts over the same filter.
import type pg from 'pg';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { PRISMA_RAW_TYPES, runSql } from '../database/sql-statement.js';
import { GatewayError } from '../../errors.js';
import { columnSql, fieldNamed, keyColumns, quote, type Direction, type ListDeclaration, type ListField, type ListOrderKey } from './declaration.js';
import { decodeCursorText, keysetCursor } from './cursor.js';
import { aggregateOf, aggregateSql, describeGroupRequest, groupRequestOf, groupSql, groupsReader, type FilteredRows, type GroupRequest, type ListAggregate, type ListGroup } from './aggregate.js';
import { allOperatorsOf, narrowsByIndex, shortPrefixSql, TRIGRAM_MIN_LENGTH, twoValuedComparisonSql } from './comparisons.js';

/** A `where` as GraphQL hands it over: field → comparison, plus `_and`, `_or`, `_not`. */
export type ListWhere = { _and?: readonly ListWhere[] | null; _or?: readonly ListWhere[] | null; _not?: ListWhere | null } & { [field: string]: unknown };

export interface ListOrderInput {
  field: string;
  direction?: Direction | null;
  /** The older spelling of `direction` (AlertRuleOrder, NotificationChannelOrder). */
  order?: Direction | null;
}

export interface ListArguments {
  where?: ListWhere | null;
  orderBy?: readonly ListOrderInput[] | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface ListPage<T> {
  items: T[];
  /** The cursor of each item, in the same order. */
  cursors: string[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Counts every match over all pages; run only when a client asks for it. */
  countAll: () => Promise<number>;
  /** Counts the matches by the values of some fields (GraphQL enum values or field names; one, in the older form), a time field by a bucket. */
  groupBy: (request: GroupRequest | string) => Promise<ListGroup[]>;
  /** The figures of every match (count, and each number's and time's sum, average, least, greatest); run only when a client asks for them. */
  aggregate: () => Promise<ListAggregate>;
}

/** A statement with `$n` placeholders and the values bound to them. */
export interface BoundSql {
  text: string;
  values: unknown[];
}

/** A count or group statement, and whether a `where` narrows it (else it counts every row). */
export interface CountSql extends BoundSql {
  filtered: boolean;
}

/** The page a client gets without asking for a size (`first` omitted), as the lists always served. */
export const DEFAULT_PAGE_SIZE = 100;
/** Most values one `in` may list, and most comparisons one `where` may hold. */
const MAX_IN_VALUES = 500;
const MAX_PREDICATES = 50;
/** Longest text a `contains` or `startsWith` may give (as search's query). */
const MAX_PATTERN_LENGTH = 200;

interface ResolvedKey {
  column: string;
  /** For a key computed by an expression (an ingestion counter): the name the page selects it under, for its cursor. */
  alias?: string;
  direction: Direction;
  kind: 'time' | 'int' | 'bigint' | 'other';
}

/** Bound values and the `$n` that names each. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Columns a page selects beside the table's own (computed order keys): read for cursors, never handed to the list's records. */
const COMPUTED_PREFIX = '__order';
/** Whether a column of a page's row is one of the table's own (not a computed order key, nor a nested page's parent key). */
export const ownColumn = (column: string) => !column.startsWith('__');
const isUuid = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
const BIGINT_MAX = 9_223_372_036_854_775_807n;
const isBigint = (value: unknown) => typeof value === 'string' && /^-?[0-9]{1,19}$/.test(value) && BigInt(value) <= BIGINT_MAX && BigInt(value) >= -BIGINT_MAX - 1n;
/** Whether a key field's column could hold `value` (a value it could not hold matches no row, rather than failing in SQL). */
const fits = (field: ListField, value: unknown) => (!field.uuid || isUuid(value)) && (!field.bigint || isBigint(value));
const likePattern = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

function invalid(declaration: ListDeclaration, message: string): GatewayError {
  return new GatewayError(declaration.invalidInputCode, message);
}

const COMPARE: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * The SQL of a `where` (TRUE when empty); `counter` bounds how many comparisons it may hold.
 * `negated`: the filter sits under a `_not`. There a comparison of a nullable field is written
 * `(column IS NOT NULL AND column op $n)`, which is false, not NULL, for a row without a value, so
 * `_not` keeps that row (the complement of the inner filter). The column stays bare, so PostgreSQL
 * still pushes the NOT down onto indexable operators (`_not: { _not: ... }` is the plain comparison).
 */
function whereSql(declaration: ListDeclaration, where: ListWhere | null | undefined, params: Parameters, counter: { predicates: number }, path: string, negated = false): string {
  if (!where) return 'TRUE';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(where)) {
    if (value === null || value === undefined) continue;
    if (name === '_and' || name === '_or') {
      const items = value as readonly ListWhere[];
      if (items.length === 0) {
        parts.push(name === '_and' ? 'TRUE' : 'FALSE');
        continue;
      }
      const joined = items.map((item, index) => whereSql(declaration, item, params, counter, `${path}.${name}[${index}]`, negated)).join(name === '_and' ? ' AND ' : ' OR ');
      parts.push(`(${joined})`);
      continue;
    }
    if (name === '_not') {
      parts.push(`NOT (${whereSql(declaration, value as ListWhere, params, counter, `${path}._not`, true)})`);
      continue;
    }
    const field = declaration.fields[name];
    if (!field) throw invalid(declaration, `${path}.${name}: ${declaration.plural} have no such field`);
    const column = columnSql(field.column);
    const twoValued = negated && field.nullable === true;
    const compared = (comparison: string) => (twoValued ? `(${column} IS NOT NULL AND ${comparison})` : comparison);
    for (const [operator, operand] of Object.entries(value as Record<string, unknown>)) {
      if (operand === null || operand === undefined) continue;
      if (!allOperatorsOf(field.kind).includes(operator)) throw invalid(declaration, `${path}.${name}.${operator}: not an operator of this field`);
      if (operator === 'isNull' && !field.nullable && field.kind !== 'set')
        throw invalid(declaration, `${path}.${name}.isNull: not an operator of this field (every one of the ${declaration.plural} has a ${name})`);
      counter.predicates += 1;
      if (counter.predicates > MAX_PREDICATES) throw invalid(declaration, `where: at most ${MAX_PREDICATES} comparisons`);
      if ((operator === 'nin' || (operator === 'in' && field.kind === 'set')) && (operand as readonly unknown[]).length > MAX_IN_VALUES) {
        throw invalid(declaration, `${path}.${name}.${operator}: at most ${MAX_IN_VALUES} values (got ${(operand as readonly unknown[]).length})`);
      }
      const fitting = operator === 'nin' ? (operand as readonly unknown[]).filter((item) => fits(field, item)) : operand;
      const always = operator === 'neq' && !fits(field, operand) ? 'TRUE' : twoValuedComparisonSql(field, column, operator, fitting, (item) => params.add(item));
      if (always !== undefined) {
        // `neq` a value the column could not hold: every row differs from it.
        parts.push(always);
      } else if (operator === 'in') {
        const list = (operand as readonly unknown[]).filter((item) => fits(field, item));
        if (list.length > MAX_IN_VALUES) throw invalid(declaration, `${path}.${name}.in: at most ${MAX_IN_VALUES} values (got ${list.length})`);
        parts.push(list.length === 0 ? 'FALSE' : compared(`${column} IN (${list.map((item) => params.add(item)).join(', ')})`));
      } else if (operator === 'contains' || operator === 'startsWith') {
        const text = operand as string;
        // An empty pattern would match every row: it is a mistake, not a filter.
        if (text.length < 1) throw invalid(declaration, `${path}.${name}.${operator}: give at least 1 character (got 0)`);
        // Each trigram of the pattern is one more index lookup: a pattern of 10,000 characters took seconds on 100,000 rows.
        if (text.length > MAX_PATTERN_LENGTH) throw invalid(declaration, `${path}.${name}.${operator}: give at most ${MAX_PATTERN_LENGTH} characters (got ${text.length})`);
        // The trigram index answers patterns of 3 characters or more; a shorter prefix is the lower-case
        // pattern index's, a shorter `contains` reads every row (priced as a scan: comparisons.ts).
        if (operator === 'startsWith' && text.length < TRIGRAM_MIN_LENGTH) parts.push(compared(shortPrefixSql(column, `${likePattern(text)}%`, (item) => params.add(item))));
        else parts.push(compared(`${column} ILIKE ${params.add(operator === 'contains' ? `%${likePattern(text)}%` : `${likePattern(text)}%`)}`));
      } else if (!fits(field, operand)) {
        parts.push('FALSE');
      } else {
        parts.push(compared(`${column} ${COMPARE[operator]} ${params.add(operand)}`));
      }
    }
  }
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

function kindOf(declaration: ListDeclaration, column: string): ResolvedKey['kind'] {
  const field = Object.values(declaration.fields).find((candidate) => candidate.column === column);
  return field?.kind === 'time' ? 'time' : field?.kind === 'int' ? 'int' : field?.bigint ? 'bigint' : 'other';
}

/** The whole order: the client's keys (or the default), the list's own follow-up keys, the identifying columns. */
function resolveOrder(declaration: ListDeclaration, orderBy: readonly ListOrderInput[] | null | undefined): ResolvedKey[] {
  // More keys than orderable fields can only repeat one.
  const orderable = Object.values(declaration.fields).filter((field) => field.orderable).length;
  if (orderBy && orderBy.length > orderable) throw invalid(declaration, `the order has ${orderBy.length} keys; ${declaration.plural} can be ordered by at most ${orderable} fields`);
  const given: ListOrderKey[] = (orderBy ?? []).map((key, index) => {
    const field = fieldNamed(declaration, key.field);
    if (!field || !declaration.fields[field]!.orderable) throw invalid(declaration, `orderBy[${index}].field: ${declaration.plural} cannot be ordered by ${key.field}`);
    return { field, direction: key.direction ?? key.order ?? 'asc' };
  });
  const keys = [...(given.length > 0 ? given : declaration.defaultOrder), ...(declaration.thenBy ?? [])].map((key) => ({ column: declaration.fields[key.field]!.column, direction: key.direction }));
  const seen = new Set<string>();
  const resolved: ResolvedKey[] = [];
  for (const key of [...keys, ...keyColumns(declaration).map((column) => ({ column, direction: 'asc' as const }))]) {
    if (seen.has(key.column)) continue;
    seen.add(key.column);
    const alias = /^[a-z_][a-z0-9_]*$/.test(key.column) ? undefined : `${COMPUTED_PREFIX}${resolved.length}`;
    resolved.push({ ...key, kind: kindOf(declaration, key.column), ...(alias ? { alias } : {}) });
  }
  return resolved;
}

const signatureOf = (order: readonly ResolvedKey[]) => order.map((key) => `${key.column}.${key.direction}`).join(',');

/** The cursor naming `row` (as the database returns it, by column) in `order`. */
export function cursorOf(declaration: ListDeclaration, order: readonly ResolvedKey[], row: Record<string, unknown>): string {
  const values = order.map((key) => {
    const value = row[key.alias ?? key.column];
    return value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value;
  });
  return keysetCursor(declaration.type, signatureOf(order), values);
}

type DecodedCursor = { offset: number } | { values: unknown[] };

/** A cursor of this list and this order, or the offset of an older cursor (the REST layer still sends those). */
function decodeCursor(declaration: ListDeclaration, order: readonly ResolvedKey[], cursor: string, argument: 'after' | 'before'): DecodedCursor {
  const refuse = (why: string) => invalid(declaration, `${argument}: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of this list (${why})`);
  if (cursor.length > 4096) throw refuse('too long');
  const decoded = decodeCursorText(cursor);
  if (decoded === 'malformed') throw refuse('malformed');
  if ('offset' in decoded) {
    if (argument === 'before') throw refuse('malformed');
    return { offset: decoded.offset + 1 };
  }
  if (decoded.type !== declaration.type) throw refuse(`it was made by a list of ${String(decoded.type)}`);
  if (decoded.order !== signatureOf(order)) throw refuse('it was made for another orderBy');
  const values = decoded.values;
  if (!Array.isArray(values) || values.length !== order.length) throw refuse('malformed');
  return {
    values: order.map((key, index) => {
      const value: unknown = values[index];
      if (key.kind === 'time') {
        const at = typeof value === 'string' ? new Date(value) : undefined;
        if (!at || Number.isNaN(at.getTime())) throw refuse('malformed');
        return at;
      }
      if (key.kind === 'int' ? typeof value !== 'number' : typeof value !== 'string') throw refuse('malformed');
      if (key.kind === 'bigint' && !isBigint(value)) throw refuse('malformed');
      return value;
    }),
  };
}

/**
 * Rows strictly beyond `values` in `order` (`forward`), or strictly before them. The first key's
 * bound is repeated on its own so the planner can start an index scan there.
 */
function keysetSql(order: readonly ResolvedKey[], values: readonly unknown[], forward: boolean, params: Parameters): string {
  const beyond = (key: ResolvedKey) => ((key.direction === 'asc') === forward ? '>' : '<');
  const bound = params.add(values[0]);
  const alternatives = order.map((key, index) => {
    const equal = order.slice(0, index).map((previous, at) => `${columnSql(previous.column)} = ${at === 0 ? bound : params.add(values[at])}`);
    return `(${[...equal, `${columnSql(key.column)} ${beyond(key)} ${index === 0 ? bound : params.add(values[index])}`].join(' AND ')})`;
  });
  return `${columnSql(order[0]!.column)} ${beyond(order[0]!)}= ${bound} AND (${alternatives.join(' OR ')})`;
}

const orderSql = (order: readonly ResolvedKey[], reverse: boolean) => order.map((key) => `${columnSql(key.column)} ${(key.direction === 'asc') !== reverse ? 'ASC' : 'DESC'}`).join(', ');

export interface ListPlan {
  /** The page with whole rows. */
  page: BoundSql;
  /** The page with these columns only (and those its cursors are made of). */
  pageOf: (columns: readonly string[]) => BoundSql;
  count: CountSql;
  /** The rows the counts read (the filter and the scope, no cursor): aggregate.ts builds its statements over them. */
  rows: FilteredRows;
  /** The group-count statement for a groupable field (or several, a time by a bucket). */
  group: (request: GroupRequest | string) => CountSql;
  /** Reading backwards (`last`): the rows come in reverse and are turned around. */
  backward: boolean;
  size: number;
  order: ResolvedKey[];
  /** Whether rows precede (forward) or follow (backward) the page, known without reading. */
  beyondCursor: boolean;
}

/**
 * Checks the arguments and builds the statements of one page; `listMax` bounds `first` and `last`.
 * `scope` (trusted SQL, never client text) narrows every statement further: a nested list's link to its parent.
 * `scopeFirst`: the scope's rows are read first, on their own (a fenced subquery), and only then
 * filtered, ordered and cut: for a scope whose index gives no order (GIN), which the planner would
 * otherwise test row by row along an ordered index of the whole table.
 */
export function planList(declaration: ListDeclaration, args: ListArguments, listMax: number, scope?: string, scopeFirst = false): ListPlan {
  const { first, last } = args;
  if (first !== null && first !== undefined && last !== null && last !== undefined) throw invalid(declaration, 'first and last: give one of them, not both');
  const backward = last !== null && last !== undefined;
  // `first: null` asks for the largest page, as the lists always served it; omitted, the default page.
  const size = backward ? last : first === undefined ? Math.min(DEFAULT_PAGE_SIZE, listMax) : (first ?? listMax);
  if (!Number.isInteger(size) || size < 0 || size > listMax) throw invalid(declaration, `the page size must be an integer from 0 to ${listMax} (got ${size})`);
  if (declaration.large && args.where && !narrowsByIndex(declaration, args.where) && Object.keys(args.where).length > 0) {
    throw invalid(
      declaration,
      `where: on ${declaration.plural}, a filter must also match some field by a comparison an index answers (not only _not, neq, nin or a contains of 1–2 characters), so that an index can find the rows`,
    );
  }

  const order = resolveOrder(declaration, args.orderBy);
  const params = new Parameters();
  const filter = whereSql(declaration, args.where, params, { predicates: 0 }, 'where');
  const filterValues = [...params.values];
  const filtered = filter !== 'TRUE';
  const table = quote(declaration.table);
  // OFFSET 0 keeps the planner from merging the subquery into the statement around it.
  const source = scope && scopeFirst ? `(SELECT * FROM ${table} WHERE ${scope} OFFSET 0) AS ${table}` : table;
  const inline = scope && !scopeFirst ? scope : undefined;
  const conditions = inline ? [inline, filter] : [filter];
  let offset = 0;
  for (const argumentName of ['after', 'before'] as const) {
    const cursor = args[argumentName];
    if (cursor === null || cursor === undefined) continue;
    const decoded = decodeCursor(declaration, order, cursor, argumentName);
    if ('offset' in decoded) {
      if (backward) throw invalid(declaration, 'after: an offset cursor pages forward only');
      offset = decoded.offset;
    } else {
      conditions.push(keysetSql(order, decoded.values, argumentName === 'after', params));
    }
  }
  const from = `FROM ${source} WHERE ${conditions.join(' AND ')}`;
  const pageAfterColumns = `${order.map((key) => (key.alias ? `, ${key.column} AS ${quote(key.alias)}` : '')).join('')} ${from} ORDER BY ${orderSql(order, backward)} LIMIT ${size + 1}${offset > 0 ? ` OFFSET ${offset}` : ''}`;
  const page: BoundSql = { text: `SELECT *${pageAfterColumns}`, values: params.values };
  // The identifying columns and the order's own always: the cursors are made of them.
  const pageOf = (columns: readonly string[]): BoundSql => {
    const selected = new Set([...keyColumns(declaration), ...order.filter((key) => !key.alias).map((key) => key.column), ...columns]);
    return { text: `SELECT ${[...selected].map(quote).join(', ')}${pageAfterColumns}`, values: params.values };
  };
  const filterOnly = `FROM ${source} WHERE ${inline ? `${inline} AND ` : ''}${filter}`;
  return {
    page,
    pageOf,
    count: { text: `SELECT count(*)::int AS count ${filterOnly}`, values: filterValues, filtered },
    rows: { from: filterOnly, values: filterValues, filtered },
    group: (request) => groupSql(declaration, { from: filterOnly, values: filterValues, filtered }, groupRequestOf(request)),
    backward,
    size,
    order,
    beyondCursor: backward ? args.before !== null && args.before !== undefined : offset > 0 || (args.after !== null && args.after !== undefined),
  };
}

/** Runs one statement and gives its rows (inside the transaction a guarded count opens). */
export type RunSql = (text: string, values: readonly unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * Tables estimated to hold at least this many rows are "large": their count and group statements are
 * planned first, and one the planner can answer only by reading the whole table is refused. Below
 * it a whole-table read is a few milliseconds, so it runs as planned.
 */
export const LARGE_TABLE_ROWS = 50_000;
const TABLE_SIZE_TTL_MS = 60_000;

/** The planner's row estimates of the list tables, per database client, and when they were read. */
interface TableSizes {
  rows: Map<string, number>;
  at: number;
  refreshing?: Promise<void>;
}
const tableSizesOf = new WeakMap<object, TableSizes>();

// reltuples is -1 before the first ANALYZE: fall back on the pages the table holds.
const TABLE_SIZES_SQL = `SELECT relname::text AS "table", (CASE WHEN reltuples < 0 THEN relpages * 50 ELSE reltuples END)::float8 AS rows
  FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = current_schema()::regnamespace`;

async function readTableSizes(run: RunSql, sizes: TableSizes): Promise<void> {
  const rows = await run(TABLE_SIZES_SQL, []);
  sizes.rows = new Map(rows.map((row) => [String(row.table), Number(row.rows)]));
  sizes.at = Date.now();
}

/**
 * Reads every table's row estimate in one statement, so that no list request pays for it: the
 * gateway calls this once at start; afterwards a stale estimate is refreshed beside the request
 * that finds it stale (statistics move slowly), never in front of it.
 */
export async function readListTableSizes(prisma: PrismaClient): Promise<void> {
  const sizes: TableSizes = { rows: new Map(), at: 0 };
  await readTableSizes(runOn(prisma), sizes);
  tableSizesOf.set(prisma, sizes);
}

/** Refreshes stale estimates beside the caller (statistics move slowly), never in front of it. */
function refreshIfStale(prisma: PrismaClient, sizes: TableSizes): void {
  if (Date.now() - sizes.at < TABLE_SIZE_TTL_MS || sizes.refreshing) return;
  sizes.refreshing = readTableSizes(runOn(prisma), sizes)
    .catch(() => undefined) // the old estimates serve until a later refresh succeeds
    .finally(() => {
      sizes.refreshing = undefined;
    });
}

/** The planner's estimate of a table's rows (pg_class); read in front of the request only when none was ever read. */
async function estimatedRows(prisma: PrismaClient, table: string): Promise<number> {
  let sizes = tableSizesOf.get(prisma);
  if (!sizes) {
    await readListTableSizes(prisma);
    sizes = tableSizesOf.get(prisma)!;
  } else refreshIfStale(prisma, sizes);
  return sizes.rows.get(table) ?? 0;
}

/**
 * The estimates as last read, without waiting (for the query cost, which prices a count by the rows
 * it may read before anything runs): undefined for a table not estimated yet.
 */
export function knownTableRows(prisma: PrismaClient): (table: string) => number | undefined {
  return (table) => {
    const sizes = tableSizesOf.get(prisma);
    if (!sizes) return undefined;
    refreshIfStale(prisma, sizes);
    return sizes.rows.get(table);
  };
}

const runOn =
  (client: Pick<PrismaClient, '$queryRawUnsafe'>): RunSql =>
  (text, values) =>
    client.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * Whether the plan reads the table whole to keep some of its rows: a sequential scan, or (for a
 * filtered count) an index walked end to end, without an index condition. An index walked whole
 * for a count of every row (no filter) is that count answered from the index.
 */
function readsWholeTable(plan: PlanNode, table: string, filtered: boolean): boolean {
  return planNodes(plan).some(
    (node) => (node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table) || (filtered && /Index Scan|Index Only Scan/.test(node['Node Type']) && node['Index Cond'] === undefined),
  );
}

const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/**
 * Plans a count or group statement with sequential scans turned off, so the planner reads an index
 * whenever one serves the filter, and refuses it when it still has to read `declaration.table`
 * whole to filter it (a `where` no index serves, such as `_not` of an equality). Must run inside a
 * transaction: the setting is local to it, and the statement run next in it uses the same plan.
 */
export async function checkCountIndexed(run: RunSql, declaration: ListDeclaration, statement: CountSql, what: string, rows: number): Promise<void> {
  await run('SET LOCAL enable_seqscan = off', []);
  const explained = await run(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
  const plan = (explained[0]!['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan;
  if (readsWholeTable(plan, declaration.table, statement.filtered)) {
    throw invalid(
      declaration,
      `${what}: no index can count ${declaration.plural} by this where, and reading all ${Math.round(rows)} of them is refused; narrow the where by a field compared positively (not only under _not)`,
    );
  }
}

/**
 * How long a count statement found indexed (checkCountIndexed) is taken as indexed without planning it
 * again: the same time the table estimates are kept, as the verdict depends on them and on the indexes.
 */
const INDEXED_VERDICT_TTL_MS = TABLE_SIZE_TTL_MS;
/** Most verdicts kept per database client; the oldest is forgotten first. */
const INDEXED_VERDICTS_MAX = 1000;
const indexedVerdictsOf = new WeakMap<object, Map<string, number>>();

/**
 * The key of a count's verdict: the statement with its values (a value can change the plan, e.g. a
 * LIKE pattern), and the table's size class (a power of ten of its estimated rows), so a table that
 * grows into another class is planned again.
 */
const verdictKey = (statement: CountSql, rows: number) =>
  `${Math.floor(Math.log10(Math.max(rows, 1)))}\u0000${statement.text}\u0000${JSON.stringify(statement.values, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`;

/**
 * Runs a count or group statement: on a large table through an indexed plan only (checkCountIndexed).
 * The check costs a transaction and four round trips more than the count (BEGIN, SET, EXPLAIN, COMMIT):
 * a statement found indexed is then run alone for a while (a dashboard asks the same figures again and
 * again), as one round trip. It may then run the plan the planner finds cheapest, a sequential scan
 * among them: the check is that an index can serve it, which the verdict still says. A statement never
 * found indexed is checked every time, so a refusal is never skipped.
 */
async function runCounting(prisma: PrismaClient, declaration: ListDeclaration, statement: CountSql, what: string): Promise<Record<string, unknown>[]> {
  const rows = await estimatedRows(prisma, declaration.table);
  if (rows < LARGE_TABLE_ROWS) return runOn(prisma)(statement.text, statement.values);
  let verdicts = indexedVerdictsOf.get(prisma);
  if (!verdicts) indexedVerdictsOf.set(prisma, (verdicts = new Map<string, number>()));
  const key = verdictKey(statement, rows);
  const until = verdicts.get(key);
  if (until !== undefined && until > Date.now()) return runOn(prisma)(statement.text, statement.values);
  const counted = await prisma.$transaction(async (tx) => {
    const run = runOn(tx);
    await checkCountIndexed(run, declaration, statement, what, rows);
    return run(statement.text, statement.values);
  });
  verdicts.delete(key);
  if (verdicts.size >= INDEXED_VERDICTS_MAX) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(key, Date.now() + INDEXED_VERDICT_TTL_MS);
  return counted;
}

type RuntimeModels = Record<string, { dbName: string | null; fields: { name: string; dbName: string | null; kind: string }[] }>;
const runtimeModels = (prisma: PrismaClient) => (prisma as unknown as { _runtimeDataModel: { models: RuntimeModels } })._runtimeDataModel.models;

/** Column name → Prisma field name of `model`'s columns, from the client's own data model. */
function columnFields(models: RuntimeModels, model: string | undefined, table: string): Map<string, string> {
  const fields = model === undefined ? undefined : models[model]?.fields;
  if (!fields) throw new Error(`Prisma has no model of the table ${table}`);
  return new Map(fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum').map((field) => [field.dbName ?? field.name, field.name]));
}

/** Each list's column names → field names, made at its first read (the generated client's data model does not change). */
const fieldNamesByList = new WeakMap<ListDeclaration, Map<string, string>>();

/** Column name → Prisma field name of the list's model (the one mapped to its table), from the client's own data model. */
export function fieldNamesOf(prisma: PrismaClient, declaration: ListDeclaration): Map<string, string> {
  let names = fieldNamesByList.get(declaration);
  if (!names) {
    const models = runtimeModels(prisma);
    names = columnFields(models, declaration.model ?? Object.keys(models).find((name) => (models[name]!.dbName ?? name) === declaration.table), declaration.table);
    fieldNamesByList.set(declaration, names);
  }
  return names;
}

/**
 * `"column" AS "field", …` for every column of a Prisma model: plain SQL whose rows are named as
 * Prisma's model names them (read with PRISMA_RAW_TYPES, they carry the same values).
 */
export function modelColumnsSql(prisma: PrismaClient, model: string): string {
  return [...columnFields(runtimeModels(prisma), model, model)].map(([column, field]) => `${quote(column)} AS ${quote(field)}`).join(', ');
}

/** Where a list reads: Prisma's client (its data model, the counts' transactions) and the pool it runs on. */
export interface ListSource {
  prisma: PrismaClient;
  storePool: pg.Pool;
}

/** Each list's field names → column names (columnsOf). */
const columnNamesByList = new WeakMap<ListDeclaration, Map<string, string>>();

/** The columns holding these fields of the list's model (Prisma field names). */
function columnsOf(prisma: PrismaClient, declaration: ListDeclaration, fields: ReadonlySet<string>): string[] {
  let columns = columnNamesByList.get(declaration);
  if (!columns) {
    columns = new Map([...fieldNamesOf(prisma, declaration)].map(([column, field]) => [field, column]));
    columnNamesByList.set(declaration, columns);
  }
  return [...fields].map((field) => {
    const column = columns.get(field);
    // A declaration naming a field the model lacks is the gateway's mistake, never the client's.
    if (column === undefined) throw new Error(`${declaration.table} has no column for the field ${field}`);
    return column;
  });
}

/**
 * Runs a list page: one statement for the page; the count and group counts only when asked for.
 * `toItem` maps a row (named as the Prisma model names its fields) to the list's record. With
 * `fields` (the record fields its reader needs: src/graphql/field-reads.ts), the page reads those
 * columns only, and each record holds only those fields (and the ones its cursor is made of).
 */
export async function readList<T>(
  { prisma, storePool }: ListSource,
  declaration: ListDeclaration,
  args: ListArguments,
  listMax: number,
  toItem: (row: never) => T,
  fields?: ReadonlySet<string>,
): Promise<ListPage<T>> {
  const plan = planList(declaration, args, listMax);
  const names = fieldNamesOf(prisma, declaration);
  const statement = fields ? plan.pageOf(columnsOf(prisma, declaration, fields)) : plan.page;
  // The page as plain SQL, typed as Prisma's raw query typed it: its query compiler was ~1 ms of a
  // 50-row page's ~5 ms when executed (bench/dashboard.ts), every list read paying it.
  const rows = await runSql<Record<string, unknown>>(storePool, statement.text, statement.values, PRISMA_RAW_TYPES);
  const more = rows.length > plan.size;
  const kept = rows.slice(0, plan.size);
  if (plan.backward) kept.reverse();
  const records = kept.map((row) => {
    const named: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) if (ownColumn(column)) named[names.get(column) ?? column] = value;
    return toItem(named as never);
  });
  return {
    items: records,
    cursors: kept.map((row) => cursorOf(declaration, plan.order, row)),
    hasNextPage: plan.backward ? plan.beyondCursor : more,
    hasPreviousPage: plan.backward ? more : plan.beyondCursor,
    countAll: async () => (await runCounting(prisma, declaration, plan.count, 'totalCount'))[0]!.count as number,
    groupBy: async (given) => {
      const request = groupRequestOf(given);
      const statement = plan.group(request);
      return groupsReader(declaration, request)(await runCounting(prisma, declaration, statement, describeGroupRequest(request)));
    },
    aggregate: async () => aggregateOf((await runCounting(prisma, declaration, aggregateSql(declaration, plan.rows), 'aggregate'))[0]),
  };
}
