// Search across the graph: the types it finds, as the graph names them (and the search table's
// `type` column holds them), and what one search answers.
import type { NodeType } from '../../graphql/global-id.js';

/** GraphQL's SearchType values and the graph type each finds. */
export const SEARCH_TYPE_VALUES = {
  DATASET: 'Dataset',
  QUERY_TEMPLATE: 'QueryTemplate',
  CONNECTOR: 'Connector',
  ALERT_RULE: 'AlertRule',
  NOTIFICATION_CHANNEL: 'NotificationChannel',
} as const satisfies Record<string, NodeType>;

export type SearchableType = (typeof SEARCH_TYPE_VALUES)[keyof typeof SEARCH_TYPE_VALUES];

export const SEARCHABLE_TYPES: readonly SearchableType[] = Object.values(SEARCH_TYPE_VALUES);

/** GraphQL's SearchStatus values as the search table's `status` column spells them. */
export const SEARCH_STATUS_VALUES = {
  DRAFT: 'draft',
  READY_TO_PUBLISH: 'ready_to_publish',
  IN_VALIDATION: 'in_validation',
  LIVE: 'live',
  RETIRED: 'retired',
} as const;

export type SearchStatus = (typeof SEARCH_STATUS_VALUES)[keyof typeof SEARCH_STATUS_VALUES];

/** GraphQL's SearchOrderField values: what a search page can be ordered by. */
export const SEARCH_ORDER_FIELD_VALUES = { RELEVANCE: 'relevance', NAME: 'name', UPDATED_AT: 'updatedAt' } as const;
export type SearchOrderField = (typeof SEARCH_ORDER_FIELD_VALUES)[keyof typeof SEARCH_ORDER_FIELD_VALUES];

/** GraphQL's SearchFacetField values: what a search's matches can be counted by (`groupBy`). */
export const SEARCH_FACET_FIELD_VALUES = { TYPE: 'type', STATUS: 'status', TAG: 'tag', OWNER: 'owner', SEVERITY: 'severity' } as const;
export type SearchFacetField = (typeof SEARCH_FACET_FIELD_VALUES)[keyof typeof SEARCH_FACET_FIELD_VALUES];

/** GraphQL's SearchMatchField values: where in a record a word was found. */
export const SEARCH_MATCH_FIELD_VALUES = { NAME: 'name', ID: 'id', TAG: 'tag', FIELD: 'field', DESCRIPTION: 'description' } as const;
export type SearchMatchField = (typeof SEARCH_MATCH_FIELD_VALUES)[keyof typeof SEARCH_MATCH_FIELD_VALUES];

/** GraphQL's SearchFilterField values: the filters of `where` only some types can pass. */
export const SEARCH_FILTER_FIELD_VALUES = { STATUS: 'status', SEVERITY: 'severity' } as const;
export type SearchFilterField = (typeof SEARCH_FILTER_FIELD_VALUES)[keyof typeof SEARCH_FILTER_FIELD_VALUES];

/**
 * The types each such filter applies to: a record of another type has no value there, so it could
 * never pass; the search leaves that type out and says so, never silently.
 */
export const FILTER_TYPES: Readonly<Record<SearchFilterField, readonly SearchableType[]>> = {
  status: ['Dataset', 'Connector', 'AlertRule', 'NotificationChannel'],
  severity: ['AlertRule'],
};

export interface SearchWhere {
  status?: { eq?: SearchStatus | null; in?: readonly SearchStatus[] | null } | null;
  tags?: { eq?: string | null; in?: readonly string[] | null } | null;
  updatedAt?: { gt?: Date | null; gte?: Date | null; lt?: Date | null; lte?: Date | null } | null;
  owner?: { eq?: string | null; in?: readonly string[] | null } | null;
  severity?: { eq?: string | null; in?: readonly string[] | null } | null;
}

export interface SearchOrderInput {
  field: SearchOrderField;
  direction?: 'asc' | 'desc' | null;
}

export interface SearchRequest {
  query: string;
  /** Only these types; all the caller may read when absent. */
  types?: readonly SearchableType[] | null;
  where?: SearchWhere | null;
  orderBy?: readonly SearchOrderInput[] | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface MatchedField {
  name: SearchMatchField;
  value: string;
}

/** One record found: its type and natural key, its rank, where it matched, and its cursor. */
export interface SearchHit {
  type: SearchableType;
  naturalId: string;
  /** A dataset's stage (live or draft); '' for the other types. */
  stage: string;
  rank: number;
  cursor: string;
  matchedFields: MatchedField[];
}

export interface SearchFacet {
  type: SearchableType;
  count: number;
  /** The filters that left this type out (count 0 then). */
  excludedBy: SearchFilterField[];
}

export interface ExcludedType {
  type: SearchableType;
  filters: SearchFilterField[];
}

/** One page of a search, with the counts of the whole match. */
export interface SearchPage {
  hits: SearchHit[];
  /** Per readable type (zero counts included), in SEARCHABLE_TYPES order. */
  facets: SearchFacet[];
  /** Matches of the asked types, over all pages. */
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /** Readable types a filter left out (types omitted). */
  excludedTypes: ExcludedType[];
  /** Counts the asked types' matches by one field (GraphQL enum names as keys); the groupBy of one page share one statement. */
  groupBy: (field: SearchFacetField) => Promise<{ key: string | null; count: number }[]>;
}

export interface AutocompleteRequest {
  query: string;
  types?: readonly SearchableType[] | null;
  first?: number | null;
}

export interface Suggestion {
  text: string;
  type: SearchableType;
  naturalId: string;
  stage: string;
}
