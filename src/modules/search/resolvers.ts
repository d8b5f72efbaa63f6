// GraphQL resolvers for `search` and `autocomplete`: the caller's readable types in, the service's
// page out, each hit loaded as the graph's own record through the request's loaders (one batch per
// type per page); a suggestion's record only when it is selected.
import type { GatewayContext } from '../../context.js';
import type { Resolvers, ResolversParentTypes, ResolversUnionTypes } from '../../generated/graphql.js';
import { mayReadType } from '../../graphql/nodes.js';
import { SEARCHABLE_TYPES, type ExcludedType, type MatchedField, type SearchableType, type SearchFacet, type SearchPage, type Suggestion } from './types.js';

/** A record a search found, as its type's resolvers take it. */
export type SearchRecord = ResolversUnionTypes<ResolversParentTypes>['SearchResult'];

export interface SearchResultEdge {
  cursor: string;
  node: SearchRecord;
  type: SearchableType;
  rank: number;
  matchedFields: MatchedField[];
}

export interface SearchResults {
  edges: SearchResultEdge[];
  facets: SearchFacet[];
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  excludedTypes: ExcludedType[];
  groupBy: SearchPage['groupBy'];
}

/** A suggestion of `autocomplete`, its record read only when selected. */
export type SuggestionRecord = Suggestion;

type RecordLoader = (hit: { type: SearchableType; naturalId: string; stage: string }, context: GatewayContext) => Promise<SearchRecord | null | undefined>;

const RECORD_LOADERS: Record<SearchableType, RecordLoader> = {
  Dataset: async (hit, { loaders }) => (hit.stage === 'live' || hit.stage === 'draft' ? (await loaders.datasetVersions.load(hit.naturalId))[hit.stage] : undefined),
  QueryTemplate: (hit, { loaders }) => loaders.templateById.load(hit.naturalId),
  Connector: (hit, { loaders }) => loaders.connectorByName.load(hit.naturalId),
  AlertRule: (hit, { loaders }) => loaders.alertRuleById.load(hit.naturalId),
  NotificationChannel: (hit, { loaders }) => loaders.channelById.load(hit.naturalId),
};

// Records carry no type of their own (they are the services' records, shared with every other field).
const typeOfRecord = new WeakMap<object, SearchableType>();

const readableTypes = (context: GatewayContext) => SEARCHABLE_TYPES.filter((type) => mayReadType(context, type));

export const searchResolvers: Resolvers = {
  Query: {
    search: async (_, { query, types, where, orderBy, first, after, last, before }, context): Promise<SearchResults> => {
      const page = await context.services.search.search({ query, types, where, orderBy, first, after, last, before }, readableTypes(context));
      const records = await Promise.all(page.hits.map((hit) => RECORD_LOADERS[hit.type](hit, context)));
      const edges: SearchResultEdge[] = [];
      page.hits.forEach((hit, index) => {
        const node = records[index];
        // Deleted after the search read its row and before the record was loaded: left out.
        if (!node) return;
        typeOfRecord.set(node, hit.type);
        edges.push({ cursor: hit.cursor, node, type: hit.type, rank: hit.rank, matchedFields: hit.matchedFields });
      });
      return {
        edges,
        facets: page.facets,
        totalCount: page.totalCount,
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
        excludedTypes: page.excludedTypes,
        groupBy: page.groupBy,
      };
    },
    autocomplete: async (_, { query, types, first }, context) => {
      const { query: read, suggestions } = await context.services.search.autocomplete({ query, types, first }, readableTypes(context));
      return { query: read, suggestions };
    },
  },
  SearchConnection: {
    nodes: (results) => results.edges.map((edge) => edge.node),
    pageInfo: (results) => ({
      hasNextPage: results.hasNextPage,
      hasPreviousPage: results.hasPreviousPage,
      startCursor: results.edges[0]?.cursor ?? null,
      endCursor: results.edges.at(-1)?.cursor ?? null,
    }),
    // A search counts by one field at a time: its group's `keys` is that one value.
    groupBy: async (results, { field }) => (await results.groupBy(field)).map((group) => ({ ...group, keys: [group.key] })),
  },
  AutocompleteSuggestion: {
    node: async (suggestion, _, context) => {
      const record = await RECORD_LOADERS[suggestion.type](suggestion, context);
      if (!record) return null;
      typeOfRecord.set(record, suggestion.type);
      return record;
    },
  },
  SearchResult: {
    __resolveType: (record) => typeOfRecord.get(record) ?? null,
  },
};
