// REST entries for ad-hoc data queries (the original's data-out API and its SQL endpoint for BI tools).
import type {
  RestDatasourceSizesQuery,
  RestDatasourceSizesQueryVariables,
  RestDruidNativeMetricsQuery,
  RestDruidNativeMetricsQueryVariables,
  RestPrometheusQuery,
  RestPrometheusQueryVariables,
  RestDatasetExhaustQuery,
  RestDatasetExhaustQueryVariables,
  RestQueryDatasetQuery,
  RestQueryDatasetQueryVariables,
  RestSqlQueryQuery,
  RestSqlQueryQueryVariables,
} from '../src/generated/rest-operations.js';
import { defineEndpoint, pathParam, type RestInput } from './table.js';
import { enumValueOf, fieldSchema, inputSchema, parametersOf, toInput, type InputShape } from './input-shape.js';
import { besideEnvelope } from './validation.js';

const DATA_OUT_OPERATION = /* GraphQL */ `
  query RestQueryDataset($dataset: String!, $query: JSON!, $aggregationLevel: AggregationLevel) {
    queryDataset(dataset: $dataset, query: $query, aggregationLevel: $aggregationLevel)
  }
`;

/** A query's dataset (the path's) and query; `context` carries the bucket of a native query that names none. */
const DATA_OUT: InputShape = {
  type: DATA_OUT_OPERATION,
  rename: { query: 'query' },
  // Druid's own query context may carry more than the bucket.
  own: { context: { type: 'object', properties: { aggregationLevel: fieldSchema(DATA_OUT_OPERATION, 'aggregationLevel') } } },
};

/** A Druid SQL request: the options Druid takes besides the query are accepted and not needed here. */
const SQL_QUERY: InputShape = {
  type: /* GraphQL */ `
    query RestSqlQuery($query: String!) {
      sqlQuery(query: $query)
    }
  `,
  rename: { query: 'query' },
  own: { resultFormat: { type: 'string', enum: ['object'] }, header: { type: 'boolean' }, context: { type: 'object' } },
};

/** The days of an exhaust request, from its query string (which may carry parameters this call does not read). */
const EXHAUST: InputShape = {
  type: /* GraphQL */ `
    query RestDatasetExhaust($datasetId: ID!, $type: ExhaustType, $from: String, $to: String, $since: String) {
      datasetExhaust(datasetId: $datasetId, type: $type, from: $from, to: $to, since: $since) {
        expiresAt
        files
        days {
          day
          files
        }
      }
    }
  `,
  rename: { type: 'type', from: 'from', to: 'to', since: 'since' },
  also: { additionalProperties: true },
};

const PROMETHEUS_OPERATION = /* GraphQL */ `
  query RestPrometheus($path: String!, $params: JSON) {
    prometheus(path: $path, params: $params)
  }
`;

const NATIVE_OPERATION = /* GraphQL */ `
  query RestDruidNativeMetrics($query: JSON!) {
    druidNativeQuery(query: $query)
  }
`;

/**
 * What the console's dashboards send: a Prometheus read as url (the path) and params, or a native
 * query in body.query (which a Prometheus read leaves out). The original's request options (method,
 * headers, ...) are taken and never forwarded: only the url picks what runs. What each value must be
 * is the service's rule (one message on both transports).
 */
const METRICS_QUERY: InputShape = {
  type: PROMETHEUS_OPERATION,
  rename: { url: 'path', params: 'params' },
  own: { body: { type: 'object', properties: { query: fieldSchema(NATIVE_OPERATION, 'query') } } },
  also: { additionalProperties: true },
};

