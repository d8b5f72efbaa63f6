// The search table (kept by triggers on the records' own tables, see the search migrations), read
// with one statement per search page: the query's words are widened by the lexicon (typos), the
// whole match is ranked once, then both counted per type (the facets) and cut to the page beyond
// the cursor in the asked order. `groupBy` is a second statement over the same match, one for all
// the fields a page asks. Every value is a bound parameter.
import type pg from 'pg';
import type { OrderKey, PreparedAutocomplete, PreparedSearch, SearchKeyset } from './query.js';
import type { SearchableType, SearchFacetField } from './types.js';

export interface SearchRow {
  type: SearchableType;
  naturalId: string;
  stage: string;
  rank: number;
  docId: string;
  /** The values of the order's keys, for the row's cursor. */
  keyset: SearchKeyset;
  name: string;
  title: string;
  tags: string[];
  fields: string[];
  description: string | null;
}

export interface SearchRows {
  rows: SearchRow[];
  counts: Map<SearchableType, number>;
  /** The words the lexicon added for the query's words (typos): what the search also looked for. */
  similar: string[];
}

export interface SuggestionRow {
  type: SearchableType;
  naturalId: string;
  stage: string;
  name: string;
}

// Rank tiers, best first: the whole name or id; a name or id that starts with the query; every
// word in the name or id (or the query inside it); tags and field names; anything else (the
// description); last, records found only through a word like one of the query's (a typo). Within a
// tier, full-text rank (weights A..D, normalised to [0, 1)).
const TIER = 1_000_000;
/** Most lexicon words one query word is widened to. */
const SIMILAR_PER_WORD = 3;
/** Most groups one `groupBy` answers (as the lists' MAX_GROUPS). */
const MAX_GROUPS = 1000;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

type Bind = (value: unknown) => string;

/**
 * The query's words and their tsqueries: `exact` (every word, each as a word or its start), `tsq`
 * (each word or one of the lexicon words like it), `titleExact`/`titleTsq` (the same on names and
 * ids only, weight A). A word is widened only when it has four characters or more, a letter, and no
 * indexed word starts with it: "paymnets" is widened, "paym" (the start of "payments") is not. A
 * similar word starts with the same letter (a typo seldom changes the first) and has a trigram
 * similarity of 0.3 or more (pg_trgm's `%`), most similar first.
 */
function wordsCte(words: readonly string[], bind: Bind): string {
  return `
    words AS (
      SELECT w.word, w.i,
             CASE WHEN length(w.word) >= 4 AND w.word ~ '[[:alpha:]]'
                       AND NOT EXISTS (SELECT 1 FROM "search_lexicon" l WHERE l."word" >= w.word AND l."word" < w.word || chr(1114111))
                  THEN ARRAY(SELECT l."word" FROM "search_lexicon" l
                              WHERE l."word" % w.word AND left(l."word", 1) = left(w.word, 1)
                              ORDER BY similarity(l."word", w.word) DESC, l."word" LIMIT ${SIMILAR_PER_WORD})
                  ELSE '{}'::text[] END AS alike
        FROM unnest(${bind(words)}::text[]) WITH ORDINALITY AS w(word, i)
    ),
    q AS (
      SELECT to_tsquery('simple', string_agg(quote_literal(word) || ':*', ' & ' ORDER BY i)) AS exact,
             to_tsquery('simple', string_agg('(' || array_to_string(ARRAY[quote_literal(word) || ':*'] || ARRAY(SELECT quote_literal(s) FROM unnest(alike) AS s), ' | ') || ')', ' & ' ORDER BY i)) AS tsq,
             to_tsquery('simple', string_agg(quote_literal(word) || ':*A', ' & ' ORDER BY i)) AS title_exact,
             to_tsquery('simple', string_agg('(' || array_to_string(ARRAY[quote_literal(word) || ':*A'] || ARRAY(SELECT quote_literal(s) || ':A' FROM unnest(alike) AS s), ' | ') || ')', ' & ' ORDER BY i)) AS title_tsq,
             (SELECT coalesce(array_agg(DISTINCT s), '{}') FROM words, unnest(words.alike) AS s) AS alike
        FROM words
    )`;
}

