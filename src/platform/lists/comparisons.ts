// One comparison of a `where` as SQL, and whether an index serves it. The operators a field of each
// kind takes live here, split in two: those an index of the field answers (`eq`, `in`, ranges, a
// pattern of 3 characters or more on the trigram index, a prefix on the lower-case pattern index),
// and those no index can answer (`neq`, `nin`, `isNull: false`, a 1–2 character `contains`, and
// every comparison of a field computed from another table). The second kind is allowed, but the
// query cost prices a count filtered only by them as a read of the whole table (src/graphql/limits.ts),
// and a large list (the audit trail) refuses a filter made only of them.
import type { ListDeclaration, ListField, ListFieldKind } from './declaration.js';

/** Operators an index of the field answers (each tested against the planner in test/platform/list-plans.test.ts). */
const INDEXED_OPERATORS: Record<ListFieldKind, readonly string[]> = {
  key: ['eq', 'in'],
  enum: ['eq', 'in'],
  text: ['eq', 'in', 'contains', 'startsWith'],
  time: ['eq', 'gt', 'gte', 'lt', 'lte'],
  int: ['eq', 'in', 'gt', 'gte', 'lt', 'lte'],
  set: ['eq', 'in'],
};

/** Operators a field of the kind also takes, read without an index (priced as a scan). `isNull` only on fields that may hold none. */
const SCAN_OPERATORS: Record<ListFieldKind, readonly string[]> = {
  key: ['neq', 'nin', 'isNull'],
  enum: ['neq', 'nin', 'isNull'],
  text: ['neq', 'nin', 'isNull'],
  time: ['neq', 'isNull'],
  int: ['neq', 'nin', 'isNull'],
  set: ['neq', 'nin', 'isNull'],
};

/** The operators an index of a field of this kind answers. */
export function operatorsOf(kind: ListFieldKind): readonly string[] {
  return INDEXED_OPERATORS[kind];
}

/** The operators a field of this kind takes besides those, which no index answers. */
export function scanOperatorsOf(kind: ListFieldKind): readonly string[] {
  return SCAN_OPERATORS[kind];
}

/** Every operator a field of this kind takes. */
export function allOperatorsOf(kind: ListFieldKind): readonly string[] {
  return [...INDEXED_OPERATORS[kind], ...SCAN_OPERATORS[kind]];
}

/** The shortest pattern the trigram index answers: a shorter one holds no trigram, and the index would hand back every row. */
export const TRIGRAM_MIN_LENGTH = 3;

/** Whether an index answers this one comparison (see the top of this file). */
export function comparisonIndexed(field: ListField, operator: string, operand: unknown): boolean {
  if (field.scan || operand === null || operand === undefined) return false;
  if (operator === 'isNull') return operand === true && field.kind !== 'set';
  if (operator === 'contains') return typeof operand === 'string' && operand.length >= TRIGRAM_MIN_LENGTH;
  return INDEXED_OPERATORS[field.kind].includes(operator);
}

type Where = { [field: string]: unknown };

/** Every field name a `where` (with `_and`, `_or`, `_not`, at any depth) compares. */
export function fieldsNamedBy(where: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(where)) where.forEach((item) => fieldsNamedBy(item, into));
  else if (where !== null && typeof where === 'object') {
    for (const [name, inner] of Object.entries(where)) {
      if (name === '_and' || name === '_or' || name === '_not') fieldsNamedBy(inner, into);
      else if (inner !== null && inner !== undefined) into.add(name);
    }
  }
  return into;
}

/**
 * Whether an index can find the rows a `where` selects: some comparison an index answers, not under
 * `_not` (`_not: { _not: x }` is x); under `_or`, every branch must have one. An empty `where` reads
 * every row in the list's order, which the order's index serves.
 */
export function narrowsByIndex(declaration: ListDeclaration, where: Where | null | undefined): boolean {
  if (!where) return false;
  return Object.entries(where).some(([name, value]) => {
    if (value === null || value === undefined) return false;
    if (name === '_not') {
      const given = Object.entries(value as Where).filter(([, inner]) => inner !== null && inner !== undefined);
      return given.length === 1 && given[0]![0] === '_not' && narrowsByIndex(declaration, given[0]![1] as Where);
    }
    if (name === '_and') return (value as Where[]).some((item) => narrowsByIndex(declaration, item));
    if (name === '_or') return (value as Where[]).length > 0 && (value as Where[]).every((item) => narrowsByIndex(declaration, item));
    const field = declaration.fields[name];
    // An unknown field is refused when the statement is built; here it narrows nothing.
    if (!field) return false;
    return Object.entries(value as Record<string, unknown>).some(([operator, operand]) => comparisonIndexed(field, operator, operand));
  });
}

/**
 * The SQL of a comparison that is true or false for every row, never NULL (`neq`, `nin`, `isNull`,
 * and every comparison of a set), so that `_not` of it is its complement as written. `add` binds a
 * value and gives its `$n`; `column` is the field's SQL. Undefined for the other operators.
 */
export function twoValuedComparisonSql(field: ListField, column: string, operator: string, operand: unknown, add: (value: unknown) => string): string | undefined {
  if (field.kind === 'set') {
    const values = (list: readonly unknown[]) => `${add(list.map(String))}::text[]`;
    // A set column without a value (NULL) holds nothing: each test is false for it, never NULL.
    const holds = (test: string) => (field.nullable ? `(${column} IS NOT NULL AND ${column} ${test})` : `${column} ${test}`);
    switch (operator) {
      case 'eq':
        return holds(`@> ${values([operand])}`);
      case 'neq':
        return `NOT ${holds(`@> ${values([operand])}`)}`;
      case 'in':
        return holds(`&& ${values(operand as unknown[])}`);
      case 'nin':
        return `NOT ${holds(`&& ${values(operand as unknown[])}`)}`;
      case 'isNull': {
        const empty = field.nullable ? `(${column} IS NULL OR cardinality(${column}) = 0)` : `cardinality(${column}) = 0`;
        return operand === true ? empty : `NOT ${empty}`;
      }
    }
    return undefined;
  }
  switch (operator) {
    case 'isNull':
      return `${column} IS ${operand === true ? '' : 'NOT '}NULL`;
    // An item without a value is not equal to the value: it is kept, as `_not: { eq }` keeps it.
    case 'neq':
      return `${column} IS DISTINCT FROM ${add(operand)}`;
    case 'nin': {
      const list = operand as readonly unknown[];
      if (list.length === 0) return 'TRUE';
      return `(${column} IS NULL OR ${column} NOT IN (${list.map(add).join(', ')}))`;
    }
  }
  return undefined;
}

/**
 * The SQL of a `startsWith` shorter than the trigram index answers: the lower-case text pattern index
 * of the field (`lower(column) text_pattern_ops`, migration 20261207010000_linked_filters) serves a
 * prefix of any length.
 */
export const shortPrefixSql = (column: string, pattern: string, add: (value: unknown) => string) => `lower(${column}) LIKE lower(${add(pattern)})`;
