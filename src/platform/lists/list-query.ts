// The SQL of a list page, built from its declaration: the client's `where` as bound parameters, the
// order with the identifying columns last (so the order is total), and a keyset predicate from a
// cursor, so a page starts right after the row the cursor names, however many rows were added or
// removed before it. Also the count and the group counts over the same filter.
import type { PrismaClient } from '../../generated/prisma/client.js';
import { GatewayError } from '../../errors.js';
import { fieldNamed, keyColumns, type Direction, type ListDeclaration, type ListField, type ListOrderKey } from './declaration.js';

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
  /** Counts the matches by the values of one field (a GraphQL enum value or field name). */
  groupBy: (field: string) => Promise<{ key: string | null; count: number }[]>;
}

/** A statement with `$n` placeholders and the values bound to them. */
export interface BoundSql {
  text: string;
  values: unknown[];
}

/** The page a client gets without asking for a size (`first` omitted), as the lists always served. */
export const DEFAULT_PAGE_SIZE = 100;
/** Most values one `in` may list, and most comparisons one `where` may hold. */
const MAX_IN_VALUES = 500;
const MAX_PREDICATES = 50;
const MAX_GROUPS = 1000;
const CURSOR_VERSION = 'k1';
const OFFSET_PREFIX = 'offset:';

interface ResolvedKey {
  column: string;
  direction: Direction;
  kind: 'time' | 'int' | 'other';
}

/** Bound values and the `$n` that names each. */
class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
/** A declared column: a plain name is quoted, an expression (declared, never client text) is used as written. */
const columnSql = (column: string) => (/^[a-z_][a-z0-9_]*$/.test(column) ? quote(column) : column);
const isUuid = (value: unknown) => typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
const likePattern = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

function invalid(declaration: ListDeclaration, message: string): GatewayError {
  return new GatewayError(declaration.invalidInputCode, message);
}

const OPERATORS: Record<ListField['kind'], readonly string[]> = {
  key: ['eq', 'in'],
  enum: ['eq', 'in'],
  text: ['eq', 'in', 'contains', 'startsWith'],
  time: ['eq', 'gt', 'gte', 'lt', 'lte'],
  int: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
};

/** The operators a field of this kind takes (the GraphQL comparison input offers exactly these). */
export function operatorsOf(kind: ListField['kind']): readonly string[] {
  return OPERATORS[kind];
}

const COMPARE: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** The SQL of a `where` (TRUE when empty); `counter` bounds how many comparisons it may hold. */
function whereSql(declaration: ListDeclaration, where: ListWhere | null | undefined, params: Parameters, counter: { predicates: number }, path: string): string {
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
      const joined = items.map((item, index) => whereSql(declaration, item, params, counter, `${path}.${name}[${index}]`)).join(name === '_and' ? ' AND ' : ' OR ');
      parts.push(`(${joined})`);
      continue;
    }
    if (name === '_not') {
      parts.push(`NOT (${whereSql(declaration, value as ListWhere, params, counter, `${path}._not`)})`);
      continue;
    }
    const field = declaration.fields[name];
    if (!field) throw invalid(declaration, `${path}.${name}: ${declaration.plural} have no such field`);
    const column = columnSql(field.column);
    for (const [operator, operand] of Object.entries(value as Record<string, unknown>)) {
      if (operand === null || operand === undefined) continue;
      if (!OPERATORS[field.kind].includes(operator)) throw invalid(declaration, `${path}.${name}.${operator}: not an operator of this field`);
      counter.predicates += 1;
      if (counter.predicates > MAX_PREDICATES) throw invalid(declaration, `where: at most ${MAX_PREDICATES} comparisons`);
      if (operator === 'in') {
        const list = (operand as readonly unknown[]).filter((item) => !field.uuid || isUuid(item));
        if (list.length > MAX_IN_VALUES) throw invalid(declaration, `${path}.${name}.in: at most ${MAX_IN_VALUES} values (got ${list.length})`);
        parts.push(list.length === 0 ? 'FALSE' : `${column} IN (${list.map((item) => params.add(item)).join(', ')})`);
      } else if (operator === 'contains' || operator === 'startsWith') {
        const text = operand as string;
        // The trigram index answers patterns of three characters or more; a shorter one would read every row.
        if (text.length < 3) throw invalid(declaration, `${path}.${name}.${operator}: give at least 3 characters (got ${text.length})`);
        parts.push(`${column} ILIKE ${params.add(operator === 'contains' ? `%${likePattern(text)}%` : `${likePattern(text)}%`)}`);
      } else if (field.uuid && !isUuid(operand)) {
        parts.push('FALSE');
      } else {
        parts.push(`${column} ${COMPARE[operator]} ${params.add(operand)}`);
      }
    }
  }
  return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
}