/** The shared start of a search's statements: the words, and every record of `searched` the query and filters match, ranked. */
function matchedCtes(search: PreparedSearch, searched: readonly SearchableType[], bind: Bind): string {
  const phrase = bind(search.phrase);
  const prefix = bind(`${escapeLike(search.phrase)}%`);
  const infix = search.infix ? bind(`%${escapeLike(search.phrase)}%`) : undefined;
  const filters = [`d."type" = ANY(${bind(searched)}::text[])`];
  filters.push(infix ? `(d."document" @@ q.tsq OR d."title" LIKE ${infix})` : `d."document" @@ q.tsq`);
  if (search.statuses) filters.push(`d."status" = ANY(${bind(search.statuses)}::text[])`);
  if (search.tags) filters.push(`d."tags" && ${bind(search.tags)}::text[]`);
  if (search.owners) filters.push(`d."owner" = ANY(${bind(search.owners)}::text[])`);
  if (search.severities) filters.push(`d."severity" = ANY(${bind(search.severities)}::text[])`);
  const bounds = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
  for (const [bound, time] of Object.entries(search.updatedAt)) filters.push(`d."updated_at" ${bounds[bound as keyof typeof bounds]} ${bind(time)}::timestamptz`);
  return `WITH ${wordsCte(search.words, bind)},
    matched AS MATERIALIZED (
      SELECT d."doc_id" COLLATE "C" AS "doc_id", d."type", d."natural_id", d."stage", lower(d."name") COLLATE "C" AS "sort_name", d."updated_at",
             d."status", d."tags", d."owner", d."severity",
             (CASE WHEN lower(d."name") = ${phrase} OR lower(d."natural_id") = ${phrase} THEN 6
                   WHEN lower(d."name") LIKE ${prefix} OR lower(d."natural_id") LIKE ${prefix} THEN 5
                   WHEN d."title_document" @@ q.exact${infix ? ` OR d."title" LIKE ${infix}` : ''} THEN 4
                   WHEN NOT (d."document" @@ q.exact) THEN 1
                   WHEN ts_rank('{0,1,1,0}', d."document", q.exact) > 0 THEN 3
                   ELSE 2 END) * ${TIER}
               + floor(ts_rank(d."document", q.tsq, 32) * ${TIER - 1})::int AS "rank"
        FROM "search_documents" d, q
       WHERE ${filters.join(' AND ')}
    )`;
}

const ORDER_COLUMNS: Record<OrderKey['field'], { column: string; cast: string }> = {
  relevance: { column: 'rank', cast: 'int' },
  name: { column: 'sort_name', cast: 'text' },
  updatedAt: { column: 'updated_at', cast: 'timestamptz' },
};

/** The order's keys and the doc id (ascending) that breaks the last ties, each as `alias.column`. */
function orderKeys(order: readonly OrderKey[]): { column: string; cast: string; direction: 'asc' | 'desc' }[] {
  return [...order.map((key) => ({ ...ORDER_COLUMNS[key.field], direction: key.direction })), { column: 'doc_id', cast: 'text', direction: 'asc' as const }];
}

const orderSql = (alias: string, order: readonly OrderKey[], reverse: boolean) =>
  orderKeys(order)
    .map((key) => `${alias}."${key.column}" ${(key.direction === 'asc') !== reverse ? 'ASC' : 'DESC'}`)
    .join(', ');

/** Rows strictly beyond `keyset` in `order` (`forward`), or strictly before it. */
function keysetSql(alias: string, order: readonly OrderKey[], keyset: SearchKeyset, forward: boolean, bind: Bind): string {
  const keys = orderKeys(order);
  const values = [...keyset.values, keyset.docId].map((value, index) => `${bind(value)}::${keys[index]!.cast}`);
  const alternatives = keys.map((key, index) => {
    const equal = keys.slice(0, index).map((previous, at) => `${alias}."${previous.column}" = ${values[at]}`);
    const beyond = (key.direction === 'asc') === forward ? '>' : '<';
    return `(${[...equal, `${alias}."${key.column}" ${beyond} ${values[index]}`].join(' AND ')})`;
  });
  return `(${alternatives.join(' OR ')})`;
}

/** A page row as the statement's JSON gives it (a time as ISO text). */
interface PageRow {
  doc_id: string;
  type: SearchableType;
  natural_id: string;
  stage: string;
  rank: number;
  sort_name: string;
  updated_at: string;
  name: string;
  title: string;
  tags: string[];
  fields: string[];
  description: string | null;
}

const keysetOf = (order: readonly OrderKey[], row: PageRow): SearchKeyset => ({
  values: order.map((key) => (key.field === 'relevance' ? row.rank : key.field === 'name' ? row.sort_name : new Date(row.updated_at))),
  docId: row.doc_id,
});

/** The column (or unnested value) a group counts by. */
const GROUP_KEYS: Record<SearchFacetField, { key: string; from: string }> = {
  type: { key: 'm."type"', from: 'matched m' },
  status: { key: 'm."status"', from: 'matched m' },
  owner: { key: 'm."owner"', from: 'matched m' },
  severity: { key: 'm."severity"', from: 'matched m' },
  // A record with no tag is counted once, under null.
  tag: { key: 't.tag', from: 'matched m LEFT JOIN LATERAL unnest(m."tags") AS t(tag) ON TRUE' },
};

