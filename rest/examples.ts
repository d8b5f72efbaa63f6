// A working example request for every REST operation, shown in the API reference (/docs) as the
// request Swagger UI's "Try it out" sends. Tried in this order on a fresh gateway they all succeed
// (test/http/docs-examples.test.ts replays them): the dataset is imported, published, fed and
// queried before it is copied; a template is made before it is read, run and deleted. Alert
// records get their ids from the gateway, so get/update/delete examples carry a placeholder id:
// use the id the create answered (the test does); likewise the dataset update's version_key.
import type { RestEndpoint } from './table.js';

export interface RestExample {
  /** A name for the example when an operation has several (e.g. one per lifecycle step). */
  name?: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  /** The JSON body, envelope included where the operation takes one. */
  body?: unknown;
  /** Headers sent with it (`Prefer: respond-async` runs the work as a job). */
  headers?: Record<string, string>;
  /** What it answers when not 200: 202 for a job started, or the refusal the example shows. */
  status?: number;
}

const ALERT_RULE = {
  name: 'High API failure rate',
  description: 'More than 5 failed API calls a minute',
  category: 'api',
  severity: 'critical',
  frequency: '1m',
  interval: '5m',
  labels: { team: 'data-platform' },
  metadata: { queryBuilderContext: { metric: 'sum(rate(node_failed_api_calls[5m])) * 60', operator: 'gt', threshold: [5] } },
  notification: { channels: [] },
  context: { alertType: 'CUSTOM' },
};

/** Stands for the id a create answered, in the examples of operations on alert records. */
export const CREATED_ID = '00000000-0000-4000-8000-000000000000';

/** Stands for the version_key the dataset create answered, in the update example. */
export const CREATED_VERSION_KEY = '1000000000000';

const TS = '2026-01-01T00:00:00Z';

function envelope(apiId: string, request: unknown): Record<string, unknown> {
  return { id: apiId, ver: 'v2', ts: TS, params: { msgid: 'docs-example' }, request };
}

const TELEMETRY = {
  dataset_id: 'telemetry',
  name: 'Device telemetry',
  type: 'event',
  data_schema: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      ts: { type: 'string', format: 'date-time' },
      device: { type: 'string' },
      temperature: { type: 'number' },
    },
  },
  dataset_config: {
    keys_config: { timestamp_key: 'ts' },
    indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
  },
};

const EVENTS = [
  { id: 'e1', ts: '2026-01-01T10:00:00Z', device: 'sensor-a', temperature: 21.5 },
  { id: 'e2', ts: '2026-01-01T11:00:00Z', device: 'sensor-b', temperature: 19 },
];

const TEMPLATE_QUERY = 'SELECT device, COUNT(*) AS readings FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} GROUP BY device LIMIT {{LIMIT}}';

const EMAIL_CHANNEL = { manager: 'embedded', name: 'Ops mail', type: 'email', config: { recipientAddresses: 'ops@example.com', subject: 'Gateway alert' } };

/** A silence must end in the future, within a year of its start: its example starts at `now`, for a day. */
function silenceWindow(now: Date): { startDate: string; endDate: string; later: string } {
  const start = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const at = (hours: number) => new Date(start.getTime() + hours * 3_600_000).toISOString().replace('.000Z', 'Z');
  return { startDate: at(0), endDate: at(24), later: at(48) };
}

