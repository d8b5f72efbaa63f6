// A GraphQL-only query as each of its transports carries it: POST /graphql, and the same query as a
// live query (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first result is
// the answer. Each call carries the caller's bearer token; the outcome is the named root field's value.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, type Outcome } from '../harness.js';

type GraphQLResult = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };

/** One call: `variables` declares the operation's variables (`$where: DatasetWhere`), `selection` is the root field with its selection. */
export type QueryCall = (root: string, declared: string, selection: string, variables: Record<string, unknown>, bearer: string) => Promise<Outcome<any>>;

const live = (declared: string, selection: string) => `subscription(${declared}) { live { ${selection} } }`;

function outcomeOf<T>(result: GraphQLResult, read: (data: Record<string, any>) => T): Outcome<T> {
  const error = result.errors?.[0];
  if (error) return { ok: false, code: error.extensions?.code ?? 'GRAPHQL_ERROR', message: error.message };
  return { ok: true, value: read(result.data!) };
}

export function graphqlQueryCall(gw: TestGateway): QueryCall {
  return async (root, declared, selection, variables, bearer) => {
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${bearer}`)
      .send({ query: `query(${declared}) { ${selection} }`, variables });
    // A document GraphQL refuses (an operator its input type does not offer) is answered 400, with its code.
    if (response.status === 400) return outcomeOf(response.body as GraphQLResult, (data) => data);
    return graphqlServiceOutcome({ status: response.status, data: response.body.data, errors: response.body.errors }, root);
  };
}

export function wsQueryCall(gw: TestGateway): QueryCall {
  // Lazy (the default): a client connects for a call and closes once no call is open.
  const clients = new Map<string, Client>();
  return async (root, declared, selection, variables, bearer) => {
    let client = clients.get(bearer);
    if (!client) {
      client = createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, retryAttempts: 0 });
      clients.set(bearer, client);
    }
    const events = client.iterate<Record<string, any>>({ query: live(declared, selection), variables });
    try {
      const next = await events.next();
      return outcomeOf(next.value as GraphQLResult, (data) => (data.live as Record<string, any>)[root]);
    } catch (errors) {
      return outcomeOf({ errors: errors as GraphQLResult['errors'] }, (data) => data);
    } finally {
      await events.return?.();
    }
  };
}

export function sseQueryCall(gw: TestGateway): QueryCall {
  return async (root, declared, selection, variables, bearer) => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: live(declared, selection), variables }),
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
          if (/^event: next$/m.test(event) && data) return outcomeOf(JSON.parse(data) as GraphQLResult, (answer) => (answer.live as Record<string, any>)[root]);
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