export function createSearchStore(pool: pg.Pool) {
  return {
    /** The page of the asked types beyond the cursor, and the match counted per searched type. */
    async search(search: PreparedSearch, searched: readonly SearchableType[], asked: readonly SearchableType[]): Promise<SearchRows> {
      const values: unknown[] = [];
      const bind: Bind = (value) => `$${values.push(value)}`;
      const ctes = matchedCtes(search, searched, bind);
      const page = [`m."type" = ANY(${bind(asked)}::text[])`];
      if (search.after) page.push(keysetSql('m', search.order, search.after, true, bind));
      if (search.before) page.push(keysetSql('m', search.order, search.before, false, bind));
      const text = `${ctes}
        SELECT (SELECT coalesce(json_object_agg(c."type", c.n), '{}') FROM (SELECT m."type", count(*)::int AS n FROM matched m GROUP BY m."type") c) AS counts,
               (SELECT alike FROM q) AS alike,
               (SELECT coalesce(json_agg(p ORDER BY ${orderSql('p', search.order, search.backward)}), '[]')
                  FROM (SELECT m."doc_id", m."type", m."natural_id", m."stage", m."rank", m."sort_name", m."updated_at",
                               d."name", d."title", d."tags", d."fields", d."description"
                          FROM (SELECT * FROM matched m WHERE ${page.join(' AND ')} ORDER BY ${orderSql('m', search.order, search.backward)} LIMIT ${bind(search.size + 1)}) m
                          JOIN "search_documents" d ON d."doc_id" = m."doc_id") p) AS rows`;
      const result = await pool.query<{ counts: Record<string, number>; alike: string[]; rows: PageRow[] }>(text, values);
      const answer = result.rows[0]!;
      return {
        counts: new Map(Object.entries(answer.counts) as [SearchableType, number][]),
        similar: answer.alike,
        rows: answer.rows.map((row) => ({
          type: row.type,
          naturalId: row.natural_id,
          stage: row.stage,
          rank: row.rank,
          docId: row.doc_id,
          keyset: keysetOf(search.order, row),
          name: row.name,
          title: row.title,
          tags: row.tags,
          fields: row.fields,
          description: row.description,
        })),
      };
    },

    /** The match of the asked types counted by each of `fields` (stored values; null for records without one), most frequent first. */
    async groups(search: PreparedSearch, searched: readonly SearchableType[], asked: readonly SearchableType[], fields: readonly SearchFacetField[]) {
      const values: unknown[] = [];
      const bind: Bind = (value) => `$${values.push(value)}`;
      const ctes = matchedCtes(search, searched, bind);
      const askedSql = `m."type" = ANY(${bind(asked)}::text[])`;
      const parts = fields.map((field, index) => {
        const { key, from } = GROUP_KEYS[field];
        return `(SELECT ${index} AS field, ${key} AS key, count(*)::int AS count FROM ${from} WHERE ${askedSql} GROUP BY 2 ORDER BY 3 DESC, 2 ASC NULLS LAST LIMIT ${MAX_GROUPS})`;
      });
      const result = await pool.query<{ field: number; key: string | null; count: number }>(`${ctes} ${parts.join(' UNION ALL ')}`, values);
      const groups = new Map<SearchFacetField, { key: string | null; count: number }[]>(fields.map((field) => [field, []]));
      // UNION ALL keeps each part's rows together but not necessarily in its order: sort again.
      for (const row of result.rows) groups.get(fields[row.field]!)!.push({ key: row.key, count: row.count });
      for (const list of groups.values()) list.sort((a, b) => b.count - a.count || (a.key ?? '\uffff').localeCompare(b.key ?? '\uffff'));
      return groups;
    },

    /** Type-ahead: records of `types` whose name or id words start with the query's (or are like them), best first. */
    async autocomplete(request: PreparedAutocomplete, types: readonly SearchableType[]): Promise<SuggestionRow[]> {
      const values: unknown[] = [];
      const bind: Bind = (value) => `$${values.push(value)}`;
      const ctes = wordsCte(request.words, bind);
      const phrase = bind(request.phrase);
      const prefix = bind(`${escapeLike(request.phrase)}%`);
      const text = `WITH ${ctes}
        SELECT d."type", d."natural_id", d."stage", d."name"
          FROM "search_documents" d, q
         WHERE d."type" = ANY(${bind(types)}::text[]) AND d."document" @@ q.title_tsq
         ORDER BY (CASE WHEN lower(d."name") = ${phrase} OR lower(d."natural_id") = ${phrase} THEN 3
                        WHEN lower(d."name") LIKE ${prefix} OR lower(d."natural_id") LIKE ${prefix} THEN 2
                        WHEN d."document" @@ q.title_exact THEN 1
                        ELSE 0 END) DESC,
                  length(d."name"), lower(d."name") COLLATE "C", d."doc_id" COLLATE "C"
         LIMIT ${bind(request.first)}`;
      const result = await pool.query<{ type: SearchableType; natural_id: string; stage: string; name: string }>(text, values);
      return result.rows.map((row) => ({ type: row.type, naturalId: row.natural_id, stage: row.stage, name: row.name }));
    },
  };
}

export type SearchStore = ReturnType<typeof createSearchStore>;