/** Examples by API id, in the order they are to be tried; dates that must lie ahead are counted from `now`. */
export function restExamples(now: Date = new Date()): Readonly<Record<string, readonly RestExample[]>> {
  const silence = silenceWindow(now);
  return {
    'api.datasets.dataschema': [{ body: envelope('api.datasets.dataschema', { data: EVENTS, config: { dataset: 'telemetry' } }) }],
    'api.datasets.create': [
      {
        body: envelope('api.datasets.create', {
          dataset_id: 'telemetry-wizard',
          name: 'Device telemetry (wizard)',
          type: 'event',
          data_schema: TELEMETRY.data_schema,
          dataset_config: { keys_config: {}, indexing_config: {}, file_upload_path: [] },
        }),
      },
    ],
    'api.datasets.update': [
      {
        body: envelope('api.datasets.update', {
          dataset_id: 'telemetry-wizard',
          version_key: CREATED_VERSION_KEY,
          dataset_config: { keys_config: { timestamp_key: 'ts' } },
          tags: [{ value: 'sensors', action: 'upsert' }],
        }),
      },
    ],
    'api.datasets.import': [{ query: { overwrite: 'true' }, body: envelope('api.datasets.import', TELEMETRY) }],
    'api.datasets.list': [{ body: envelope('api.datasets.list', { filters: { status: ['Draft', 'Live'] }, limit: 10 }) }],
    'api.datasets.status-transition': [
      { name: 'ReadyToPublish', body: envelope('api.datasets.status-transition', { dataset_id: 'telemetry', status: 'ReadyToPublish' }) },
      { name: 'Live', body: envelope('api.datasets.status-transition', { dataset_id: 'telemetry', status: 'Live' }) },
    ],
    'api.datasets.export': [{ path: { dataset_id: 'telemetry' } }, { name: 'as a job', path: { dataset_id: 'telemetry' }, headers: { prefer: 'respond-async' }, status: 202 }],
    // The job the export above started (its id is the 202's result.id).
    'api.jobs.read': [{ path: { job_id: CREATED_ID } }],
    'api.jobs.cancel': [{ name: 'a job that has finished is refused', path: { job_id: CREATED_ID }, status: 409 }],
    'api.datasets.read': [{ path: { dataset_id: 'telemetry' }, query: { fields: 'dataset_id,name,status,version' } }],
    'api.datasets.alias': [{ body: envelope('api.datasets.alias', { dataset_id: 'telemetry', alias_name: 'device-readings' }) }],
    'api.datasets.reset': [{ path: { dataset_id: 'telemetry' }, body: envelope('api.datasets.reset', { category: 'query' }) }],
    'api.datasources.list': [{ body: envelope('api.datasources.list', { filters: { status: 'Live' } }) }],
    'api.data.out': [
      {
        name: 'SQL',
        path: { dataset_id: 'telemetry' },
        body: { id: 'api.data.out', ver: 'v2', ts: TS, params: { msgid: 'docs-example' }, query: 'SELECT device, COUNT(*) AS readings FROM {{DATASET}} GROUP BY device' },
      },
    ],
    'api.obsrv.data.sql-query': [{ body: { query: 'SELECT COUNT(*) AS events FROM "telemetry"' } }],
    'api.schema.validator': [{ body: envelope('api.schema.validator', { datasetId: 'telemetry', isLive: true, event: EVENTS[0] }) }],
    'api.data.in': [{ path: { dataset_id: 'telemetry' }, body: { id: 'api.data.in', ver: 'v2', ts: TS, params: { msgid: 'docs-example' }, data: EVENTS } }],
    'api.data.metrics': [
      { name: 'Prometheus query', body: { query: { url: '/prom/api/v1/query', params: { query: 'sum by (dataset) (gateway_ingestion_events_total{stage="received"})' } } } },
      {
        name: 'Druid native query',
        body: {
          query: {
            url: '/druid/v2',
            body: { query: { queryType: 'timeseries', dataSource: 'telemetry', granularity: 'day', intervals: ['2026-01-01/2026-01-08'], aggregations: [{ type: 'count', name: 'events' }] } },
          },
        },
      },
    ],
    'api.druid.datasources': [{ query: { simple: '' } }],
    'api.data.exhaust': [{ path: { dataset_id: 'telemetry' }, query: { from: '2026-01-01', to: '2026-01-02' } }],
    'api.dataset.health': [{ body: envelope('api.dataset.health', { dataset_id: 'telemetry', categories: ['infra', 'processing', 'query'] }) }],
    'api.dataset.metrics': [{ body: envelope('api.dataset.metrics', { dataset_id: 'telemetry', category: ['data_volume'] }) }],
    'api.data.analyze.pii': [{ body: envelope('api.data.analyze.pii', { dataset_id: 'telemetry', data: [{ id: 'u1', email: 'ada@example.com' }] }) }],
    'api.system.data.analyze.pii': [{ body: { id: 'c0ffee00-0000-4000-8000-000000000001', dataset_id: 'telemetry', data: [{ id: 'u1', email: 'ada@example.com' }] } }],
    'api.datasets.copy': [{ body: envelope('api.datasets.copy', { source: { datasetId: 'telemetry', isLive: true }, destination: { datasetId: 'telemetry-copy' } }) }],
    'api.query.template.create': [{ body: envelope('api.query.template.create', { template_name: 'Readings by device', query_type: 'sql', query: TEMPLATE_QUERY }) }],
    'api.query.template.read': [{ path: { template_id: 'readings_by_device' } }],
    'api.query.template.list': [{ body: envelope('api.query.template.list', { limit: 10 }) }],
    'api.query.template.update': [
      {
        path: { template_id: 'readings_by_device' },
        body: envelope('api.query.template.update', { query_type: 'sql', query: TEMPLATE_QUERY.replace('GROUP BY device', 'GROUP BY device ORDER BY device') }),
      },
    ],
    'api.query.template.query': [
      {
        path: { template_id: 'readings_by_device' },
        body: envelope('api.query.template.query', {
          dataset: 'telemetry',
          startdate: '2026-01-01',
          enddate: '2026-01-02',
          aggregationLevel: 'day',
          limit: 100,
        }),
      },
    ],
    'api.query.template.delete': [{ path: { template_id: 'readings_by_device' } }],
    'api.connectors.list': [{ body: envelope('api.connectors.list', { filters: { status: ['Live'] } }) }],
    'api.connectors.read': [{ path: { connector_id: 'postgres-connector-1.0.0' } }],
    // Multipart: Swagger UI asks for the file (a .tar.gz or .zip connector distribution).
    'api.connector.register': [],
    'api.files.generate-url': [{ body: envelope('api.files.generate-url', { files: ['telemetry-2026-01-01.json'], access: 'write', type: 'dataset' }) }],
    'api.alert.silence.create': [{ body: { startDate: silence.startDate, endDate: silence.endDate, alertId: '6f1c9a52-2f47-4a53-9d1e-5b2f3c4d5e6f', manager: 'embedded' } }],
    'api.alert.silence.list': [{ query: { manager: 'embedded', limit: '10' } }],
    'api.alert.silence.get': [{ path: { id: CREATED_ID } }],
    'api.alert.silence.update': [{ path: { id: CREATED_ID }, body: { endDate: silence.later } }],
    'api.alert.silence.delete': [{ path: { id: CREATED_ID } }],
    'api.metric.add': [{ body: { alias: 'Failed events', component: 'Processing', metric: 'sum(rate(failed_events_total[5m]))' } }],
    'api.metric.list': [{ body: { request: { limit: 10 } } }],
    'api.metric.get': [{ path: { id: CREATED_ID } }],
    'api.metric.update': [{ path: { id: CREATED_ID }, body: { alias: 'Failed events (5m)' } }],
    'api.metric.remove': [{ path: { id: CREATED_ID } }],
    'api.alert.notification.create': [{ body: EMAIL_CHANNEL }],
    'api.alert.notification.publish': [{ path: { id: CREATED_ID } }],
    'api.alert.notification.list': [
      { name: 'Live channels', body: { request: { filters: { status: 'live' } } } },
      { name: 'Newest first', body: { request: { options: { order: [['createdAt', 'DESC']] }, limit: 10 } } },
    ],
    'api.alert.notification.get': [{ path: { id: CREATED_ID } }],
    'api.alert.notification.update': [{ path: { id: CREATED_ID }, body: { name: 'Ops mail (on call)' } }],
    'api.alert.notification.test': [{ body: { message: 'Test from the API reference', payload: EMAIL_CHANNEL } }],
    'api.alert.notification.delete': [{ path: { id: CREATED_ID } }],
    'api.alert.create': [{ body: ALERT_RULE }],
    'api.alert.list': [{ body: { request: { filters: { 'context.alertType': 'CUSTOM' }, options: { order: [['updatedAt', 'DESC']] }, limit: 10 } } }],
    'api.alert.get': [{ path: { id: CREATED_ID } }],
    'api.alert.update': [{ path: { id: CREATED_ID }, body: { severity: 'warning', interval: '10m' } }],
    'api.alert.publish': [{ path: { id: CREATED_ID } }],
    'api.alert.rules.export': [{ query: { manager: 'embedded' } }],
    'api.alert.delete': [{ path: { id: CREATED_ID } }],
    'api.alert.delete.bulk': [{ body: { filters: { status: 'retired', 'context.alertType': 'CUSTOM' } } }],
  };
}

/** The examples of an entry as of `now` (none for a multipart upload). */
export function examplesOf(endpoint: RestEndpoint, now?: Date): readonly RestExample[] {
  return restExamples(now)[endpoint.apiId] ?? [];
}
