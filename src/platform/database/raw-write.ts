// The hottest writes as Prisma raw statements. Prisma's model API runs its query compiler for every
// statement it sends (Prisma 6 keeps no plan): ~1 ms of a dataset update's ~5.5 ms of gateway CPU
// (bench/writes.ts, its profile). A raw statement skips that work and stays Prisma's write: its
// client, the operation's transaction (operation-transaction.ts), its adapter's error codes.
import pg from 'pg';
import { Prisma } from '../../generated/prisma/client.js';

/** The SQL type a column's value is bound as: the statement casts each parameter to it. */
export type ColumnCast = 'text' | 'int' | 'json' | 'jsonb' | 'uuid' | 'text[]' | 'uuid[]' | 'float8[]';

/** Where each field of a model is written: its column and type, as the Prisma schema declares them. */
export type WritableColumns<Field extends string> = Readonly<Record<Field, readonly [column: string, cast: ColumnCast]>>;

const quoted = (column: string) => Prisma.raw(pg.escapeIdentifier(column));

/** A parameter cast to its column's type; JSON as its text, null as SQL NULL. */
function bound(value: unknown, cast: ColumnCast): Prisma.Sql {
  if (value === null) return Prisma.sql`NULL`;
  return Prisma.sql`${cast === 'json' || cast === 'jsonb' ? JSON.stringify(value) : value}::${Prisma.raw(cast)}`;
}

function entriesOf<Field extends string>(columns: WritableColumns<Field>, values: Partial<Record<Field, unknown>>): [column: string, cast: ColumnCast, value: unknown][] {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => {
      const target = columns[field as Field];
      if (!target) throw new Error(`no column is declared for the field ${field}`);
      return [target[0], target[1], value];
    });
}

/** `"column" = $n::cast, …` for every given field (an undefined one is left as it is). */
export function assignments<Field extends string>(columns: WritableColumns<Field>, values: Partial<Record<Field, unknown>>): Prisma.Sql {
  return Prisma.join(entriesOf(columns, values).map(([column, cast, value]) => Prisma.sql`${quoted(column)} = ${bound(value, cast)}`));
}

/** `("column", …) VALUES ($1::cast, …)` of the given fields: the others take their column's default. */
export function insertion<Field extends string>(columns: WritableColumns<Field>, values: Partial<Record<Field, unknown>>): Prisma.Sql {
  const entries = entriesOf(columns, values);
  return Prisma.sql`(${Prisma.join(entries.map(([column]) => quoted(column)))}) VALUES (${Prisma.join(entries.map(([, cast, value]) => bound(value, cast)))})`;
}