/** True when `where` narrows the rows by at least one comparison that is not under `_not` (an index can find them). */
function narrowsPositively(where: ListWhere | null | undefined): boolean {
  if (!where) return false;
  return Object.entries(where).some(([name, value]) => {
    if (value === null || value === undefined || name === '_not') return false;
    if (name === '_and') return (value as ListWhere[]).some(narrowsPositively);
    if (name === '_or') return (value as ListWhere[]).length > 0 && (value as ListWhere[]).every(narrowsPositively);
    return Object.values(value as Record<string, unknown>).some((operand) => operand !== null && operand !== undefined);
  });
}

function kindOf(declaration: ListDeclaration, column: string): ResolvedKey['kind'] {
  const field = Object.values(declaration.fields).find((candidate) => candidate.column === column);
  return field?.kind === 'time' ? 'time' : field?.kind === 'int' ? 'int' : 'other';
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
    resolved.push({ ...key, kind: kindOf(declaration, key.column) });
  }
  return resolved;
}

const signatureOf = (order: readonly ResolvedKey[]) => order.map((key) => `${key.column}.${key.direction}`).join(',');

/** The cursor naming `row` (as the database returns it, by column) in `order`. */
export function cursorOf(declaration: ListDeclaration, order: readonly ResolvedKey[], row: Record<string, unknown>): string {
  const values = order.map((key) => {
    const value = row[key.column];
    return value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? value.toString() : value;
  });
  return Buffer.from(JSON.stringify([CURSOR_VERSION, declaration.type, signatureOf(order), values]), 'utf8').toString('base64url');
}

type DecodedCursor = { offset: number } | { values: unknown[] };

/** A cursor of this list and this order, or the offset of an older cursor (the REST layer still sends those). */
function decodeCursor(declaration: ListDeclaration, order: readonly ResolvedKey[], cursor: string, argument: 'after' | 'before'): DecodedCursor {
  const refuse = (why: string) => invalid(declaration, `${argument}: ${JSON.stringify(cursor.slice(0, 60))} is not a cursor of this list (${why})`);
  if (cursor.length > 4096) throw refuse('too long');
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (text.startsWith(OFFSET_PREFIX)) {
    const offset = Number(text.slice(OFFSET_PREFIX.length));
    if (argument === 'before' || !Number.isSafeInteger(offset) || offset < 0) throw refuse('malformed');
    return { offset: offset + 1 };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw refuse('malformed');
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== CURSOR_VERSION) throw refuse('malformed');
  if (parsed[1] !== declaration.type) throw refuse(`it was made by a list of ${String(parsed[1])}`);
  if (parsed[2] !== signatureOf(order)) throw refuse('it was made for another orderBy');
  const values = parsed[3] as unknown;
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
  page: BoundSql;
  count: BoundSql;
  /** The group-count statement for a groupable field. */
  group: (field: string) => BoundSql;
  /** Reading backwards (`last`): the rows come in reverse and are turned around. */
  backward: boolean;
  size: number;
  order: ResolvedKey[];
  /** Whether rows precede (forward) or follow (backward) the page, known without reading. */
  beyondCursor: boolean;
}

