// What a search asks, checked and normalised before any SQL: the query split into words the way
// the search table's trigger splits records (src/modules/search's migration, search_words), the
// page size, the filter, and the keyset cursor (rank, doc id) bound to this search's words and
// filters, so a cursor of another search or list is refused instead of read as a position.
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { SearchableType, SearchRequest, SearchStatus, SearchWhere } from './types.js';

const SEARCH_QUERY_MAX_LENGTH = 200;
const SEARCH_WORDS_MAX = 16;
const SEARCH_PAGE_MAX = 100;
const SEARCH_PAGE_DEFAULT = 20;
const STATUS_VALUES_MAX = 5;
const TAG_VALUES_MAX = 50;
const TAG_MAX_LENGTH = 200;
/** Shortest phrase matched anywhere inside names and ids: trigram indexes need three characters. */
const INFIX_MIN_LENGTH = 3;

const CURSOR_PREFIX = 'search1';

export interface SearchKeyset {
  rank: number;
  docId: string;
}

/** A search ready for SQL: every value is bound as a parameter, none is spliced. */
export interface PreparedSearch {
  /** Lower-case words, each matched as a word or the start of one. */
  words: string[];
  /** The query as typed, lower case, spaces collapsed: compared with whole names and ids. */
  phrase: string;
  /** Whether the phrase is also looked for inside names and ids. */
  infix: boolean;
  types: readonly SearchableType[] | null;
  statuses: SearchStatus[] | null;
  tags: string[] | null;
  updatedAt: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
  first: number;
  after: SearchKeyset | null;
  /** Digest of everything above but the page: what a cursor is bound to. */
  fingerprint: string;
}

const invalid = (message: string) => new GatewayError('SEARCH_INVALID_INPUT', message);

// Letters and digits of any script make words; everything else (punctuation, SQL and tsquery
// operators, control characters) only separates them.
const SEPARATORS = /[^\p{L}\p{N}]+/u;

function wordsOf(query: string): string[] {
  return query
    .toLowerCase()
    .split(SEPARATORS)
    .filter((word) => word !== '');
}

function valuesOf<T>(filter: { eq?: T | null; in?: readonly T[] | null } | null | undefined, name: string, max: number): T[] | null {
  if (!filter) return null;
  const values: T[] = [];
  if (filter.eq !== null && filter.eq !== undefined) values.push(filter.eq);
  if (filter.in) {
    if (filter.in.length > max) throw invalid(`where.${name}.in takes at most ${max} values (got ${filter.in.length})`);
    values.push(...filter.in);
  }
  return filter.eq === undefined && filter.in === undefined ? null : [...new Set(values)];
}

function tagsOf(where: SearchWhere | null | undefined): string[] | null {
  const tags = valuesOf(where?.tags, 'tags', TAG_VALUES_MAX);
  if (!tags) return null;
  const long = tags.find((tag) => tag.length > TAG_MAX_LENGTH);
  if (long !== undefined) throw invalid(`where.tags: a tag has at most ${TAG_MAX_LENGTH} characters (got ${long.length})`);
  // PostgreSQL text cannot hold NUL; no stored tag holds a control character either.
  if (tags.some((tag) => /\p{Cc}/u.test(tag))) throw invalid('where.tags: a tag holds no control characters');
  return tags.map((tag) => tag.toLowerCase());
}

function timesOf(where: SearchWhere | null | undefined): PreparedSearch['updatedAt'] {
  const times: PreparedSearch['updatedAt'] = {};
  for (const bound of ['gt', 'gte', 'lt', 'lte'] as const) {
    const value = where?.updatedAt?.[bound];
    if (value) times[bound] = value;
  }
  return times;
}

function cursorOf(fingerprint: string, keyset: SearchKeyset): string {
  return Buffer.from(`${CURSOR_PREFIX}:${fingerprint}:${keyset.rank}:${keyset.docId}`, 'utf8').toString('base64url');
}

function keysetAfter(cursor: string | null | undefined, fingerprint: string): SearchKeyset | null {
  if (cursor === null || cursor === undefined) return null;
  const refuse = (why: string) => new GatewayError('SEARCH_CURSOR_INVALID', `after: ${JSON.stringify(cursor.slice(0, 60))} ${why}`);
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse('is not a cursor of a search result');
  const [prefix, boundTo, rank, ...docId] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (prefix !== CURSOR_PREFIX || !rank || !/^\d{1,10}$/.test(rank) || docId.length < 3) throw refuse('is not a cursor of a search result');
  if (boundTo !== fingerprint) throw refuse('belongs to a search with other words, types or filters');
  return { rank: Number(rank), docId: docId.join(':') };
}

/** The checked search, or SEARCH_INVALID_INPUT / SEARCH_CURSOR_INVALID naming what is wrong. */
export function prepareSearch(request: SearchRequest): PreparedSearch {
  if (request.query.length > SEARCH_QUERY_MAX_LENGTH) throw invalid(`query has at most ${SEARCH_QUERY_MAX_LENGTH} characters (got ${request.query.length})`);
  const phrase = request.query
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim()
    .toLowerCase();
  if (phrase === '') throw invalid('query is empty: give at least one word to search for');
  const words = wordsOf(phrase);
  if (words.length === 0) throw invalid(`query ${JSON.stringify(phrase)} holds no letters or digits to search for`);
  if (words.length > SEARCH_WORDS_MAX) throw invalid(`query has at most ${SEARCH_WORDS_MAX} words (got ${words.length})`);
  const first = request.first ?? SEARCH_PAGE_DEFAULT;
  if (!Number.isInteger(first) || first < 0 || first > SEARCH_PAGE_MAX) throw invalid(`first must be an integer from 0 to ${SEARCH_PAGE_MAX} (got ${first})`);
  const types = request.types ? [...new Set(request.types)].sort() : null;
  const statuses = valuesOf(request.where?.status, 'status', STATUS_VALUES_MAX);
  const tags = tagsOf(request.where);
  const updatedAt = timesOf(request.where);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([phrase, types, statuses?.sort() ?? null, tags?.sort() ?? null, Object.entries(updatedAt).map(([bound, time]) => [bound, time.toISOString()])]))
    .digest('base64url')
    .slice(0, 16);
  return {
    words,
    phrase,
    infix: phrase.length >= INFIX_MIN_LENGTH,
    types,
    statuses,
    tags,
    updatedAt,
    first,
    after: keysetAfter(request.after, fingerprint),
    fingerprint,
  };
}

/** The cursor of a result of `search`. */
export function searchCursor(search: Pick<PreparedSearch, 'fingerprint'>, keyset: SearchKeyset): string {
  return cursorOf(search.fingerprint, keyset);
}
