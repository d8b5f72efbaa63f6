// The two subscription transports of the live scenarios: graphql-ws (its client) and graphql-sse
// (a plain fetch reading the event stream, so a refusal's HTTP answer is read as a user sees it).
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestGateway } from '../../support/gateway.js';
import type { DatasetChangeSeen, LiveDriver, StreamPageSeen, Watch } from '../live-changes.js';
import type { Outcome } from '../harness.js';
import { outcomeOf, sseResults, type GraphQLResult } from './graph-query.js';

const DATASET_CHANGES = 'subscription($id: String) { datasetChanged(datasetId: $id) { datasetId kind previousStatus dataset { status } } }';
const SERIES = 'subscription($q: String!, $range: Int!, $step: Int!) { metricSeries(query: $q, range: $range, step: $step) { points { v } } }';
const COUNTS = 'subscription($id: String!) { ingestionCounts(datasetId: $id, every: 1) { eventsIn } }';
/** Each resumable stream's subscription, and what a change of it is in a few words. */
const STREAMS = {
  datasetChanges: { changes: '{ cursor datasetId kind }', what: (change: Record<string, any>) => `${change.kind} ${change.datasetId}` },
  alertStateChanges: { changes: '{ cursor ruleId kind }', what: (change: Record<string, any>) => `${change.kind} ${change.ruleId}` },
  auditStream: { changes: '{ cursor record { operation outcome targetId } }', what: (change: Record<string, any>) => `${change.record.operation} ${change.record.outcome} ${change.record.targetId}` },
} as const;
type StreamField = keyof typeof STREAMS;
const streamQuery = (field: StreamField) => `subscription($after: String, $first: Int) { ${field}(after: $after, first: $first) { endCursor changes ${STREAMS[field].changes} } }`;
const readPage =
  (field: StreamField) =>
  (data: Record<string, any>): StreamPageSeen => ({
    endCursor: data[field].endCursor as string,
    changes: (data[field].changes as Record<string, any>[]).map((change) => ({ cursor: change.cursor as string, what: STREAMS[field].what(change) })),
  });

const readChange = (data: Record<string, any>): DatasetChangeSeen => {
  const { datasetId, kind, previousStatus, dataset } = data.datasetChanged;
  return { datasetId, kind, previousStatus, status: dataset?.status ?? null };
};
const readSeries = (data: Record<string, any>): number[] => (data.metricSeries as { points: { v: number }[] }[]).flatMap((series) => series.points.map((point) => point.v));
const readCounts = (data: Record<string, any>) => ({ eventsIn: data.ingestionCounts.eventsIn as number });

/** Waits until the gateway has started one more subscription than before, or the subscription was refused. */
async function evaluated(gw: TestGateway, before: number, refused: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !refused() && gw.gateway.subscriptions.stats().started <= before; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
}

export function wsLiveDriver(gw: TestGateway): LiveDriver {
  let client: Client | undefined;
  const watch = async <T>(query: string, variables: Record<string, unknown>, read: (data: Record<string, any>) => T): Promise<Watch<T>> => {
    client ??= createClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
    const before = gw.gateway.subscriptions.stats().started;
    const events = client.iterate<Record<string, any>>({ query, variables });
    let refusal: Outcome<T> | undefined;
    const first = events.next().then(
      (next) => outcomeOf(next.value as GraphQLResult, read),
      (errors: GraphQLResult['errors']) => (refusal = outcomeOf({ errors }, read)),
    );
    await evaluated(gw, before, () => refusal !== undefined);
    let firstTaken = false;
    return {
      next: async () => {
        if (!firstTaken) {
          firstTaken = true;
          return first;
        }
        return outcomeOf((await events.next()).value as GraphQLResult, read);
      },
      close: async () => {
        await events.return?.();
      },
    };
  };
  return {
    watchDataset: (datasetId) => watch(DATASET_CHANGES, { id: datasetId }, readChange),
    watchSeries: (query, range, step) => watch(SERIES, { q: query, range, step }, readSeries),
    watchCounts: (datasetId) => watch(COUNTS, { id: datasetId }, readCounts),
    watchStream: (field, after, first) => watch(streamQuery(field), { after, first }, readPage(field)),
  };
}

export function sseLiveDriver(gw: TestGateway): LiveDriver {
  const watch = async <T>(query: string, variables: Record<string, unknown>, read: (data: Record<string, any>) => T): Promise<Watch<T>> => {
    const before = gw.gateway.subscriptions.stats().started;
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
      signal: controller.signal,
    });
    if (response.status !== 200) {
      const refusal = outcomeOf((await response.json()) as GraphQLResult, read);
      return { next: async () => refusal, close: async () => undefined };
    }
    await evaluated(gw, before, () => false);
    const events = sseResults(response.body!);
    return {
      next: () => events.next(read),
      close: async () => {
        controller.abort();
        await events.cancel();
      },
    };
  };
  return {
    watchDataset: (datasetId) => watch(DATASET_CHANGES, { id: datasetId }, readChange),
    watchSeries: (query, range, step) => watch(SERIES, { q: query, range, step }, readSeries),
    watchCounts: (datasetId) => watch(COUNTS, { id: datasetId }, readCounts),
    watchStream: (field, after, first) => watch(streamQuery(field), { after, first }, readPage(field)),
  };
}
