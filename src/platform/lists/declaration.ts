// What a list declares about itself, once: the fields a client may filter, order and count by, the
// column (or indexed expression) each reads, and how its rows are identified. The GraphQL inputs
// (src/graphql/list-sdl.ts) and the SQL of every page (list-query.ts) are both built from it, so
// the schema can offer nothing the database cannot answer from an index.
import type { ErrorCode } from '../../errors.js';

/** What a field holds; it fixes the operators a `where` may use on it. */
export type ListFieldKind =
  /** An identifier or a short code: `eq`, `in`. */
  | 'key'
  /** Free text: `eq`, `in`, `contains`, `startsWith` (case-insensitive, served by a trigram index from 3 characters, a prefix by a lower-case pattern index). */
  | 'text'
  /** A point in time: `eq`, `gt`, `gte`, `lt`, `lte`. */
  | 'time'
  /** A whole number: `eq`, `in`, `gt`, `gte`, `lt`, `lte`. */
  | 'int'
  /** A value of a GraphQL enum: `eq`, `in`. */
  | 'enum'
  /**
   * Several values at once (a dataset's tags, the severities of its alert rules), as a SQL array: `eq`
   * holds this one, `in` holds one of these, `neq`/`nin` their opposites, `isNull` holds none. Of
   * strings, or of the values of `enumType`.
   */
  | 'set';

export interface ListField {
  /** The SQL the field reads: a column name, or an expression with an index of its own (trusted text, never client input). */
  column: string;
  kind: ListFieldKind;
  /** One sentence for the GraphQL descriptions: what the field is. */
  description: string;
  /** For kind `enum`: the GraphQL enum, and its values as stored (GraphQL name → stored value). */
  enumType?: string;
  enumValues?: Readonly<Record<string, string>>;
  /** For kind `key` on a uuid column: a value that is not a UUID matches nothing (the column could not hold it). */
  uuid?: boolean;
  /** For kind `key` on a bigint column: a value that is not a whole number the column can hold matches nothing. */
  bigint?: boolean;
  /**
   * The column may hold null (or the expression give it). A comparison never matches a row without a
   * value, so under `_not` such a row is in the complement: the builder makes each comparison of a
   * nullable field two-valued there (SQL's `NOT NULL` is NULL, which would drop the row).
   */
  nullable?: boolean;
  /**
   * No index answers a comparison of the field (one computed from another table per row, such as a
   * dataset's ingestion counters): every comparison of it is priced as a scan (comparisons.ts).
   */
  scan?: boolean;
  /**
   * What a filter on the field reads beyond the list's table (through a link): the API ids a caller
   * needs to filter by it (those that read what it reads; src/auth/filter-guard.ts), the announced
   * tables an answer filtered by it is made of, and whether it is made of figures no announcement
   * covers (such an answer is kept for a bounded time only: src/graphql/published-reads.ts).
   */
  reads?: { apiIds: readonly string[]; tables?: readonly string[]; figures?: boolean };
  /** May appear in `orderBy` (a column or expression never null, with an index that starts with it, or `scan`). */
  orderable?: boolean;
  /** May appear in `groupBy`. */
  groupable?: boolean;
}

/**
 * A figure a list's `aggregate` sums, averages and bounds besides its `int` and `time` fields: a
 * column no filter reads (so it needs no index), or a figure computed per row (an ingestion counter).
 */
export interface ListMeasure {
  /** The SQL of the figure over one row of the list's table (trusted text, never client input). */
  column: string;
  /** `number` is summed, averaged and bounded; `time` only bounded (`min`, `max`). */
  kind: 'number' | 'time';
  /** One sentence for the GraphQL descriptions: what the figure is. */
  description: string;
}

export type Direction = 'asc' | 'desc';

export interface ListOrderKey {
  /** A field of the declaration. */
  field: string;
  direction: Direction;
}

export interface ListDeclaration {
  /** The GraphQL type of the list's nodes (`QueryTemplate`): names the generated inputs and the cursors. */
  type: string;
  /** Plural noun for descriptions ("query templates"). */
  plural: string;
  /** The table the list reads. */
  table: string;
  /** The Prisma model of that table, when Prisma's data model has no model mapped to it: rows are handed back with the model's field names. */
  model?: string;
  /** The columns that identify a row; they break the last ties of every order, ascending. `id` when not given. */
  key?: readonly string[];
  fields: Readonly<Record<string, ListField>>;
  /** The order when the client gives none. */
  defaultOrder: readonly ListOrderKey[];
  /** Keys that follow the client's own (before the identifying columns), as the list always did. */
  thenBy?: readonly ListOrderKey[];
  /** The error code of the list's bad arguments (its existing one, so the REST layer's answers stay the same). */
  invalidInputCode: ErrorCode;
  /** Figures `aggregate` reads besides the `int` and `time` fields (src/platform/lists/aggregate.ts). */
  measures?: Readonly<Record<string, ListMeasure>>;
  /** A table that grows without bound (the audit trail): a filter must narrow it by an indexed predicate, never only by `_not`. */
  large?: boolean;
}

export const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
/** A declared column: a plain name is quoted, an expression (declared, never client text) is used as written. */
export const columnSql = (column: string) => (/^[a-z_][a-z0-9_]*$/.test(column) ? quote(column) : column);

/** The columns that identify a row of the list. */
export function keyColumns(declaration: ListDeclaration): readonly string[] {
  return declaration.key ?? ['id'];
}

/** `createdAt` → `CREATED_AT`: the GraphQL enum value naming a field. */
export function enumNameOf(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** The field an enum value or a field name stands for; undefined when the list has none such. */
export function fieldNamed(declaration: ListDeclaration, name: string): string | undefined {
  if (Object.hasOwn(declaration.fields, name)) return name;
  return Object.keys(declaration.fields).find((field) => enumNameOf(field) === name);
}

/** A uuid `id` column as a list's identifying field: "The rule id (a UUID)." */
export function uuidIdField(noun: string): ListField {
  return { column: 'id', kind: 'key', uuid: true, description: `The ${noun} id (a UUID).` };
}

/** When a row was made: every list keeps it in `created_date`, and can be ordered by it. */
export function createdAtField(noun: string, made = 'created'): ListField {
  return { column: 'created_date', kind: 'time', description: `When the ${noun} was ${made}.`, orderable: true };
}

/** `createdAt` and `updatedAt` (from `created_date` and `updated_date`), both orderable, as nearly every list has them. */
export function changeTimeFields(noun: string, made = 'created'): { createdAt: ListField; updatedAt: ListField } {
  return { createdAt: createdAtField(noun, made), updatedAt: { column: 'updated_date', kind: 'time', description: `When the ${noun} was last changed.`, orderable: true } };
}

/** What a list says about itself besides its fields; the order is newest first when it gives none. */
type ListHeader = Omit<ListDeclaration, 'fields' | 'defaultOrder'> & Partial<Pick<ListDeclaration, 'defaultOrder'>>;

/** A list's declaration from its header (one line) and its fields. */
export function defineList(header: ListHeader, fields: ListDeclaration['fields']): ListDeclaration {
  return { defaultOrder: [{ field: 'createdAt', direction: 'desc' }], ...header, fields };
}
