// What a search asks, checked and normalised before any SQL: the query split into words the way
// the search table's trigger splits records (src/modules/search's migration, search_words), the
// page (size and direction), the order, the filter, and the keyset cursors (the values of the
// order's keys and the doc id) bound to this search's words, filters and order, so a cursor of
// another search or list is refused instead of read as a position.
import { createHash } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import { type AutocompleteRequest, type SearchableType, type SearchFilterField, type SearchOrderField, type SearchRequest, type SearchStatus, type SearchWhere } from './types.js';

const SEARCH_QUERY_MAX_LENGTH = 200;
const SEARCH_WORDS_MAX = 16;
const SEARCH_PAGE_MAX = 100;
const SEARCH_PAGE_DEFAULT = 20;
const ORDER_KEYS_MAX = 3;
const STATUS_VALUES_MAX = 5;
const TAG_VALUES_MAX = 50;
const TAG_MAX_LENGTH = 200;
const OWNER_VALUES_MAX = 500;
const AUTOCOMPLETE_MAX = 20;
const AUTOCOMPLETE_DEFAULT = 10;
/** Shortest phrase matched anywhere inside names and ids: trigram indexes need three characters. */
const INFIX_MIN_LENGTH = 3;

const CURSOR_PREFIX = 'search2';

export interface OrderKey {
  field: SearchOrderField;
  direction: 'asc' | 'desc';
}

/** A row's place in the order: its keys' values (rank, lower-case name, change time) and its doc id. */
export interface SearchKeyset {
  values: (number | string | Date)[];
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
  owners: string[] | null;
  severities: string[] | null;
  updatedAt: { gt?: Date; gte?: Date; lt?: Date; lte?: Date };
  /** The filters given that only some types can pass (FILTER_TYPES). */
  restricting: SearchFilterField[];
  order: OrderKey[];
  size: number;
  /** Reading backwards (`last`): the rows come in reverse and are turned around. */
  backward: boolean;
  after: SearchKeyset | null;
  before: SearchKeyset | null;
  /** Digest of the words, types, filters and order: what a cursor is bound to. */
  fingerprint: string;
}

const invalid = (message: string) => new GatewayError('SEARCH_INVALID_INPUT', message);

// Letters and digits of any script make words; everything else (punctuation, SQL and tsquery
// operators, control characters) only separates them.
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/** The words of a text as the search reads them (lower case, split at anything but letters and digits). */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(SEPARATORS)
    .filter((word) => word !== '');
}

function valuesOf<T>(filter: { eq?: T | null; in?: readonly T[] | null } | null | undefined, name: string, max: number): T[] | null {
  if (!filter) return null;
  // The comparison inputs are the lists' (neq, nin, isNull too); search's facets are matched by eq and in only.
  const other = Object.entries(filter).find(([operator, operand]) => operator !== 'eq' && operator !== 'in' && operand !== null && operand !== undefined);
  if (other) throw invalid(`where.${name}.${other[0]}: search filters by eq and in only`);
  const values: T[] = [];
  if (filter.eq !== null && filter.eq !== undefined) values.push(filter.eq);
  if (filter.in) {
    if (filter.in.length > max) throw invalid(`where.${name}.in takes at most ${max} values (got ${filter.in.length})`);
    values.push(...filter.in);
  }
  return (filter.eq === undefined || filter.eq === null) && (filter.in === undefined || filter.in === null) ? null : [...new Set(values)];
}

function textValuesOf(where: SearchWhere | null | undefined, name: 'tags' | 'owner', max: number): string[] | null {
  const values = valuesOf(where?.[name], name, max);
  if (!values) return null;
  const long = values.find((value) => value.length > TAG_MAX_LENGTH);
  if (long !== undefined) throw invalid(`where.${name}: a value has at most ${TAG_MAX_LENGTH} characters (got ${long.length})`);
  // PostgreSQL text cannot hold NUL; no stored tag or owner holds a control character either.
  if (values.some((value) => /\p{Cc}/u.test(value))) throw invalid(`where.${name}: a ${name === 'tags' ? 'tag' : 'value'} holds no control characters`);
  return values;
}

function timesOf(where: SearchWhere | null | undefined): PreparedSearch['updatedAt'] {
  const times: PreparedSearch['updatedAt'] = {};
  for (const bound of ['gt', 'gte', 'lt', 'lte'] as const) {
    const value = where?.updatedAt?.[bound];
    if (value) times[bound] = value;
  }
  return times;
}

/** The query as words and phrase, or SEARCH_INVALID_INPUT naming what is wrong. */
function phraseOf(query: string): { phrase: string; words: string[] } {
  if (query.length > SEARCH_QUERY_MAX_LENGTH) throw invalid(`query has at most ${SEARCH_QUERY_MAX_LENGTH} characters (got ${query.length})`);
  const phrase = query
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim()
    .toLowerCase();
  if (phrase === '') throw invalid('query is empty: give at least one word to search for');
  const words = wordsOf(phrase);
  if (words.length === 0) throw invalid(`query ${JSON.stringify(phrase)} holds no letters or digits to search for`);
  if (words.length > SEARCH_WORDS_MAX) throw invalid(`query has at most ${SEARCH_WORDS_MAX} words (got ${words.length})`);
  return { phrase, words };
}

