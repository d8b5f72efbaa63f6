// The search table (kept by triggers on the records' own tables, see the search migration), read
// with one statement per search: the whole match is ranked once, then both counted per type (the
// facets) and cut to the page after the cursor. Every value is a bound parameter.
import type pg from 'pg';
import type { PreparedSearch, SearchKeyset } from './query.js';
import type { SearchableType } from './types.js';

export interface SearchRow {
  type: SearchableType;
  naturalId: string;
  stage: string;
  rank: number;
  docId: string;
}

export interface SearchRows {
  rows: SearchRow[];
  counts: Map<SearchableType, number>;
}

// Rank tiers, best first: the whole name or id; a name or id that starts with the query; every
// word in the name or id (or the query inside it); tags and field names; anything else (the
// description). Within a tier, full-text rank (weights A..D, normalised to [0, 1)).
const TIER = 1_000_000;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** The statement of one search and its values. */
function statement(search: PreparedSearch, readable: readonly SearchableType[], asked: readonly SearchableType[], after: SearchKeyset | null) {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const tsquery = `to_tsquery('simple', ${bind(search.words.map((word) => `'${word}':*`).join(' & '))})`;
  const phrase = bind(search.phrase);
  const prefix = bind(`${escapeLike(search.phrase)}%`);
  const infix = search.infix ? bind(`%${escapeLike(search.phrase)}%`) : undefined;
  const filters = [`d."type" = ANY(${bind(readable)}::text[])`];
  filters.push(infix ? `(d."document" @@ q.tsq OR d."title" LIKE ${infix})` : `d."document" @@ q.tsq`);
  if (search.statuses) filters.push(`d."status" = ANY(${bind(search.statuses)}::text[])`);
  if (search.tags) filters.push(`d."tags" && ${bind(search.tags)}::text[]`);
  const bounds = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
  for (const [bound, time] of Object.entries(search.updatedAt)) filters.push(`d."updated_at" ${bounds[bound as keyof typeof bounds]} ${bind(time)}::timestamptz`);
  const page = [`m."type" = ANY(${bind(asked)}::text[])`];
  if (after) page.push(`(m."rank" < ${bind(after.rank)} OR (m."rank" = ${bind(after.rank)} AND m."doc_id" COLLATE "C" > ${bind(after.docId)}))`);
  const text = `
    WITH q AS (SELECT ${tsquery} AS tsq),
    matched AS MATERIALIZED (
      SELECT d."doc_id", d."type", d."natural_id", d."stage",
             (CASE WHEN lower(d."name") = ${phrase} OR lower(d."natural_id") = ${phrase} THEN 5
                   WHEN lower(d."name") LIKE ${prefix} OR lower(d."natural_id") LIKE ${prefix} THEN 4
                   WHEN d."title_document" @@ q.tsq${infix ? ` OR d."title" LIKE ${infix}` : ''} THEN 3
                   WHEN ts_rank('{0,1,1,0}', d."document", q.tsq) > 0 THEN 2
                   ELSE 1 END) * ${TIER}
               + floor(ts_rank(d."document", q.tsq, 32) * ${TIER - 1})::int AS "rank"
        FROM "search_documents" d, q
       WHERE ${filters.join(' AND ')}
    )
    SELECT m."type", NULL AS "natural_id", NULL AS "stage", NULL::int AS "rank", NULL AS "doc_id", count(*)::int AS "count"
      FROM matched m GROUP BY m."type"
    UNION ALL
    (SELECT m."type", m."natural_id", m."stage", m."rank", m."doc_id", NULL::int
       FROM matched m
      WHERE ${page.join(' AND ')}
      ORDER BY m."rank" DESC, m."doc_id" COLLATE "C"
      LIMIT ${bind(search.first + 1)})`;
  return { text, values };
}

export function createSearchStore(pool: pg.Pool) {
  return {
    /** The ranked page after `after` of the types asked, and the match counted per readable type. */
    async search(search: PreparedSearch, readable: readonly SearchableType[], asked: readonly SearchableType[]): Promise<SearchRows> {
      const { text, values } = statement(search, readable, asked, search.after);
      const result = await pool.query<{ type: SearchableType; natural_id: string | null; stage: string | null; rank: number | null; doc_id: string | null; count: number | null }>(text, values);
      const rows: SearchRow[] = [];
      const counts = new Map<SearchableType, number>();
      for (const row of result.rows) {
        if (row.count !== null) counts.set(row.type, row.count);
        else rows.push({ type: row.type, naturalId: row.natural_id!, stage: row.stage!, rank: row.rank!, docId: row.doc_id! });
      }
      return { rows, counts };
    },
  };
}

export type SearchStore = ReturnType<typeof createSearchStore>;
