// The transports of a GraphQL-only query (no REST endpoint): POST /graphql, and the same query as a
// live query (`subscription { live { ... } }`) over graphql-ws and graphql-sse, whose first result is
// the answer. A call names its root field, its variables' declarations and its selection; each call
// carries the caller's bearer token.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../../support/gateway.js';
import { graphqlServiceOutcome, type Outcome } from '../harness.js';

export type GraphQLResult = { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] };

/** One query on one transport: `field` is the root field with its arguments and selection; the answer is that field's value. */
export type GraphQueryCall = (rootField: string, variables: string, field: string, values: Record<string, unknown>, bearer: string) => Promise<Outcome<any>>;

const operation = (kind: 'query' | 'live', variables: string, field: string) => (kind === 'query' ? `query(${variables}) { ${field} }` : `subscription(${variables}) { live { ${field} } }`);

/** A GraphQL result as an outcome: its first error's code, or `read` of its data. */
export function outcomeOf<T>(result: GraphQLResult, read: (data: Record<string, any>) => T): Outcome<T> {
  const error = result.errors?.[0];
  if (error) return { ok: false, code: error.extensions?.code ?? 'GRAPHQL_ERROR', message: error.message };
  return { ok: true, value: read(result.data!) };
}

const liveData = (data: Record<string, any>) => data.live as Record<string, any>;

export function graphqlQueryCall(gw: TestGateway): GraphQueryCall {
  return async (rootField, variables, field, values, bearer) => {
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${bearer}`)
      .send({ query: operation('query', variables, field), variables: values });
    // A document GraphQL refuses (an operator its input type does not offer, an enum value the schema
    // has not) is GraphQL's own 400, with its code; any other refusal is a service's, answered 200.
    if (response.status === 400) return outcomeOf(response.body as GraphQLResult, (data) => data);
    return graphqlServiceOutcome({ status: response.status, data: response.body.data, errors: response.body.errors }, rootField);
  };
}

export function wsQueryCall(gw: TestGateway): GraphQueryCall {
  // Lazy (the default): a client connects for a call and closes once no call is open, so none is left for the gateway to close at its stop.
  const clients = new Map<string, Client>();
  return async (rootField, variables, field, values, bearer) => {
    let client = clients.get(bearer);
    if (!client) {
      client = createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, retryAttempts: 0 });
      clients.set(bearer, client);
    }
    const events = client.iterate<Record<string, any>>({ query: operation('live', variables, field), variables: values });
    try {
      const next = await events.next();
      return outcomeOf(next.value as GraphQLResult, (data) => liveData(data)[rootField]);
    } catch (errors) {
      return outcomeOf({ errors: errors as GraphQLResult['errors'] }, (data) => data);
    } finally {
      await events.return?.();
    }
  };
}

export function sseQueryCall(gw: TestGateway): GraphQueryCall {
  return async (rootField, variables, field, values, bearer) => {
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: operation('live', variables, field), variables: values }),
      signal: controller.signal,
    });
    if (response.status !== 200) return outcomeOf((await response.json()) as GraphQLResult, (data) => data);
    const events = sseResults(response.body!);
    try {
      return await events.next((answer) => liveData(answer)[rootField]);
    } finally {
      controller.abort();
      await events.cancel();
    }
  };
}

/**
 * The results a graphql-sse stream sends, one `next` event at a time, each as an outcome (`read` of
 * its data); COMPLETED or CLOSED when the stream ends first.
 */
export function sseResults(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  return {
    async next<T>(read: (data: Record<string, any>) => T): Promise<Outcome<T>> {
      for (;;) {
        const end = buffered.indexOf('\n\n');
        if (end >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (/^event: next$/m.test(event) && data) return outcomeOf(JSON.parse(data) as GraphQLResult, read);
          if (/^event: complete$/m.test(event)) return { ok: false, code: 'COMPLETED', message: 'the stream completed' };
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) return { ok: false, code: 'CLOSED', message: 'the stream ended' };
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}