function orderOf(orderBy: SearchRequest['orderBy']): OrderKey[] {
  if (!orderBy || orderBy.length === 0) return [{ field: 'relevance', direction: 'desc' }];
  if (orderBy.length > ORDER_KEYS_MAX) throw invalid(`orderBy has at most ${ORDER_KEYS_MAX} keys (got ${orderBy.length})`);
  const seen = new Set<string>();
  return orderBy.map((key, index) => {
    if (seen.has(key.field)) throw invalid(`orderBy[${index}]: ${key.field} is already a key of the order`);
    seen.add(key.field);
    return { field: key.field, direction: key.direction ?? (key.field === 'relevance' ? 'desc' : 'asc') };
  });
}

function encodeCursor(fingerprint: string, keyset: SearchKeyset): string {
  const values = keyset.values.map((value) => (value instanceof Date ? value.toISOString() : value));
  return Buffer.from(JSON.stringify([CURSOR_PREFIX, fingerprint, values, keyset.docId]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | null | undefined, argument: 'after' | 'before', fingerprint: string, order: readonly OrderKey[]): SearchKeyset | null {
  if (cursor === null || cursor === undefined) return null;
  const refuse = (why: string) => new GatewayError('SEARCH_CURSOR_INVALID', `${argument}: ${JSON.stringify(cursor.slice(0, 60))} ${why}`);
  const notOurs = () => refuse('is not a cursor of a search result');
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw notOurs();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notOurs();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== CURSOR_PREFIX || typeof parsed[3] !== 'string') throw notOurs();
  if (parsed[1] !== fingerprint) throw refuse('belongs to a search with other words, types, filters or order');
  const values = parsed[2] as unknown;
  if (!Array.isArray(values) || values.length !== order.length) throw notOurs();
  return {
    docId: parsed[3],
    values: order.map((key, index) => {
      const value: unknown = values[index];
      if (key.field === 'relevance') {
        if (!Number.isSafeInteger(value)) throw notOurs();
        return value as number;
      }
      if (typeof value !== 'string') throw notOurs();
      if (key.field === 'updatedAt') {
        const at = new Date(value);
        if (Number.isNaN(at.getTime())) throw notOurs();
        return at;
      }
      return value;
    }),
  };
}

/** The checked search, or SEARCH_INVALID_INPUT / SEARCH_CURSOR_INVALID naming what is wrong. */
export function prepareSearch(request: SearchRequest): PreparedSearch {
  const { phrase, words } = phraseOf(request.query);
  const { first, last } = request;
  const hasFirst = first !== null && first !== undefined;
  const backward = last !== null && last !== undefined;
  if (hasFirst && backward) throw invalid('first and last: give one of them, not both');
  const size = backward ? last : (first ?? SEARCH_PAGE_DEFAULT);
  if (!Number.isInteger(size) || size < 0 || size > SEARCH_PAGE_MAX) throw invalid(`${backward ? 'last' : 'first'} must be an integer from 0 to ${SEARCH_PAGE_MAX} (got ${size})`);
  const types = request.types ? [...new Set(request.types)].sort() : null;
  const statuses = valuesOf(request.where?.status, 'status', STATUS_VALUES_MAX);
  const tags = textValuesOf(request.where, 'tags', TAG_VALUES_MAX)?.map((tag) => tag.toLowerCase()) ?? null;
  const owners = textValuesOf(request.where, 'owner', OWNER_VALUES_MAX);
  const severities = valuesOf(request.where?.severity, 'severity', OWNER_VALUES_MAX);
  const updatedAt = timesOf(request.where);
  const restricting: SearchFilterField[] = [];
  if (statuses) restricting.push('status');
  if (severities) restricting.push('severity');
  const order = orderOf(request.orderBy);
  const fingerprint = createHash('sha256')
    .update(
      JSON.stringify([
        phrase,
        types,
        statuses?.sort() ?? null,
        tags?.sort() ?? null,
        owners?.sort() ?? null,
        severities?.sort() ?? null,
        Object.entries(updatedAt).map(([bound, time]) => [bound, time.toISOString()]),
        order,
      ]),
    )
    .digest('base64url')
    .slice(0, 16);
  return {
    words,
    phrase,
    infix: phrase.length >= INFIX_MIN_LENGTH,
    types,
    statuses,
    tags,
    owners,
    severities,
    updatedAt,
    restricting,
    order,
    size,
    backward,
    after: decodeCursor(request.after, 'after', fingerprint, order),
    before: decodeCursor(request.before, 'before', fingerprint, order),
    fingerprint,
  };
}

/** The cursor of a result of `search`. */
export function searchCursor(search: Pick<PreparedSearch, 'fingerprint'>, keyset: SearchKeyset): string {
  return encodeCursor(search.fingerprint, keyset);
}

export interface PreparedAutocomplete {
  words: string[];
  phrase: string;
  types: readonly SearchableType[] | null;
  first: number;
}

/** The checked type-ahead, or SEARCH_INVALID_INPUT naming what is wrong. */
export function prepareAutocomplete(request: AutocompleteRequest): PreparedAutocomplete {
  const { phrase, words } = phraseOf(request.query);
  const first = request.first ?? AUTOCOMPLETE_DEFAULT;
  if (!Number.isInteger(first) || first < 1 || first > AUTOCOMPLETE_MAX) throw invalid(`first must be an integer from 1 to ${AUTOCOMPLETE_MAX} (got ${first})`);
  return { words, phrase, types: request.types ? [...new Set(request.types)] : null, first };
}
