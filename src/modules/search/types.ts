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

export interface SearchWhere {
  status?: { eq?: SearchStatus | null; in?: readonly SearchStatus[] | null } | null;
  tags?: { eq?: string | null; in?: readonly string[] | null } | null;
  updatedAt?: { gt?: Date | null; gte?: Date | null; lt?: Date | null; lte?: Date | null } | null;
}

export interface SearchRequest {
  query: string;
  /** Only these types; all the caller may read when absent. */
  types?: readonly SearchableType[] | null;
  where?: SearchWhere | null;
  first?: number | null;
  after?: string | null;
}

/** One record found: its type and natural key, its rank, and the cursor after it. */
export interface SearchHit {
  type: SearchableType;
  naturalId: string;
  /** A dataset's stage (live or draft); '' for the other types. */
  stage: string;
  rank: number;
  cursor: string;
}

export interface SearchFacet {
  type: SearchableType;
  count: number;
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
}
