// The two transports of ad-hoc queries. REST's SQL endpoint answers rows without an envelope.
import { envelope, graphql } from '../../support/api.js';
import type { Json } from '../../support/datasets.js';
import type { TestGateway } from '../../support/gateway.js';
import type { DataAccessDriver } from '../data-access.js';
import { expect } from '@jest/globals';
import { graphqlOutcome, restOutcome, type Outcome } from '../harness.js';

async function ingest(gw: TestGateway, datasetId: string, events: Json[]): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${datasetId}`).send({ ...envelope('api.data.in'), data: events });
  if (response.status !== 200) throw new Error(`ingest failed: ${JSON.stringify(response.body)}`);
}

async function setAlias(gw: TestGateway, datasetId: string, alias: string): Promise<void> {
  const response = await gw.http.post('/v2/datasets/alias').send(envelope('api.datasets.alias', { dataset_id: datasetId, alias_name: alias }));
  if (response.status !== 200) throw new Error(`alias failed: ${JSON.stringify(response.body)}`);
}

export function restDataAccessDriver(gw: TestGateway): DataAccessDriver {
  return {
    query: async (dataset, query, aggregationLevel) =>
      restOutcome<Json[]>(
        await gw.http.post(`/v2/data/query/${encodeURIComponent(dataset)}`).send({ ...envelope('api.data.out'), query, ...(aggregationLevel ? { context: { aggregationLevel } } : {}) }),
      ),
    sql: async (query) => {
      const response = await gw.http.post('/v2/obsrv/data/sql-query').send({ query });
      // Success is the bare rows (as Druid answers); a failure is the usual failure envelope.
      if (response.status === 200) {
        expect(Array.isArray(response.body)).toBe(true);
        return { ok: true, value: response.body as Json[] } satisfies Outcome<Json[]>;
      }
      return restOutcome<Json[]>(response);
    },
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
    setAlias: (datasetId, alias) => setAlias(gw, datasetId, alias),
  };
}

export function graphqlDataAccessDriver(gw: TestGateway): DataAccessDriver {
  return {
    query: async (dataset, query, aggregationLevel) =>
      graphqlOutcome<Json[]>(
        await graphql(gw, 'query($d: String!, $q: JSON!, $a: AggregationLevel) { queryDataset(dataset: $d, query: $q, aggregationLevel: $a) }', {
          d: dataset,
          q: query,
          a: aggregationLevel ? aggregationLevel.toUpperCase() : null,
        }),
        'queryDataset',
      ),
    sql: async (query) => graphqlOutcome<Json[]>(await graphql(gw, 'query($q: String!) { sqlQuery(query: $q) }', { q: query }), 'sqlQuery'),
    ingest: (datasetId, events) => ingest(gw, datasetId, events),
    setAlias: (datasetId, alias) => setAlias(gw, datasetId, alias),
  };
}
