// Search across the graph's records. The caller's readable types come from the resolver (the
// graph's own access rules); this service never finds, nor counts, a type outside them.
import { prepareSearch, searchCursor } from './query.js';
import type { SearchStore } from './store.js';
import { SEARCHABLE_TYPES, type SearchableType, type SearchPage, type SearchRequest } from './types.js';

export function createSearchService(store: SearchStore) {
  return {
    /** A page of `request`'s results among the `readable` types, best first, with counts per type. */
    async search(request: SearchRequest, readable: readonly SearchableType[]): Promise<SearchPage> {
      const search = prepareSearch(request);
      const searched = SEARCHABLE_TYPES.filter((type) => readable.includes(type));
      const asked = search.types ? searched.filter((type) => search.types!.includes(type)) : searched;
      const empty = { hits: [], facets: [], totalCount: 0, hasNextPage: false, hasPreviousPage: search.after !== null };
      if (searched.length === 0) return empty;
      const { rows, counts } = await store.search(search, searched, asked);
      const page = rows.slice(0, search.first);
      return {
        hits: page.map((row) => ({ type: row.type, naturalId: row.naturalId, stage: row.stage, rank: row.rank, cursor: searchCursor(search, row) })),
        facets: searched.map((type) => ({ type, count: counts.get(type) ?? 0 })),
        totalCount: asked.reduce((sum, type) => sum + (counts.get(type) ?? 0), 0),
        hasNextPage: rows.length > search.first,
        hasPreviousPage: search.after !== null,
      };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
