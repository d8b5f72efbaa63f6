// The two transports of the dashboards' metrics: REST answers Prometheus's JSON without an envelope
// and Druid's rows in the envelope's result, as the original does (the console reads
// response.result); failures keep the failure envelope. GraphQL has one field each.
import { expect } from '@jest/globals';
import { envelope, graphql } from '../../support/api.js';
import type { Json } from '../../support/datasets.js';
import type { TestGateway } from '../../support/gateway.js';
import type { DashboardMetricsDriver, PromBody } from '../dashboard-metrics.js';
import { graphqlOutcome, restOutcome, type Outcome } from '../harness.js';

async function ingest(gw: TestGateway, datasetId: string, events: Json[]): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${datasetId}`).send({ ...envelope('api.data.in'), data: events });
  if (response.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(response.body)}`);
}

/** A bare success body, or the failure envelope. */
function bare<T>(response: { status: number; body: unknown }): Outcome<T> {
  if (response.status !== 200) return restOutcome<T>(response as Parameters<typeof restOutcome>[0]);
  expect((response.body as { params?: unknown }).params).toBeUndefined();
  return { ok: true, value: response.body as T };
}

export function restDashboardMetricsDriver(gw: TestGateway): DashboardMetricsDriver {
  return {
    prometheus: async (path, params) => bare<PromBody>(await gw.http.post('/v2/data/metrics').send({ query: { url: `/prom${path}`, method: 'GET', headers: {}, body: {}, params } })),
    native: async (query) => restOutcome<Json[]>(await gw.http.post('/v2/data/metrics').send({ query: { url: '/druid/v2', method: 'POST', body: { query } } })),
    datasources: async () => {
      const outcome = bare<{ name: string; properties: { segments: { replicatedSize: number } } }[]>(await gw.http.get('/druid/coordinator/v1/datasources').query({ simple: '' }));
      return outcome.ok ? { ok: true, value: outcome.value.map((source) => ({ name: source.name, bytes: source.properties.segments.replicatedSize })) } : outcome;
    },
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
  };
}

export function graphqlDashboardMetricsDriver(gw: TestGateway): DashboardMetricsDriver {
  return {
    prometheus: async (path, params) =>
      graphqlOutcome<PromBody>(await graphql(gw, 'query M($path: String!, $params: JSON) { prometheus(path: $path, params: $params) }', { path, params }), 'prometheus'),
    native: async (query) => graphqlOutcome<Json[]>(await graphql(gw, 'query N($query: JSON!) { druidNativeQuery(query: $query) }', { query }), 'druidNativeQuery'),
    datasources: async () => graphqlOutcome<{ name: string; bytes: number }[]>(await graphql(gw, '{ datasourceSizes { name bytes } }'), 'datasourceSizes'),
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
  };
}