/** Checks the arguments and builds the statements of one page; `listMax` bounds `first` and `last`. */
export function planList(declaration: ListDeclaration, args: ListArguments, listMax: number): ListPlan {
  const { first, last } = args;
  if (first !== null && first !== undefined && last !== null && last !== undefined) throw invalid(declaration, 'first and last: give one of them, not both');
  const backward = last !== null && last !== undefined;
  // `first: null` asks for the largest page, as the lists always served it; omitted, the default page.
  const size = backward ? last : first === undefined ? Math.min(DEFAULT_PAGE_SIZE, listMax) : (first ?? listMax);
  if (!Number.isInteger(size) || size < 0 || size > listMax) throw invalid(declaration, `the page size must be an integer from 0 to ${listMax} (got ${size})`);
  if (declaration.large && args.where && !narrowsPositively(args.where) && Object.keys(args.where).length > 0) {
    throw invalid(declaration, `where: on ${declaration.plural}, a filter must also match some field (not only _not), so that an index can find the rows`);
  }

  const order = resolveOrder(declaration, args.orderBy);
  const params = new Parameters();
  const filter = whereSql(declaration, args.where, params, { predicates: 0 }, 'where');
  const filterValues = [...params.values];
  const conditions = [filter];
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
  const from = `FROM ${quote(declaration.table)} WHERE ${conditions.join(' AND ')}`;
  const page: BoundSql = {
    text: `SELECT * ${from} ORDER BY ${orderSql(order, backward)} LIMIT ${size + 1}${offset > 0 ? ` OFFSET ${offset}` : ''}`,
    values: params.values,
  };
  const filterOnly = `FROM ${quote(declaration.table)} WHERE ${filter}`;
  return {
    page,
    count: { text: `SELECT count(*)::int AS count ${filterOnly}`, values: filterValues },
    group: (name) => {
      const field = fieldNamed(declaration, name);
      if (!field || !declaration.fields[field]!.groupable) throw invalid(declaration, `groupBy: ${declaration.plural} cannot be counted by ${name}`);
      const column = columnSql(declaration.fields[field]!.column);
      return { text: `SELECT ${column} AS key, count(*)::int AS count ${filterOnly} GROUP BY 1 ORDER BY 2 DESC, 1 ASC LIMIT ${MAX_GROUPS}`, values: filterValues };
    },
    backward,
    size,
    order,
    beyondCursor: backward ? args.before !== null && args.before !== undefined : offset > 0 || (args.after !== null && args.after !== undefined),
  };
}

/** Column name → Prisma field name of the list's model (the one mapped to its table), from the client's own data model. */
function fieldNamesOf(prisma: PrismaClient, declaration: ListDeclaration): Map<string, string> {
  const models = (prisma as unknown as { _runtimeDataModel: { models: Record<string, { dbName: string | null; fields: { name: string; dbName: string | null; kind: string }[] }> } })._runtimeDataModel
    .models;
  const model = declaration.model ?? Object.keys(models).find((name) => (models[name]!.dbName ?? name) === declaration.table);
  const fields = model === undefined ? undefined : models[model]?.fields;
  if (!fields) throw new Error(`list: Prisma has no model of the table ${declaration.table}`);
  return new Map(fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum').map((field) => [field.dbName ?? field.name, field.name]));
}

/**
 * Runs a list page: one statement for the page; the count and group counts only when asked for.
 * `toItem` maps a row (named as the Prisma model names its fields) to the list's record.
 */
export async function readList<T>(prisma: PrismaClient, declaration: ListDeclaration, args: ListArguments, listMax: number, toItem: (row: never) => T): Promise<ListPage<T>> {
  const plan = planList(declaration, args, listMax);
  const names = fieldNamesOf(prisma, declaration);
  const rows = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(plan.page.text, ...plan.page.values);
  const more = rows.length > plan.size;
  const kept = rows.slice(0, plan.size);
  if (plan.backward) kept.reverse();
  const records = kept.map((row) => {
    const named: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(row)) named[names.get(column) ?? column] = value;
    return toItem(named as never);
  });
  const groupKey = (field: string) => {
    const declared = declaration.fields[fieldNamed(declaration, field) ?? ''];
    const byStored = new Map(Object.entries(declared?.enumValues ?? {}).map(([name, stored]) => [stored, name]));
    return (value: unknown) => {
      if (value === null || value === undefined) return null;
      const stored = typeof value === 'string' ? value : JSON.stringify(value);
      return byStored.get(stored) ?? stored;
    };
  };
  return {
    items: records,
    cursors: kept.map((row) => cursorOf(declaration, plan.order, row)),
    hasNextPage: plan.backward ? plan.beyondCursor : more,
    hasPreviousPage: plan.backward ? more : plan.beyondCursor,
    countAll: async () => (await prisma.$queryRawUnsafe<{ count: number }[]>(plan.count.text, ...plan.count.values))[0]!.count,
    groupBy: async (field) => {
      const statement = plan.group(field);
      const toKey = groupKey(field);
      const groups = await prisma.$queryRawUnsafe<{ key: unknown; count: number }[]>(statement.text, ...statement.values);
      return groups.map((group) => ({ key: toKey(group.key), count: group.count }));
    },
  };
}
