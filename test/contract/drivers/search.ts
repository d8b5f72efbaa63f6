// The transports of the search scenarios: POST /graphql, and the same query as a live query
// (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first result is the
// answer. Search has no REST endpoint. Each call carries the caller's bearer token.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, type Outcome } from '../harness.js';
import type { SearchDriver } from '../search.js';

type GraphQLResult = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };

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

const operation = (kind: 'query' | 'live', variables: string, field: string) => (kind === 'query' ? `query(${variables}) { ${field} }` : `subscription(${variables}) { live { ${field} } }`);

function outcomeOf<T>(result: GraphQLResult, read: (data: Record<string, any>) => T): Outcome<T> {
  const error = result.errors?.[0];
  if (error) return { ok: false, code: error.extensions?.code ?? 'GRAPHQL_ERROR', message: error.message };
  return { ok: true, value: read(result.data!) };
}

const liveData = (data: Record<string, any>) => data.live as Record<string, any>;

function driverOf(call: (kind: 'search' | 'autocomplete', query: string, variables: Record<string, unknown>, bearer: string) => Promise<Outcome<any>>): SearchDriver {
  return {
    search: (variables, bearer) => call('search', SEARCH_FIELD, variables, bearer),
    autocomplete: (variables, bearer) => call('autocomplete', AUTOCOMPLETE_FIELD, variables, bearer),
  };
}

export function graphqlSearchDriver(gw: TestGateway): SearchDriver {
  return driverOf(async (kind, field, variables, bearer) => {
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${bearer}`)
      .send({ query: operation('query', kind === 'search' ? SEARCH_VARIABLES : AUTOCOMPLETE_VARIABLES, field), variables });
    return graphqlServiceOutcome({ status: response.status, data: response.body.data, errors: response.body.errors }, kind);
  });
}

export function wsSearchDriver(gw: TestGateway): SearchDriver {
  // Lazy (the default): a client connects for a call and closes once no call is open, so none is left for the gateway to close at its stop.
  const clients = new Map<string, Client>();
  return driverOf(async (kind, field, variables, bearer) => {
    let client = clients.get(bearer);
    if (!client) {
      client = createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, retryAttempts: 0 });
      clients.set(bearer, client);
    }
    const events = client.iterate<Record<string, any>>({ query: operation('live', kind === 'search' ? SEARCH_VARIABLES : AUTOCOMPLETE_VARIABLES, field), variables });
    try {
      const next = await events.next();
      return outcomeOf(next.value as GraphQLResult, (data) => liveData(data)[kind]);
    } catch (errors) {
      return outcomeOf({ errors: errors as GraphQLResult['errors'] }, (data) => data);
    } finally {
      await events.return?.();
    }
  });
}

export function sseSearchDriver(gw: TestGateway): SearchDriver {
  return driverOf(async (kind, field, variables, bearer) => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: operation('live', kind === 'search' ? SEARCH_VARIABLES : AUTOCOMPLETE_VARIABLES, field), variables }),
      signal: controller.signal,
    });
    if (response.status !== 200) return outcomeOf((await response.json()) as GraphQLResult, (data) => data);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for (;;) {
        const end = buffered.indexOf('\n\n');
        if (end >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (/^event: next$/m.test(event) && data) return outcomeOf(JSON.parse(data) as GraphQLResult, (answer) => liveData(answer)[kind]);
          if (/^event: complete$/m.test(event)) return { ok: false, code: 'COMPLETED', message: 'the stream completed' };
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) return { ok: false, code: 'CLOSED', message: 'the stream ended' };
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    } finally {
      controller.abort();
      await reader.cancel().catch(() => undefined);
    }
  });
}
