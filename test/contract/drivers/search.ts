// The transports of the search scenarios: POST /graphql, and the same query as a live query
// (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first result is the
// answer. Search has no REST endpoint. Each call carries the caller's bearer token.
import type { TestGateway } from '../../support/gateway.js';
import type { SearchDriver } from '../search.js';
import { graphqlQueryCall, sseQueryCall, wsQueryCall, type QueryCall } from './live-query.js';

const SEARCH_FIELD = `search(query: $q, types: $types, where: $where, orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
    totalCount
    facets { type count excludedBy }
    excludedTypes { type filters }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    tags: groupBy(field: TAG) { key count }
    owners: groupBy(field: OWNER) { key count }
    severities: groupBy(field: SEVERITY) { key count }
    edges {
      cursor rank type
      matchedFields { name value }
      node {
        __typename
        ... on Dataset { name }
        ... on QueryTemplate { name }
        ... on Connector { name }
        ... on AlertRule { name }
        ... on NotificationChannel { name }
      }
    }
  }`;
const SEARCH_VARIABLES = '$q: String!, $types: [SearchType!], $where: SearchWhere, $orderBy: [SearchOrder!], $first: Int, $after: String, $last: Int, $before: String';
const AUTOCOMPLETE_FIELD = 'autocomplete(query: $q, types: $types, first: $first) { query suggestions { text type node { __typename } } }';
const AUTOCOMPLETE_VARIABLES = '$q: String!, $types: [SearchType!], $first: Int';

/** The search calls over one transport's call (drivers/live-query.ts). */
function searchDriver(call: QueryCall): SearchDriver {
  return {
    search: (variables, bearer) => call('search', SEARCH_VARIABLES, SEARCH_FIELD, variables, bearer),
    autocomplete: (variables, bearer) => call('autocomplete', AUTOCOMPLETE_VARIABLES, AUTOCOMPLETE_FIELD, variables, bearer),
  };
}

export const graphqlSearchDriver = (gw: TestGateway): SearchDriver => searchDriver(graphqlQueryCall(gw));
export const wsSearchDriver = (gw: TestGateway): SearchDriver => searchDriver(wsQueryCall(gw));
export const sseSearchDriver = (gw: TestGateway): SearchDriver => searchDriver(sseQueryCall(gw));
