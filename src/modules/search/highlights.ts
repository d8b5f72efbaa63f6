// Where a record matched (`matchedFields`): the name, id, tags, field paths and description words
// that start with one of the query's words, or equal a word the lexicon added for one (a typo), and
// the query inside a name or id. Computed from the page's rows, so it costs no statement.
import { wordsOf } from './query.js';
import type { MatchedField } from './types.js';

const EXCERPT_BEFORE = 60;
const EXCERPT_LENGTH = 160;
/** Most tags or field paths one record reports (a data schema may have 2,000 paths). */
const VALUES_PER_FIELD = 10;

export interface HighlightQuery {
  words: readonly string[];
  /** Lexicon words the search also looked for. */
  similar: readonly string[];
  /** The query as typed (lower case), matched inside names and ids from three characters. */
  phrase: string;
  infix: boolean;
}

export interface HighlightRow {
  name: string;
  naturalId: string;
  /** lower(name id extra ids), as the search table keeps it. */
  title: string;
  tags: readonly string[];
  fields: readonly string[];
  description: string | null;
}

function matcher(query: HighlightQuery): (word: string) => boolean {
  const similar = new Set(query.similar);
  return (word) => similar.has(word) || query.words.some((queryWord) => word.startsWith(queryWord));
}

/** The passage of `text` around its first word `matches` accepts, cut to EXCERPT_LENGTH characters. */
function excerpt(text: string, matches: (word: string) => boolean): string | undefined {
  for (const found of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!matches(found[0].toLowerCase())) continue;
    const start = Math.max(0, found.index - EXCERPT_BEFORE);
    const end = Math.min(text.length, start + EXCERPT_LENGTH);
    return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
  }
  return undefined;
}

/** The fields of `row` where `query` matched, in the order of the rank's tiers (name, id, tags, field paths, description). */
export function matchedFields(query: HighlightQuery, row: HighlightRow): MatchedField[] {
  const matches = matcher(query);
  const hit = (text: string) => wordsOf(text).some(matches) || (query.infix && text.toLowerCase().includes(query.phrase));
  const found: MatchedField[] = [];
  if (hit(row.name)) found.push({ name: 'name', value: row.name });
  // The title is lower(name) + ' ' + lower(natural id) + ' ' + lower(extra ids: a dataset's alias, a connector's id).
  const extraIds = row.title.slice(row.name.length + 1 + row.naturalId.length + 1);
  if (hit(row.naturalId)) found.push({ name: 'id', value: row.naturalId });
  else if (extraIds !== '' && hit(extraIds)) found.push({ name: 'id', value: extraIds });
  for (const tag of row.tags.filter((tag) => wordsOf(tag).some(matches)).slice(0, VALUES_PER_FIELD)) found.push({ name: 'tag', value: tag });
  for (const path of row.fields.filter((path) => wordsOf(path).some(matches)).slice(0, VALUES_PER_FIELD)) found.push({ name: 'field', value: path });
  const passage = row.description ? excerpt(row.description, matches) : undefined;
  if (passage) found.push({ name: 'description', value: passage });
  return found;
}
