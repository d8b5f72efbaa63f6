// The transports of the search scenarios: POST /graphql, and the same query as a live query
// (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first result is the
// answer (graphql-only.ts). Search has no REST endpoint. Each call carries the caller's bearer token.
import type { TestGateway } from '../../support/gateway.js';
import type { SearchDriver } from '../search.js';
import { graphqlCaller, sseLiveCaller, wsLiveCaller, type GraphQLOnlyCaller } from './graphql-only.js';

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

const SEARCH = { variables: SEARCH_VARIABLES, field: SEARCH_FIELD, root: 'search' };
const AUTOCOMPLETE = { variables: AUTOCOMPLETE_VARIABLES, field: AUTOCOMPLETE_FIELD, root: 'autocomplete' };

function driverOf(call: GraphQLOnlyCaller): SearchDriver {
  return {
    search: (variables, bearer) => call(SEARCH, variables, bearer),
    autocomplete: (variables, bearer) => call(AUTOCOMPLETE, variables, bearer),
  };
}

export const graphqlSearchDriver = (gw: TestGateway): SearchDriver => driverOf(graphqlCaller(gw));
export const wsSearchDriver = (gw: TestGateway): SearchDriver => driverOf(wsLiveCaller(gw));
export const sseSearchDriver = (gw: TestGateway): SearchDriver => driverOf(sseLiveCaller(gw));
