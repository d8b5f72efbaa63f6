// The kept versions of records (table entity_versions, written by triggers on each record's table:
// migration 20261207020000_entity_versions), a page at a time, newest first, each with the version
// before it (the newest earlier one that is not a deletion), so the pages of changes of every record
// a response asks for are one statement.
import type pg from 'pg';
import type { HistoryEntityType, HistoryOperation } from './types.js';

export interface VersionRow {
  id: bigint;
  operation: HistoryOperation;
  stage: string | null;
  actor: string | null;
  at: Date;
  /** The record as it was written, under its fields' names (the row's columns renamed; values as stored). */
  snapshot: Record<string, unknown>;
  /** The version it changed (null: none kept, or it was the record's first). */
  previous: Record<string, unknown> | null;
}

/** A column as the API names its field (data_schema → dataSchema); keys inside a value stay as written. */
const fieldName = (column: string) => column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A snapshot of a row (its columns, as the triggers keep it) under the record's field names. */
const fieldsOf = (columns: Record<string, unknown>) => Object.fromEntries(Object.entries(columns).map(([column, value]) => [fieldName(column), value]));

// The records of one type asked for together (a page of datasets, each with its history): one
// statement for all of them, each record's page cut and ordered by the database as its own.
const PAGES_SQL = `
SELECT parent.entity_id AS parent, page.*
  FROM unnest($2::text[]) AS parent(entity_id)
 CROSS JOIN LATERAL (
  SELECT v.id, v.operation, v.stage, v.actor, v.at, v.snapshot, p.snapshot AS previous
    FROM entity_versions v
    LEFT JOIN LATERAL (
      SELECT e.snapshot FROM entity_versions e
       WHERE e.entity_type = v.entity_type AND e.entity_id = v.entity_id AND e.id < v.id AND e.operation <> 'DELETED'
       ORDER BY e.id DESC LIMIT 1
    ) p ON true
   WHERE v.entity_type = $1 AND v.entity_id = parent.entity_id AND ($3::bigint IS NULL OR v.id < $3)
   ORDER BY v.id DESC
   LIMIT $4
 ) page`;

const COUNTS_SQL = `SELECT entity_id, count(*) AS count FROM entity_versions WHERE entity_type = $1 AND entity_id = ANY($2::text[]) GROUP BY entity_id`;

export function createHistoryStore(pool: pg.Pool) {
  return {
    /** At most `limit` versions of each record older than `before` (all when null), newest first, in one statement. */
    async versions(type: HistoryEntityType, ids: readonly string[], before: bigint | null, limit: number): Promise<Map<string, VersionRow[]>> {
      const { rows } = await pool.query<Omit<VersionRow, 'id'> & { id: string; parent: string }>(PAGES_SQL, [type, ids, before?.toString() ?? null, limit]);
      const byRecord = new Map<string, VersionRow[]>();
      for (const { parent, ...row } of rows) {
        const kept = byRecord.get(parent) ?? byRecord.set(parent, []).get(parent)!;
        kept.push({ ...row, id: BigInt(row.id), snapshot: fieldsOf(row.snapshot), previous: row.previous && fieldsOf(row.previous) });
      }
      return byRecord;
    },

    /** How many versions of each record are kept, in one statement. */
    async counts(type: HistoryEntityType, ids: readonly string[]): Promise<Map<string, number>> {
      const { rows } = await pool.query<{ entity_id: string; count: string }>(COUNTS_SQL, [type, ids]);
      return new Map(rows.map((row) => [row.entity_id, Number(row.count)]));
    },

    /** How many versions of each record the triggers keep (VERSION_RETENTION), written at start-up. */
    async setRetention(retention: number): Promise<void> {
      await pool.query('UPDATE entity_version_settings SET retention = $1 WHERE id = 1', [retention]);
    },
  };
}

export type HistoryStore = ReturnType<typeof createHistoryStore>;
