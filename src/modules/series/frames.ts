// Query rows (objects, as runTemplate and the ad-hoc queries answer them) as a typed frame: the
// columns once, each with the kind its values share, then the rows as value lists. Charts and
// generated clients read the columns instead of guessing from the first row.
import { rowLimitOf } from '../../platform/query-engine/query-engine.js';

export type ColumnType = 'NUMBER' | 'STRING' | 'TIMESTAMP' | 'BOOLEAN' | 'JSON';

export interface DataFrame {
  columns: { name: string; type: ColumnType }[];
  rows: unknown[][];
  /** Whether the rows were cut at their bound, and the bound (null when every row is here). */
  truncated: boolean;
  rowLimit: number | null;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A row's cells by column name; a nested object's keys one level down become `outer.inner` (Druid's `result`/`event`). */
function cellsOf(row: unknown): [string, unknown][] {
  if (!isPlainObject(row)) return [['value', row]];
  const cells: [string, unknown][] = [];
  for (const [key, value] of Object.entries(row)) {
    if (isPlainObject(value) && Object.keys(value).length > 0) for (const [inner, innerValue] of Object.entries(value)) cells.push([`${key}.${inner}`, innerValue]);
    else cells.push([key, value]);
  }
  return cells;
}

function kindOf(value: unknown): ColumnType | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return 'NUMBER';
  if (typeof value === 'boolean') return 'BOOLEAN';
  if (typeof value === 'string') return ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? 'TIMESTAMP' : 'STRING';
  return 'JSON';
}

/** Two kinds in one column: times among other text is text; anything else mixed is JSON. */
function widen(a: ColumnType | undefined, b: ColumnType | undefined): ColumnType | undefined {
  if (a === undefined) return b;
  if (b === undefined || a === b) return a;
  if ((a === 'STRING' && b === 'TIMESTAMP') || (a === 'TIMESTAMP' && b === 'STRING')) return 'STRING';
  return 'JSON';
}

export function toFrame(rows: readonly unknown[]): DataFrame {
  const index = new Map<string, number>();
  const kinds: (ColumnType | undefined)[] = [];
  const cellRows = rows.map((row) => {
    const cells = cellsOf(row);
    for (const [name, value] of cells) {
      let at = index.get(name);
      if (at === undefined) {
        at = index.size;
        index.set(name, at);
        kinds.push(undefined);
      }
      kinds[at] = widen(kinds[at], kindOf(value));
    }
    return cells;
  });
  return {
    columns: [...index.keys()].map((name, i) => ({ name, type: kinds[i] ?? 'JSON' })),
    rows: cellRows.map((cells) => {
      const values = new Array<unknown>(index.size).fill(null);
      for (const [name, value] of cells) values[index.get(name)!] = value ?? null;
      return values;
    }),
    // Rows cut at their bound say so, as REST's x-result-truncated does.
    truncated: rowLimitOf(rows) !== undefined,
    rowLimit: rowLimitOf(rows) ?? null,
  };
}