export const dataAccessEndpoints = [
  defineEndpoint<RestQueryDatasetQuery, RestQueryDatasetQueryVariables>({
    method: 'POST',
    path: '/v2/data/query/:dataset_id',
    apiId: 'api.data.out',
    summary: 'Query a Live dataset (id or alias): SQL text, or a Druid native query over at most 30 days',
    invalidInputCode: 'DATA_OUT_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATA_OUT_SOURCE_NOT_FOUND', 'DATA_OUT_INVALID_DATE_RANGE', 'DATA_OUT_QUERY_FAILED', 'DATA_OUT_QUERY_TIMEOUT'],
    ...parametersOf(DATA_OUT.type, { path: { dataset_id: 'dataset' } }),
    // As the original: the envelope carries `query` (and `context`) instead of `request`.
    bodySchema: besideEnvelope('api.data.out', inputSchema(DATA_OUT)),
    operation: DATA_OUT.type,
    variables: (input) => {
      const level = (input.body.context as { aggregationLevel?: string } | undefined)?.aggregationLevel;
      return { dataset: pathParam(input, 'dataset_id'), query: input.body.query, aggregationLevel: level ? enumValueOf('AggregationLevel', level) : null };
    },
    result: (data) => data.queryDataset,
  }),

  defineEndpoint<RestSqlQueryQuery, RestSqlQueryQueryVariables>({
    method: 'POST',
    path: '/v2/obsrv/data/sql-query',
    apiId: 'api.obsrv.data.sql-query',
    summary: "Read-only SQL over every Live dataset's datasource, answered as rows without an envelope (for BI tools such as Metabase)",
    invalidInputCode: 'SQL_QUERY_EMPTY_REQUEST',
    errorCodes: ['SQL_QUERY_FAILURE', 'DATA_OUT_QUERY_TIMEOUT'],
    bodySchema: inputSchema(SQL_QUERY),
    bareResult: true,
    operation: SQL_QUERY.type,
    variables: (input) => toInput(SQL_QUERY, input.body),
    result: (data) => data.sqlQuery,
  }),

  defineEndpoint<RestDatasetExhaustQuery, RestDatasetExhaustQueryVariables>({
    method: 'GET',
    path: '/v2/data/exhaust/:dataset_id',
    apiId: 'api.data.exhaust',
    summary: "Signed links to a published dataset's events, one gzipped JSON-lines file per day (at most 31 days: from/to or since=LAST_n_DAYS)",
    invalidInputCode: 'DATA_EXHAUST_INVALID_INPUT',
    errorCodes: ['DATASET_NOT_FOUND', 'DATA_EXHAUST_NO_FILES'],
    ...parametersOf(EXHAUST.type, { path: { dataset_id: 'datasetId' } }),
    querySchema: inputSchema(EXHAUST),
    operation: EXHAUST.type,
    variables: (input) => ({ type: null, from: null, to: null, since: null, ...toInput<RestDatasetExhaustQueryVariables>(EXHAUST, input.query), datasetId: pathParam(input, 'dataset_id') }),
    result: (data) => {
      const found = data.datasetExhaust;
      return { expiresAt: found.expiresAt, files: found.files, periodWiseFiles: Object.fromEntries(found.days.map((day) => [day.day, day.files])) };
    },
  }),

  defineEndpoint<RestPrometheusQuery | RestDruidNativeMetricsQuery, RestPrometheusQueryVariables | RestDruidNativeMetricsQueryVariables>({
    method: 'POST',
    path: '/v2/data/metrics',
    apiId: 'api.data.metrics',
    summary:
      "What the console's dashboards read: a query.url under /prom is one of Prometheus's read endpoints (query, query_range, series, labels, label values) with query.params, answered by PROMETHEUS_URL or the embedded metrics store in Prometheus's JSON without an envelope; any other url runs query.body.query as a Druid native query (held by the query engine's statement timeout and row bound, not the 30 days of /v2/data/query: the console asks for a dataset's last synced time since 2000), its rows (as Druid writes them: groupBy rows {version, timestamp, event}) in the envelope's result, as the original answers them",
    invalidInputCode: 'DATA_METRICS_INVALID_INPUT',
    errorCodes: [
      'DATA_METRICS_UNAVAILABLE',
      'DATASET_NOT_FOUND',
      'DATA_OUT_SOURCE_NOT_FOUND',
      'DATA_OUT_INVALID_INPUT',
      'DATA_OUT_INVALID_DATE_RANGE',
      'DATA_OUT_QUERY_FAILED',
      'DATA_OUT_QUERY_TIMEOUT',
    ],
    bodySchema: { type: 'object', properties: { query: inputSchema(METRICS_QUERY) }, required: ['query'] },
    bareResult: (input) => isPrometheusUrl(input),
    operation: { prometheus: PROMETHEUS_OPERATION, native: NATIVE_OPERATION },
    chooseOperation: (input) => (isPrometheusUrl(input) ? 'prometheus' : 'native'),
    variables: (input) => {
      const query = input.body.query as { body?: { query?: unknown } };
      return isPrometheusUrl(input) ? toInput<RestPrometheusQueryVariables>(METRICS_QUERY, query) : { query: query.body?.query ?? null };
    },
    result: (data) => ('prometheus' in data ? data.prometheus : data.druidNativeQuery),
  }),

  defineEndpoint<RestDatasourceSizesQuery, RestDatasourceSizesQueryVariables>({
    method: 'GET',
    path: '/druid/coordinator/v1/datasources',
    apiId: 'api.druid.datasources',
    summary: "Live datasets' datasources with their sizes, as Druid's coordinator lists them with ?simple (the console's dataset list reads properties.segments); answered without an envelope",
    invalidInputCode: 'DATASOURCE_LIST_INPUT_INVALID',
    errorCodes: ['DATA_OUT_QUERY_FAILED', 'DATA_OUT_QUERY_TIMEOUT'],
    // Druid's options of this call; the answer is the same whichever is given.
    querySchema: { type: 'object', properties: { simple: { type: 'string' }, full: { type: 'string' } } },
    bareResult: true,
    operation: /* GraphQL */ `
      query RestDatasourceSizes {
        datasourceSizes {
          name
          rows
          bytes
          minTime
          maxTime
        }
      }
    `,
    variables: () => ({}),
    result: (data) =>
      data.datasourceSizes.map((source) => ({
        name: source.name,
        properties: {
          tiers: { _default_tier: { size: source.bytes, segmentCount: source.rows > 0 ? 1 : 0 } },
          segments: { count: source.rows > 0 ? 1 : 0, size: source.bytes, replicatedSize: source.bytes, rows: source.rows, minTime: source.minTime, maxTime: source.maxTime },
        },
      })),
  }),
];

/** The console's Prometheus reads have urls under /prom (its proxy's prefix); anything else is a native query. */
function isPrometheusUrl(input: RestInput): boolean {
  const url = (input.body.query as { url?: unknown } | undefined)?.url;
  return typeof url === 'string' && url.startsWith('/prom/');
}
