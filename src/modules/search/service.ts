// Search across the graph's records. The caller's readable types come from the resolver (the
// graph's own access rules); this service never finds, nor counts, a type outside them. A filter
// that some types cannot pass (status, severity) leaves them out and says so, in excludedTypes and
// in their facets' excludedBy, whether `types` names them or not. Refusing instead would break
// every client that already sends such a filter over several types (the README's own example did),
// and would make a dashboard list its types just to filter by status.
import DataLoader from 'dataloader';
import { matchedFields } from './highlights.js';
import { prepareAutocomplete, prepareSearch, searchCursor } from './query.js';
import type { SearchStore } from './store.js';
import {
  FILTER_TYPES,
  SEARCH_STATUS_VALUES,
  SEARCH_TYPE_VALUES,
  SEARCHABLE_TYPES,
  type AutocompleteRequest,
  type ExcludedType,
  type SearchableType,
  type SearchFacetField,
  type SearchFilterField,
  type SearchPage,
  type SearchRequest,
  type Suggestion,
} from './types.js';

const nameOf = (values: Readonly<Record<string, string>>) => {
  const byStored = new Map(Object.entries(values).map(([name, stored]) => [stored, name]));
  return (stored: string) => byStored.get(stored) ?? stored;
};

/** A group's stored value as `groupBy` answers it: the GraphQL enum value for the enum fields. */
const GROUP_KEY_NAMES: Record<SearchFacetField, (stored: string) => string> = {
  type: nameOf(SEARCH_TYPE_VALUES),
  status: nameOf(SEARCH_STATUS_VALUES),
  severity: (stored) => stored.toUpperCase(),
  tag: (stored) => stored,
  owner: (stored) => stored,
};

export function createSearchService(store: SearchStore) {
  return {
    /** A page of `request`'s results among the `readable` types, with counts per type and `groupBy` on demand. */
    async search(request: SearchRequest, readable: readonly SearchableType[]): Promise<SearchPage> {
      const search = prepareSearch(request);
      const excludedBy = (type: SearchableType): SearchFilterField[] => search.restricting.filter((filter) => !FILTER_TYPES[filter].includes(type));
      const readableTypes = SEARCHABLE_TYPES.filter((type) => readable.includes(type));
      const excludedTypes: ExcludedType[] = readableTypes.map((type) => ({ type, filters: excludedBy(type) })).filter((excluded) => excluded.filters.length > 0);
      const searched = readableTypes.filter((type) => excludedBy(type).length === 0);
      const asked = search.types ? searched.filter((type) => search.types!.includes(type)) : searched;
      const facetsOf = (counts: Map<SearchableType, number>) => readableTypes.map((type) => ({ type, count: counts.get(type) ?? 0, excludedBy: excludedBy(type) }));
      const beyond = search.backward ? search.before !== null : search.after !== null;
      if (searched.length === 0) {
        return {
          hits: [],
          facets: facetsOf(new Map()),
          totalCount: 0,
          hasNextPage: search.backward && beyond,
          hasPreviousPage: !search.backward && beyond,
          excludedTypes,
          groupBy: async () => [],
        };
      }
      const { rows, counts, similar } = await store.search(search, searched, asked);
      const page = rows.slice(0, search.size);
      if (search.backward) page.reverse();
      const more = rows.length > search.size;
      // Every groupBy of the page asked in one tick shares one statement.
      const groups = new DataLoader<SearchFacetField, { key: string | null; count: number }[]>(async (fields) => {
        const counted = await store.groups(search, searched, asked, fields);
        return fields.map((field) => counted.get(field)!.map((group) => ({ key: group.key === null ? null : GROUP_KEY_NAMES[field](group.key), count: group.count })));
      });
      return {
        hits: page.map((row) => ({
          type: row.type,
          naturalId: row.naturalId,
          stage: row.stage,
          rank: row.rank,
          cursor: searchCursor(search, row.keyset),
          matchedFields: matchedFields({ words: search.words, similar, phrase: search.phrase, infix: search.infix }, row),
        })),
        facets: facetsOf(counts),
        totalCount: asked.reduce((sum, type) => sum + (counts.get(type) ?? 0), 0),
        hasNextPage: search.backward ? beyond : more,
        hasPreviousPage: search.backward ? more : beyond,
        excludedTypes,
        groupBy: (field) => groups.load(field),
      };
    },

    /** Type-ahead among the `readable` types: records whose name or id words start with the query's, best first. */
    async autocomplete(request: AutocompleteRequest, readable: readonly SearchableType[]): Promise<{ query: string; suggestions: Suggestion[] }> {
      const prepared = prepareAutocomplete(request);
      const types = SEARCHABLE_TYPES.filter((type) => readable.includes(type) && (!prepared.types || prepared.types.includes(type)));
      if (types.length === 0) return { query: prepared.phrase, suggestions: [] };
      const rows = await store.autocomplete(prepared, types);
      return { query: prepared.phrase, suggestions: rows.map((row) => ({ text: row.name, type: row.type, naturalId: row.naturalId, stage: row.stage })) };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
