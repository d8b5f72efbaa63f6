// The transports of a GraphQL-only query (one with no REST endpoint): POST /graphql, and the same
// query as a live query (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first
// result is the answer. Each call carries the caller's bearer token. A domain's driver names the
// root field, its selection and its variables; these turn them into an `Outcome`.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlTypedOutcome, type Outcome } from '../harness.js';

type GraphQLResult = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };

/** One query: `variables` declares the operation's variables (`$q: String!`), `field` is the root field with its selection, `root` its name. */
export interface GraphQLOnlyCall {
  variables: string;
  field: string;
  root: string;
}

/** Runs a call over one transport with the given variables and bearer token. */
export type GraphQLOnlyCaller = (call: GraphQLOnlyCall, variables: Record<string, unknown>, bearer: string) => Promise<Outcome<any>>;

const operation = (kind: 'query' | 'live', call: GraphQLOnlyCall) => (kind === 'query' ? `query(${call.variables}) { ${call.field} }` : `subscription(${call.variables}) { live { ${call.field} } }`);

function outcomeOf<T>(result: GraphQLResult, read: (data: Record<string, any>) => T): Outcome<T> {
  const error = result.errors?.[0];
  if (error) return { ok: false, code: error.extensions?.code ?? 'GRAPHQL_ERROR', message: error.message };
  return { ok: true, value: read(result.data!) };
}

const liveData = (data: Record<string, any>) => data.live as Record<string, any>;

export function graphqlCaller(gw: TestGateway): GraphQLOnlyCaller {
  return async (call, variables, bearer) => {
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${bearer}`)
      .send({ query: operation('query', call), variables });
    // A variable its type refuses (an enum value the schema has not) is GraphQL's own 400, naming it.
    return graphqlTypedOutcome({ status: response.status, data: response.body.data, errors: response.body.errors }, call.root);
  };
}

export function wsLiveCaller(gw: TestGateway): GraphQLOnlyCaller {
  // Lazy (the default): a client connects for a call and closes once no call is open, so none is left for the gateway to close at its stop.
  const clients = new Map<string, Client>();
  return async (call, variables, bearer) => {
    let client = clients.get(bearer);
    if (!client) {
      client = createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, retryAttempts: 0 });
      clients.set(bearer, client);
    }
    const events = client.iterate<Record<string, any>>({ query: operation('live', call), variables });
    try {
      const next = await events.next();
      return outcomeOf(next.value as GraphQLResult, (data) => liveData(data)[call.root]);
    } catch (errors) {
      return outcomeOf({ errors: errors as GraphQLResult['errors'] }, (data) => data);
    } finally {
      await events.return?.();
    }
  };
}

export function sseLiveCaller(gw: TestGateway): GraphQLOnlyCaller {
  return async (call, variables, bearer) => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: operation('live', call), variables }),
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
          if (/^event: next$/m.test(event) && data) return outcomeOf(JSON.parse(data) as GraphQLResult, (answer) => liveData(answer)[call.root]);
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
  };
}
