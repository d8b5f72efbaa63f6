// Every REST answer, byte for byte (issue 52): a scripted, deterministic sequence of requests over
// every REST entry the gateway serves (rest/endpoints.ts), with successes and refusals, run against a
// real gateway over real HTTP; each answer (status, its own headers, the exact body text) is compared
// with the recording under test/rest/recorded-answers/, made on the code before a change. A change
// that keeps every REST answer passes; anything else fails naming the step, the request and where the
// answer first differs. Volatile values only are normalised (test/support/recorded-answers.ts says how).
//
//   RECORD_REST_ANSWERS=1 node --experimental-vm-modules node_modules/jest/bin/jest.js test/rest/recorded-answers.test.ts
//
// (re)writes the recordings: do it only on the code whose answers must be kept, and read the diff.
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAlertingGateway, type AlertingGateway } from '../support/alerting.js';
import { distributionTarGz } from '../support/archives.js';
import { useForFile } from '../support/gateway.js';
import { flatConfig, insertV1Live } from '../support/datasets.js';
import { readFile } from 'node:fs/promises';
import { checkAgainstRecording, compareExchanges, Normaliser, RECORDING, runScript, type Recording, type Step, type Vars } from '../support/recorded-answers.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const recordingOf = (section: string) => path.join(HERE, 'recorded-answers', `${section}.json`);

/** A sealing key for connector configurations (a dataset's connectors_config is sealed at rest). */
const CONNECTOR_KEY = 'cd'.repeat(32);

/**
 * The gateway each section runs on, a fresh one (and database) per section, so that a section's
 * answers do not depend on what another left behind (or on which sections a run selects).
 */
const GATEWAY_ENV = {
  // No background evaluation or sampling: an answer must not depend on when a tick falls.
  ALERT_EVALUATION_TICK_SECONDS: '0',
  METRICS_SAMPLE_INTERVAL_SECONDS: '0',
  // The console's legacy manager name "prometheus", served by the embedded manager.
  ALERT_MANAGER_ALIASES: 'prometheus=embedded',
  CONNECTOR_CONFIG_KEY: CONNECTOR_KEY,
};
const SECTIONS = ['datasets', 'alerting', 'platform'] as const;
type Section = (typeof SECTIONS)[number];

/** One gateway per section, started side by side (their start-up is most of this file's time). */
const gateways = useForFile(async () => {
  const started = await Promise.allSettled(SECTIONS.map(() => startAlertingGateway(GATEWAY_ENV)));
  const running = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const stop = async () => void (await Promise.all(running.map((gateway) => gateway.stop())));
  const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { of: (section: Section) => running[SECTIONS.indexOf(section)]!, stop };
}, 90_000);

function normaliserFor(running: AlertingGateway): Normaliser {
  const { fx } = running;
  const host = (url: string) => new URL(url).host;
  return new Normaliser({
    gateway: running.url,
    'gateway-host': host(running.url),
    alertmanager: fx.alertmanager.url,
    'alertmanager-host': host(fx.alertmanager.url),
    grafana: fx.grafana.url,
    'grafana-host': host(fx.grafana.url),
    webhook: fx.webhook.url,
    'webhook-host': host(fx.webhook.url),
    smtp: fx.smtp.url,
    'smtp-host': host(fx.smtp.url),
    'data-dir': fx.dataDir,
  });
}

/** The contract's request envelope, with a fixed timestamp and message id (so the request is the same each run). */
function envelope(id: string, request?: unknown): Record<string, unknown> {
  return { id, ver: 'v2', ts: '2026-01-01T00:00:00+00:00', params: { msgid: 'recorded-msg' }, ...(request === undefined ? {} : { request }) };
}

const later = (name: string) => (vars: Vars) => {
  const value = vars[name];
  if (value === undefined) throw new Error(`no value "${name}" was kept by an earlier step`);
  return value;
};

// ---------------------------------------------------------------------------------------------
// Datasets

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['id', 'device'],
  properties: {
    id: { type: 'string', arrival_format: 'text', data_type: 'string' },
    device: { type: 'string', arrival_format: 'text', data_type: 'string' },
    userid: { type: 'string', arrival_format: 'text', data_type: 'string' },
    ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
    reading: { type: 'object', properties: { celsius: { type: 'number', arrival_format: 'number', data_type: 'number' }, unit: { type: 'string', arrival_format: 'text', data_type: 'string' } } },
  },
  additionalProperties: true,
};

const transformation = (fieldKey: string, expr: string, mode = 'Strict') => ({
  field_key: fieldKey,
  transformation_function: { type: 'jsonata', expr, category: 'transform', datatype: 'string' },
  mode,
});

/** A complete v2 definition for import (contract 2.1). */
function definition(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    dataset_id: id,
    name: `Imported ${id}`,
    type: 'event',
    api_version: 'v2',
    tags: ['recorded'],
    data_schema: SCHEMA,
    extraction_config: { is_batch_event: false, extraction_key: 'events', dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 604800 } },
    validation_config: { validate: true, mode: 'Strict' },
    dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 604800 },
    denorm_config: { cache_db_host: 'localhost', cache_db_port: 6379, denorm_fields: [] },
    router_config: { topic: id },
    dataset_config: {
      keys_config: { data_key: '', partition_key: '', timestamp_key: 'ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
      cache_config: { cache_db_host: 'localhost', cache_db_port: 6379, cache_db: 0 },
      file_upload_path: [],
    },
    transformations_config: [],
    connectors_config: [],
    sample_data: {},
    ...overrides,
  };
}

function datasetSteps(gw: AlertingGateway): Step[] {
  const read = (id: string, query = '') => `/v2/datasets/read/${id}${query}`;
  const create = (name: string, request: unknown): Step => ({ name, method: 'POST', path: '/v2/datasets/create', body: envelope('api.datasets.create', request) });
  const update = (name: string, request: Record<string, unknown>, keyFrom = 'key.rec-full'): Step => ({
    name,
    method: 'PATCH',
    path: '/v2/datasets/update',
    body: envelope('api.datasets.update', { ...request, version_key: request.version_key ?? later(keyFrom) }),
    keep: (answer, vars) => {
      if (answer.result?.version_key) vars[keyFrom] = answer.result.version_key;
    },
  });
  const keepKey = (id: string) => (answer: any, vars: Vars) => {
    if (answer.result?.version_key) vars[`key.${id}`] = answer.result.version_key;
  };
  const move = (name: string, id: string, status: string): Step => ({
    name,
    method: 'POST',
    path: '/v2/datasets/status-transition',
    body: envelope('api.datasets.status-transition', { dataset_id: id, status }),
  });
  const list = (name: string, request?: unknown): Step => ({ name, method: 'POST', path: '/v2/datasets/list', body: envelope('api.datasets.list', request) });
  return [
    // create
    { ...create('create: minimal (id, name, type)', { dataset_id: 'rec-min', name: 'Minimal', type: 'event' }), keep: keepKey('rec-min') },
    {
      ...create('create: full definition', {
        dataset_id: 'rec-full',
        name: 'Full',
        type: 'event',
        tags: ['iot', 'raw'],
        data_schema: SCHEMA,
        dataset_config: { keys_config: { data_key: 'id', timestamp_key: 'ts' }, indexing_config: { olap_store_enabled: true }, file_upload_path: ['upload/sample.json'] },
        extraction_config: { is_batch_event: true, extraction_key: 'events', dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 3600 } },
        validation_config: { validate: true, mode: 'Strict' },
        dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 604800 },
        denorm_config: { redis_db_host: 'cache.internal', redis_db_port: 6380, denorm_fields: [] },
        transformations_config: [transformation('device_upper', '$uppercase(device)')],
        connectors_config: [{ id: 'rec-full-kafka', connector_id: 'kafka-connector-1.0.0', connector_config: { topic: 'in', password: 'not-in-answers' }, version: 'v2' }],
        sample_data: { mergedEvent: { id: 'e1', device: 'd1' } },
      }),
      keep: keepKey('rec-full'),
    },
    {
      ...create('create: a v1 flat dataset_config', { dataset_id: 'rec-flat', name: 'Flat config', type: 'master', data_schema: SCHEMA, dataset_config: flatConfig({ data_key: 'userid' }) }),
      keep: keepKey('rec-flat'),
    },
    create('create: master keyed by userid', {
      dataset_id: 'rec-master',
      name: 'Users',
      type: 'master',
      data_schema: SCHEMA,
      dataset_config: { keys_config: { data_key: 'userid', timestamp_key: 'ts' }, indexing_config: { cache_enabled: true } },
    }),
    create('create: refused, the id exists', { dataset_id: 'rec-min', name: 'Again', type: 'event' }),
    create('create: refused, an id with a dot', { dataset_id: '.rec-dot', name: 'Dot', type: 'event' }),
    create('create: refused, a config of the wrong type', { dataset_id: 'rec-bad-config', name: 'Bad', type: 'event', dataset_config: { indexing_config: { olap_store_enabled: 'yes' } } }),
    create('create: refused, an unknown type', { dataset_id: 'rec-bad-type', name: 'Bad', type: 'stream' }),
    create('create: refused, a transformation without mode', {
      dataset_id: 'rec-bad-item',
      name: 'Bad',
      type: 'event',
      transformations_config: [{ field_key: 'x', transformation_function: { type: 'jsonata', expr: 'x', category: 'transform' } }],
    }),
    create('create: refused, the same denorm key twice', {
      dataset_id: 'rec-dup-denorm',
      name: 'Dup',
      type: 'event',
      denorm_config: {
        denorm_fields: [
          { denorm_key: 'userid', denorm_out_field: 'user', dataset_id: 'rec-master' },
          { denorm_key: 'id', denorm_out_field: 'user', dataset_id: 'rec-master' },
        ],
      },
    }),
    { name: 'create: refused, no request', method: 'POST', path: '/v2/datasets/create', body: envelope('api.datasets.create') },
    { name: 'create: refused, a body that is not JSON', method: 'POST', path: '/v2/datasets/create', raw: { contentType: 'application/json', data: '{"id": "api.datasets.create", ' } },
    { name: 'create: refused, a form body', method: 'POST', path: '/v2/datasets/create', raw: { contentType: 'application/x-www-form-urlencoded', data: 'dataset_id=x' } },

    // read
    { name: 'read: a draft with mode=edit', method: 'GET', path: read('rec-full', '?mode=edit') },
    { name: 'read: the minimal draft with mode=edit', method: 'GET', path: read('rec-min', '?mode=edit') },
    { name: 'read: a draft with status=Draft', method: 'GET', path: read('rec-full', '?status=Draft') },
    { name: 'read: a draft, fields= selection', method: 'GET', path: read('rec-full', '?mode=edit&fields=name,status,dataset_config,version_key') },
    { name: 'read: refused, a Live read of a draft-only dataset', method: 'GET', path: read('rec-full') },
    { name: 'read: refused, an unknown id', method: 'GET', path: read('rec-nowhere') },
    { name: 'read: refused, an unknown field', method: 'GET', path: read('rec-full', '?mode=edit&fields=name,no_such_field') },
    { name: 'read: refused, an unknown status', method: 'GET', path: read('rec-full', '?status=Sleeping') },

    // update, section by section
    update('update: name and keys', { dataset_id: 'rec-full', name: 'Full, renamed', dataset_config: { keys_config: { data_key: 'id', timestamp_key: 'obsrv_meta.syncts' } } }),
    update('update: data_schema', { dataset_id: 'rec-full', data_schema: { ...SCHEMA, properties: { ...SCHEMA.properties, extra: { type: 'string', arrival_format: 'text', data_type: 'string' } } } }),
    update('update: dataset_config indexing and file paths', {
      dataset_id: 'rec-full',
      dataset_config: { indexing_config: { olap_store_enabled: true, lakehouse_enabled: true }, file_upload_path: ['upload/a.json', 'upload/b.json'] },
    }),
    update('update: extraction_config', { dataset_id: 'rec-full', extraction_config: { is_batch_event: false, extraction_key: 'items' } }),
    update('update: validation_config', { dataset_id: 'rec-full', validation_config: { validate: true, mode: 'IgnoreNewFields' } }),
    update('update: dedup_config', { dataset_id: 'rec-full', dedup_config: { drop_duplicates: false, dedup_key: 'id', dedup_period: 60 } }),
    update('update: tags upserted', {
      dataset_id: 'rec-full',
      tags: [
        { value: 'sensor', action: 'upsert' },
        { value: 'raw', action: 'remove' },
      ],
    }),
    update('update: transformations upserted and removed', {
      dataset_id: 'rec-full',
      transformations_config: [
        { value: transformation('device_upper', '$uppercase(device)', 'Lenient'), action: 'upsert' },
        { value: transformation('unit', 'reading.unit'), action: 'upsert' },
        { value: { field_key: 'missing' }, action: 'remove' },
      ],
    }),
    update('update: denorm settings and fields', {
      dataset_id: 'rec-full',
      denorm_config: { cache_db_host: 'cache.other', denorm_fields: [{ value: { denorm_key: 'userid', denorm_out_field: 'user', dataset_id: 'rec-master' }, action: 'upsert' }] },
    }),
    update('update: connectors upserted', {
      dataset_id: 'rec-full',
      connectors_config: [{ value: { id: 'rec-full-kafka', connector_id: 'kafka-connector-1.0.0', connector_config: { topic: 'new' }, version: 'v2' }, action: 'upsert' }],
    }),
    update('update: sample_data', { dataset_id: 'rec-full', sample_data: { mergedEvent: { id: 'e2', device: 'd2', reading: { celsius: 21.5 } } } }),
    { name: 'read: the draft after every section changed', method: 'GET', path: read('rec-full', '?mode=edit') },
    update('update: refused, a stale version_key', { dataset_id: 'rec-full', version_key: '1700000000000', name: 'Lost' }),
    update('update: refused, no field to change', { dataset_id: 'rec-full' }),
    update('update: refused, an unknown dataset', { dataset_id: 'rec-nowhere', name: 'x' }),
    update('update: refused, an unknown validation mode', { dataset_id: 'rec-full', validation_config: { validate: true, mode: 'Sometimes' } }),
    update('update: refused, a transformation change without field_key', { dataset_id: 'rec-full', transformations_config: [{ value: { mode: 'Strict' }, action: 'upsert' }] }),
    update('update: refused, an unknown action', { dataset_id: 'rec-full', tags: [{ value: 'x', action: 'rename' }] }),
    { name: 'update: refused, no version_key', method: 'PATCH', path: '/v2/datasets/update', body: envelope('api.datasets.update', { dataset_id: 'rec-full', name: 'x' }) },

    // lifecycle
    move('transition: refused, Draft straight to Live', 'rec-full', 'Live'),
    move('transition: refused, Retire a Draft', 'rec-full', 'Retire'),
    move('transition: refused, an unknown status', 'rec-full', 'Published'),
    move('transition: refused, an unknown dataset', 'rec-nowhere', 'ReadyToPublish'),
    move('transition: ReadyToPublish', 'rec-full', 'ReadyToPublish'),
    move('transition: refused, ReadyToPublish again', 'rec-full', 'ReadyToPublish'),
    { name: 'read: a ReadyToPublish draft', method: 'GET', path: read('rec-full', '?status=ReadyToPublish') },
    { name: 'export: the ReadyToPublish draft', method: 'GET', path: '/v2/datasets/export/rec-full?status=ReadyToPublish' },
    update('update: a ReadyToPublish draft stays ReadyToPublish', { dataset_id: 'rec-full', sample_data: { mergedEvent: { id: 'e3', device: 'd3' } } }),
    move('transition: refused, Live while its denorm master is a draft', 'rec-full', 'Live'),
    move('transition: master ReadyToPublish', 'rec-master', 'ReadyToPublish'),
    move('transition: master Live', 'rec-master', 'Live'),
    move('transition: Live', 'rec-full', 'Live'),
    move('transition: refused, Live again', 'rec-full', 'Live'),
    move('transition: refused, a Live dataset to ReadyToPublish', 'rec-full', 'ReadyToPublish'),
    { name: 'read: Live (the default fields)', method: 'GET', path: read('rec-full') },
    { name: 'read: Live, status=Live', method: 'GET', path: read('rec-full', '?status=Live') },
    { name: 'read: Live, fields= selection', method: 'GET', path: read('rec-full', '?fields=dataset_id,name,status,version,data_schema') },
    { name: 'read: Live again (a kept answer)', method: 'GET', path: read('rec-full') },
    { name: 'read: the Live master', method: 'GET', path: read('rec-master') },
    update('update: refused, a Live dataset is not a draft', { dataset_id: 'rec-master', version_key: '1', name: 'x' }),
    { name: 'read: mode=edit of a Live dataset makes its draft', method: 'GET', path: read('rec-full', '?mode=edit'), keep: keepKey('rec-full') },
    { name: 'read: mode=edit again reads that draft', method: 'GET', path: read('rec-full', '?mode=edit&fields=version,status,version_key') },
    update('update: the new draft', { dataset_id: 'rec-full', name: 'Full, version 2' }),
    { name: 'read: Live beside its draft', method: 'GET', path: read('rec-full') },
    move('transition: version 2 ReadyToPublish', 'rec-full', 'ReadyToPublish'),
    move('transition: version 2 Live', 'rec-full', 'Live'),
    { name: 'read: Live version 2', method: 'GET', path: read('rec-full') },
    { name: 'export: Live', method: 'GET', path: '/v2/datasets/export/rec-full' },
    { name: 'export: refused, an unknown dataset', method: 'GET', path: '/v2/datasets/export/rec-nowhere' },
    { name: 'export: refused, no draft to export', method: 'GET', path: '/v2/datasets/export/rec-full?status=ReadyToPublish' },
    { name: 'export: refused, an unknown status', method: 'GET', path: '/v2/datasets/export/rec-full?status=Sleeping' },
    move('transition: refused, retire a master in use', 'rec-master', 'Retired'),
    move('transition: delete a draft', 'rec-min', 'Delete'),
    { name: 'read: the deleted draft is gone', method: 'GET', path: read('rec-min', '?mode=edit') },
    move('transition: refused, delete an unknown dataset', 'rec-min', 'Delete'),

    // import
    { name: 'import: a new definition', method: 'POST', path: '/v2/datasets/import', body: envelope('api.datasets.import', definition('rec-imported')) },
    { name: 'import: refused, it exists', method: 'POST', path: '/v2/datasets/import?overwrite=false', body: envelope('api.datasets.import', definition('rec-imported')) },
    {
      name: 'import: refused, a field it does not know',
      method: 'POST',
      path: '/v2/datasets/import?overwrite=true',
      body: envelope('api.datasets.import', { ...definition('rec-imported'), surplus: 1 }),
    },
    {
      name: 'import: overwrite, with fields it ignores',
      method: 'POST',
      path: '/v2/datasets/import?overwrite=true',
      body: envelope('api.datasets.import', { ...definition('rec-imported', { name: 'Overwritten' }), status: 'Live', version: 9, created_by: 'someone' }),
    },
    {
      name: 'import: a v1 flat dataset_config',
      method: 'POST',
      path: '/v2/datasets/import',
      body: envelope('api.datasets.import', definition('rec-flat', { api_version: 'v1', type: 'master', dataset_config: flatConfig({ data_key: 'userid' }) })),
    },
    { name: 'read: the flat-config draft', method: 'GET', path: read('rec-flat', '?mode=edit') },
    {
      name: 'import: refused, invalid configs',
      method: 'POST',
      path: '/v2/datasets/import',
      body: envelope('api.datasets.import', definition('rec-bad-import', { validation_config: { validate: 'yes' } })),
    },
    { name: 'import: refused, no request', method: 'POST', path: '/v2/datasets/import', body: envelope('api.datasets.import') },
    { name: 'read: the imported draft', method: 'GET', path: read('rec-imported', '?mode=edit') },
    move('transition: imported ReadyToPublish', 'rec-imported', 'ReadyToPublish'),
    move('transition: imported Live', 'rec-imported', 'Live'),
    move('transition: imported Retired', 'rec-imported', 'Retired'),
    { name: 'read: a Retired dataset', method: 'GET', path: read('rec-imported', '?status=Retired') },
    move('transition: refused, retire it again', 'rec-imported', 'Retired'),

    // copy
    {
      name: 'copy: the Live version',
      method: 'POST',
      path: '/v2/datasets/copy',
      body: envelope('api.datasets.copy', { source: { datasetId: 'rec-full', isLive: true }, destination: { datasetId: 'rec-copy' } }),
    },
    { name: 'read: the copy', method: 'GET', path: read('rec-copy', '?mode=edit') },
    {
      name: 'copy: a draft',
      method: 'POST',
      path: '/v2/datasets/copy',
      body: envelope('api.datasets.copy', { source: { datasetId: 'rec-copy', isLive: false }, destination: { datasetId: 'rec-copy-2' } }),
    },
    {
      name: 'copy: refused, the destination exists',
      method: 'POST',
      path: '/v2/datasets/copy',
      body: envelope('api.datasets.copy', { source: { datasetId: 'rec-full', isLive: true }, destination: { datasetId: 'rec-copy' } }),
    },
    {
      name: 'copy: refused, an unknown source',
      method: 'POST',
      path: '/v2/datasets/copy',
      body: envelope('api.datasets.copy', { source: { datasetId: 'rec-nowhere', isLive: true }, destination: { datasetId: 'rec-copy-3' } }),
    },
    { name: 'copy: refused, no destination', method: 'POST', path: '/v2/datasets/copy', body: envelope('api.datasets.copy', { source: { datasetId: 'rec-full', isLive: true } }) },

    // v1 records (written with SQL: the API never writes v1)
    {
      name: 'read: a v1 Live record',
      method: 'GET',
      path: read('rec-v1'),
      arrange: async () => void (await insertV1Live(gw, 'rec-v1', { datasetConfig: flatConfig() })),
    },
    { name: 'read: a v1 Live record, fields=dataset_config', method: 'GET', path: read('rec-v1', '?fields=dataset_config,api_version') },
    { name: 'export: a v1 Live record', method: 'GET', path: '/v2/datasets/export/rec-v1' },

    // list
    list('list: everything'),
    list('list: Live only', { filters: { status: 'Live' } }),
    list('list: drafts of two statuses', { filters: { status: ['Draft', 'ReadyToPublish'] } }),
    list('list: masters', { filters: { type: 'master' } }),
    list('list: a page (limit and offset)', { limit: 2, offset: 1 }),
    list('list: nothing matches', { filters: { status: 'Retired', type: 'master' } }),
    list('list: refused, an unknown status', { filters: { status: 'Sleeping' } }),
    list('list: refused, a negative offset', { offset: -1 }),
    list('list: refused, an unknown filter', { filters: { owner: 'me' } }),

    // alias, reset, datasources
    { name: 'alias: a Live dataset', method: 'POST', path: '/v2/datasets/alias', body: envelope('api.datasets.alias', { dataset_id: 'rec-full', alias_name: 'rec-full-alias' }) },
    { name: 'alias: refused, the alias is taken', method: 'POST', path: '/v2/datasets/alias', body: envelope('api.datasets.alias', { dataset_id: 'rec-master', alias_name: 'rec-full-alias' }) },
    { name: 'alias: refused, an invalid alias', method: 'POST', path: '/v2/datasets/alias', body: envelope('api.datasets.alias', { dataset_id: 'rec-master', alias_name: 'no spaces allowed' }) },
    { name: 'alias: refused, an unknown dataset', method: 'POST', path: '/v2/datasets/alias', body: envelope('api.datasets.alias', { dataset_id: 'rec-nowhere', alias_name: 'rec-nowhere' }) },
    {
      name: 'alias: refused, an unknown table',
      method: 'POST',
      path: '/v2/datasets/alias',
      body: envelope('api.datasets.alias', { dataset_id: 'rec-master', alias_name: 'rec-master', table_name: 'no_table' }),
    },
    { name: 'read: Live with its alias', method: 'GET', path: read('rec-full', '?fields=dataset_id,alias') },
    { name: 'reset: query', method: 'POST', path: '/v2/datasets/reset/rec-full', body: envelope('api.datasets.reset', { category: 'query' }) },
    { name: 'reset: refused, an unknown dataset', method: 'POST', path: '/v2/datasets/reset/rec-nowhere', body: envelope('api.datasets.reset', { category: 'query' }) },
    { name: 'reset: refused, an unknown category', method: 'POST', path: '/v2/datasets/reset/rec-full', body: envelope('api.datasets.reset', { category: 'everything' }) },
    { name: 'datasources: all', method: 'POST', path: '/v2/datasources/list', body: envelope('api.datasources.list', {}) },
    { name: 'datasources: Live', method: 'POST', path: '/v2/datasources/list', body: envelope('api.datasources.list', { filters: { status: 'Live' } }) },
    { name: 'datasources: Purged', method: 'POST', path: '/v2/datasources/list', body: envelope('api.datasources.list', { filters: { status: 'Purged' } }) },
    { name: 'datasources: refused, an unknown status', method: 'POST', path: '/v2/datasources/list', body: envelope('api.datasources.list', { filters: { status: 'Sleeping' } }) },

    // dataschema
    {
      name: 'dataschema: infer from samples',
      method: 'POST',
      path: '/v2/datasets/dataschema',
      body: envelope('api.datasets.dataschema', {
        data: [
          { id: 'a1', device: 'd1', reading: { celsius: 20.5, unit: 'C' }, ts: '2025-03-01T10:00:00Z', tags: ['x'] },
          { id: 'a2', device: 'd2', reading: { celsius: 19, unit: 'C' }, ts: '2025-03-01T11:00:00Z', ok: true },
        ],
        config: { dataset: 'rec-inferred' },
      }),
    },
    { name: 'dataschema: refused, no samples', method: 'POST', path: '/v2/datasets/dataschema', body: envelope('api.datasets.dataschema', { data: [], config: { dataset: 'rec-inferred' } }) },
    { name: 'dataschema: refused, no config', method: 'POST', path: '/v2/datasets/dataschema', body: envelope('api.datasets.dataschema', { data: [{ id: 'a1' }] }) },
    {
      name: 'dataschema: refused, samples that are not objects',
      method: 'POST',
      path: '/v2/datasets/dataschema',
      body: envelope('api.datasets.dataschema', { data: [1, 2], config: { dataset: 'rec-inferred' } }),
    },

    // what no entry serves
    { name: 'route: a method the path does not take', method: 'DELETE', path: '/v2/datasets/list' },
    { name: 'route: a path nothing serves', method: 'GET', path: '/v2/datasets/nowhere' },
  ];
}

// ---------------------------------------------------------------------------------------------
// Alerting (/alerts/v1 takes no request envelope)

/** An alert id of the script's own (fixed, so it stays verbatim). */
const ALERT_ID = '00000000-0000-4000-8000-000000000001';
const OTHER_ALERT_ID = '00000000-0000-4000-8000-000000000002';
const METRIC = 'sum(increase(gateway_ingestion_events_total{stage="failed"}[5m]))';

/** Hours from the start of the run, as ISO text (normalised in the recording: they are near the run). */
const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

function ruleBody(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    manager: 'embedded',
    description: 'Too many events fail validation',
    category: 'processing',
    severity: 'warning',
    frequency: '1m',
    interval: '5m',
    labels: { team: 'data' },
    metadata: { queryBuilderContext: { metric: METRIC, operator: 'gt', threshold: [5] } },
    notification: { channels: [] },
    context: { alertType: 'CUSTOM' },
    ...overrides,
  };
}

function alertingSteps(gw: AlertingGateway): Step[] {
  const webhookUrl = gw.fx.webhook.url;
  const keepId = (name: string) => (answer: any, vars: Vars) => {
    const id = answer.result?.id;
    if (typeof id !== 'string') throw new Error('the answer has no result.id');
    vars[name] = id;
  };
  const at = (action: string, name: string) => (vars: Vars) => `/alerts/v1/${action}/${later(name)(vars)}`;
  return [
    // silences
    {
      name: 'silence: create at the embedded manager',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: ALERT_ID, manager: 'embedded', startDate: hoursFromNow(0), endDate: hoursFromNow(2), comment: 'maintenance' },
      keep: keepId('silence'),
    },
    {
      name: 'silence: create at Alertmanager',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: OTHER_ALERT_ID, manager: 'alertmanager', startDate: hoursFromNow(0), endDate: hoursFromNow(1) },
      keep: keepId('silence.am'),
    },
    {
      name: 'silence: create with the legacy name "prometheus"',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: '00000000-0000-4000-8000-000000000003', manager: 'prometheus', startDate: hoursFromNow(0), endDate: hoursFromNow(3) },
    },
    {
      name: 'silence: refused, the end before the start',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: ALERT_ID, manager: 'embedded', startDate: hoursFromNow(2), endDate: hoursFromNow(1) },
    },
    { name: 'silence: refused, no alertId', method: 'POST', path: '/alerts/v1/silence/create', body: { manager: 'embedded', startDate: hoursFromNow(0), endDate: hoursFromNow(1) } },
    {
      name: 'silence: refused, an unknown manager',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: ALERT_ID, manager: 'nagios', startDate: hoursFromNow(0), endDate: hoursFromNow(1) },
    },
    {
      name: 'silence: refused, a date that is not one',
      method: 'POST',
      path: '/alerts/v1/silence/create',
      body: { alertId: ALERT_ID, manager: 'embedded', startDate: 'tomorrow', endDate: hoursFromNow(1) },
    },
    { name: 'silence: get', method: 'GET', path: at('silence/get', 'silence') },
    { name: 'silence: refused, get an unknown id', method: 'GET', path: '/alerts/v1/silence/get/00000000-0000-4000-8000-0000000000ff' },
    { name: 'silence: refused, get an id that is not a UUID', method: 'GET', path: '/alerts/v1/silence/get/not-a-uuid' },
    { name: 'silence: search everything', method: 'GET', path: '/alerts/v1/silence/search' },
    { name: 'silence: search by alertId', method: 'GET', path: `/alerts/v1/silence/search?alertId=${ALERT_ID}` },
    { name: 'silence: search by manager, a page', method: 'GET', path: '/alerts/v1/silence/search?manager=embedded&limit=1&offset=1' },
    { name: 'silence: refused, search with a bad offset', method: 'GET', path: '/alerts/v1/silence/search?offset=minus-one' },
    { name: 'silence: update its end', method: 'PATCH', path: at('silence/update', 'silence'), body: { endDate: hoursFromNow(4) } },
    { name: 'silence: update with the original names startTime/endTime', method: 'PATCH', path: at('silence/update', 'silence'), body: { startTime: hoursFromNow(1), endTime: hoursFromNow(5) } },
    { name: 'silence: refused, update with an end before the start', method: 'PATCH', path: at('silence/update', 'silence'), body: { startDate: hoursFromNow(6), endDate: hoursFromNow(5) } },
    { name: 'silence: refused, update an unknown id', method: 'PATCH', path: '/alerts/v1/silence/update/00000000-0000-4000-8000-0000000000ff', body: { endDate: hoursFromNow(4) } },
    { name: 'silence: delete at Alertmanager', method: 'DELETE', path: at('silence/delete', 'silence.am') },
    { name: 'silence: refused, delete it again', method: 'DELETE', path: at('silence/delete', 'silence.am') },

    // metric aliases
    {
      name: 'metric alias: create',
      method: 'POST',
      path: '/alerts/v1/metric/alias/create',
      body: { alias: 'Failed events', component: 'Processing', subComponent: 'd1', metric: METRIC, context: { unit: 'count' } },
      keep: keepId('alias'),
    },
    {
      name: 'metric alias: create another',
      method: 'POST',
      path: '/alerts/v1/metric/alias/create',
      body: { alias: 'Ingested events', component: 'Ingestion', metric: 'sum(rate(gateway_ingestion_events_total[5m]))' },
      keep: keepId('alias.2'),
    },
    { name: 'metric alias: refused, the alias exists', method: 'POST', path: '/alerts/v1/metric/alias/create', body: { alias: 'Failed events', component: 'Processing', metric: METRIC } },
    { name: 'metric alias: refused, a metric that is not PromQL', method: 'POST', path: '/alerts/v1/metric/alias/create', body: { alias: 'Broken', component: 'Processing', metric: 'sum(rate(' } },
    { name: 'metric alias: refused, no component', method: 'POST', path: '/alerts/v1/metric/alias/create', body: { alias: 'No component', metric: METRIC } },
    { name: 'metric alias: get', method: 'GET', path: at('metric/alias/get', 'alias') },
    { name: 'metric alias: refused, get an unknown id', method: 'GET', path: '/alerts/v1/metric/alias/get/00000000-0000-4000-8000-0000000000ff' },
    { name: 'metric alias: search everything', method: 'POST', path: '/alerts/v1/metric/alias/search', body: { request: {} } },
    { name: 'metric alias: search by component', method: 'POST', path: '/alerts/v1/metric/alias/search', body: { request: { filters: { component: 'Ingestion' } } } },
    { name: 'metric alias: search, a page', method: 'POST', path: '/alerts/v1/metric/alias/search', body: { request: { limit: 1, offset: 1 } } },
    { name: 'metric alias: refused, search by an unknown field', method: 'POST', path: '/alerts/v1/metric/alias/search', body: { request: { filters: { colour: 'red' } } } },
    { name: 'metric alias: update', method: 'PATCH', path: at('metric/alias/update', 'alias'), body: { alias: 'Failed events of d1', subComponent: null } },
    { name: 'metric alias: refused, update to a taken alias', method: 'PATCH', path: at('metric/alias/update', 'alias'), body: { alias: 'Ingested events' } },
    { name: 'metric alias: refused, update an unknown id', method: 'PATCH', path: '/alerts/v1/metric/alias/update/00000000-0000-4000-8000-0000000000ff', body: { alias: 'x' } },
    { name: 'metric alias: delete', method: 'DELETE', path: at('metric/alias/delete', 'alias.2') },
    { name: 'metric alias: refused, delete it again', method: 'DELETE', path: at('metric/alias/delete', 'alias.2') },

    // notification channels
    {
      name: 'channel: create an e-mail channel (a draft)',
      method: 'POST',
      path: '/alerts/v1/notifications/create',
      body: { manager: 'embedded', name: 'Ops mail', type: 'email', config: { recipientAddresses: 'ops@example.com;oncall@example.com', subject: 'Gateway alert' } },
      keep: keepId('channel'),
    },
    {
      name: 'channel: create a Slack channel at Grafana',
      method: 'POST',
      path: '/alerts/v1/notifications/create',
      body: { manager: 'grafana', name: 'Ops slack', type: 'slack', config: { webhookUrl: `${webhookUrl}/hooks/T000/B000`, channel: '#ops', labels: { team: 'data' } } },
      keep: keepId('channel.slack'),
    },
    {
      name: 'channel: create with the default manager',
      method: 'POST',
      path: '/alerts/v1/notifications/create',
      body: { name: 'Teams', type: 'teams', config: { webhookUrl: 'https://example.webhook.office.com/webhookb2/x' } },
      keep: keepId('channel.teams'),
    },
    { name: 'channel: refused, an unknown type', method: 'POST', path: '/alerts/v1/notifications/create', body: { manager: 'embedded', name: 'Pager', type: 'pager', config: {} } },
    {
      name: 'channel: refused, a webhook host not allowed',
      method: 'POST',
      path: '/alerts/v1/notifications/create',
      body: { manager: 'embedded', name: 'Evil', type: 'slack', config: { webhookUrl: 'http://169.254.169.254/latest' } },
    },
    { name: 'channel: refused, no config', method: 'POST', path: '/alerts/v1/notifications/create', body: { manager: 'embedded', name: 'Bare', type: 'email' } },
    { name: 'channel: get a draft', method: 'GET', path: at('notifications/get', 'channel') },
    { name: 'channel: refused, get an unknown id', method: 'GET', path: '/alerts/v1/notifications/get/00000000-0000-4000-8000-0000000000ff' },
    { name: 'channel: publish', method: 'GET', path: at('notifications/publish', 'channel') },
    { name: 'channel: publish at Grafana', method: 'GET', path: at('notifications/publish', 'channel.slack') },
    { name: 'channel: refused, publish it again', method: 'GET', path: at('notifications/publish', 'channel') },
    { name: 'channel: refused, publish an unknown id', method: 'GET', path: '/alerts/v1/notifications/publish/00000000-0000-4000-8000-0000000000ff' },
    { name: 'channel: search everything', method: 'POST', path: '/alerts/v1/notifications/search', body: { request: {} } },
    {
      name: 'channel: search live ones, ordered by name',
      method: 'POST',
      path: '/alerts/v1/notifications/search',
      body: { request: { filters: { status: 'live' }, options: { order: [['name', 'ASC']] } } },
    },
    { name: 'channel: search two statuses and a type', method: 'POST', path: '/alerts/v1/notifications/search', body: { request: { filters: { status: ['draft', 'live'], type: 'email' } } } },
    { name: 'channel: refused, search by an unknown status', method: 'POST', path: '/alerts/v1/notifications/search', body: { request: { filters: { status: 'sleeping' } } } },
    {
      name: 'channel: update a live channel',
      method: 'PATCH',
      path: at('notifications/update', 'channel'),
      body: { name: 'Ops mail, renamed', config: { recipientAddresses: 'ops@example.com', subject: 'Alert', message: 'Look' } },
    },
    { name: 'channel: refused, update with an unknown type', method: 'PATCH', path: at('notifications/update', 'channel'), body: { type: 'pager' } },
    { name: 'channel: test a stored channel', method: 'POST', path: '/alerts/v1/notifications/test', body: { payload: { id: later('channel') }, message: 'Testing' } },
    {
      name: 'channel: test a described channel',
      method: 'POST',
      path: '/alerts/v1/notifications/test',
      body: { payload: { manager: 'embedded', name: 'Hook', type: 'slack', config: { webhookUrl: `${webhookUrl}/hooks/T000/B001` } } },
    },
    { name: 'channel: refused, test without payload', method: 'POST', path: '/alerts/v1/notifications/test', body: { message: 'x' } },
    { name: 'channel: delete (retire) a draft', method: 'DELETE', path: at('notifications/delete', 'channel.teams') },
    { name: 'channel: refused, delete an unknown id', method: 'DELETE', path: '/alerts/v1/notifications/delete/00000000-0000-4000-8000-0000000000ff' },
    { name: 'channel: get the retired channel', method: 'GET', path: at('notifications/get', 'channel.teams') },

    // rules
    { name: 'rule: create at the embedded manager (a draft)', method: 'POST', path: '/alerts/v1/create', body: ruleBody('Failed events'), keep: keepId('rule') },
    {
      name: "rule: create the console's body at Grafana",
      method: 'POST',
      path: '/alerts/v1/create',
      body: ruleBody('Failed events of d1', {
        manager: 'grafana',
        severity: 'critical',
        frequency: '5m',
        interval: '2m',
        labels: { component: 'obsrv', type: 'processing' },
        metadata: { queryBuilderContext: { category: 'processing', subComponent: 'd1', metric: METRIC, metricAlias: 'Failed events', operator: 'gt', threshold: ['5'], id: later('alias') } },
        notification: { channels: [later('channel.slack')] },
      }),
      keep: keepId('rule.grafana'),
    },
    {
      name: 'rule: create one with a live channel',
      method: 'POST',
      path: '/alerts/v1/create',
      body: ruleBody('Mailed rule', { severity: 'critical', notification: { channels: [later('channel')] } }),
      keep: keepId('rule.mailed'),
    },
    { name: 'rule: create one to delete in bulk', method: 'POST', path: '/alerts/v1/create', body: ruleBody('Bulk one', { category: 'bulk' }) },
    { name: 'rule: refused, the name exists', method: 'POST', path: '/alerts/v1/create', body: ruleBody('Failed events') },
    { name: 'rule: refused, no condition', method: 'POST', path: '/alerts/v1/create', body: ruleBody('No condition', { metadata: {} }) },
    {
      name: 'rule: refused, an unknown operator',
      method: 'POST',
      path: '/alerts/v1/create',
      body: ruleBody('Odd operator', { metadata: { queryBuilderContext: { metric: METRIC, operator: 'about', threshold: [5] } } }),
    },
    { name: 'rule: refused, an unknown field', method: 'POST', path: '/alerts/v1/create', body: { ...ruleBody('Surplus'), colour: 'red' } },
    { name: 'rule: get a draft', method: 'GET', path: at('get', 'rule') },
    { name: 'rule: refused, get an unknown id', method: 'GET', path: '/alerts/v1/get/00000000-0000-4000-8000-0000000000ff' },
    { name: 'rule: publish at the embedded manager', method: 'GET', path: at('publish', 'rule') },
    { name: 'rule: publish at Grafana', method: 'GET', path: at('publish', 'rule.grafana') },
    { name: 'rule: publish one with a live channel', method: 'GET', path: at('publish', 'rule.mailed') },
    { name: 'rule: refused, publish an unknown id', method: 'GET', path: '/alerts/v1/publish/00000000-0000-4000-8000-0000000000ff' },
    { name: 'rule: get a live rule', method: 'GET', path: at('get', 'rule') },
    { name: 'rule: get the Grafana rule', method: 'GET', path: at('get', 'rule.grafana') },
    { name: 'rule: search everything', method: 'POST', path: '/alerts/v1/search', body: { request: {} } },
    { name: 'rule: search live ones, ordered by name', method: 'POST', path: '/alerts/v1/search', body: { request: { filters: { status: 'live' }, options: { order: [['name', 'ASC']] } } } },
    {
      name: 'rule: search by severity and alertType, a page',
      method: 'POST',
      path: '/alerts/v1/search',
      body: { request: { filters: { severity: 'warning', 'context.alertType': 'CUSTOM' }, limit: 1, offset: 0 } },
    },
    { name: 'rule: refused, search by an unknown status', method: 'POST', path: '/alerts/v1/search', body: { request: { filters: { status: 'sleeping' } } } },
    {
      name: 'rule: update a live rule (it becomes a draft)',
      method: 'PATCH',
      path: at('update', 'rule'),
      body: { description: 'Changed', metadata: { queryBuilderContext: { metric: METRIC, operator: 'lt', threshold: [1] } } },
    },
    { name: 'rule: refused, update an unknown id', method: 'PATCH', path: '/alerts/v1/update/00000000-0000-4000-8000-0000000000ff', body: { description: 'x' } },
    { name: 'rule: refused, update with an unknown severity', method: 'PATCH', path: at('update', 'rule'), body: { severity: 'apocalyptic' } },
    { name: 'rule: the Prometheus rule file', method: 'GET', path: '/alerts/v1/rules/prometheus' },
    { name: 'rule: the Prometheus rule file of a manager', method: 'GET', path: '/alerts/v1/rules/prometheus?manager=embedded' },
    { name: 'rule: refused, the rule file of an unknown manager', method: 'GET', path: '/alerts/v1/rules/prometheus?manager=nagios' },
    { name: 'rule: delete (retire)', method: 'DELETE', path: at('delete', 'rule.mailed') },
    { name: 'rule: get a retired rule', method: 'GET', path: at('get', 'rule.mailed') },
    { name: 'rule: delete hard', method: 'DELETE', path: (vars) => `/alerts/v1/delete/${later('rule.mailed')(vars)}?hardDelete=true` },
    { name: 'rule: refused, delete an unknown id', method: 'DELETE', path: '/alerts/v1/delete/00000000-0000-4000-8000-0000000000ff' },
    { name: 'rule: refused, hardDelete not a boolean', method: 'DELETE', path: (vars) => `/alerts/v1/delete/${later('rule')(vars)}?hardDelete=maybe` },
    { name: 'rule: bulk delete by category', method: 'DELETE', path: '/alerts/v1/delete', body: { filters: { category: 'bulk' } } },
    { name: 'rule: refused, bulk delete with an empty filter', method: 'DELETE', path: '/alerts/v1/delete', body: { filters: {} } },
    { name: 'rule: search after the deletes', method: 'POST', path: '/alerts/v1/search', body: { request: { options: { order: [['name', 'ASC']] } } } },
    { name: 'silence: delete', method: 'DELETE', path: at('silence/delete', 'silence') },
    { name: 'route: an alerting path with a method it does not take', method: 'PUT', path: '/alerts/v1/create' },
  ];
}

// ---------------------------------------------------------------------------------------------
// Everything else: templates, ingestion, data access, files, connectors, PII, dataset metrics and health

/** A Live dataset of sales events with fixed times, far from the run (so they stay verbatim). */
const SALES = 'rec-sales';
const SALES_EVENTS = [
  { id: 's1', ts: '2025-06-01T10:00:00Z', userid: 'u1', device: 'ios', amount: 12.5 },
  { id: 's2', ts: '2025-06-01T10:30:00Z', userid: 'u2', device: 'android', amount: 3 },
  { id: 's3', ts: '2025-06-01T11:15:00Z', userid: 'u1', device: 'ios', amount: 7.25 },
];
const SQL_TEMPLATE = 'SELECT id, device, amount FROM {{DATASET}} WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}} ORDER BY id LIMIT {{LIMIT}}';
const JSON_TEMPLATE = {
  queryType: 'timeseries',
  dataSource: '{{DATASET}}',
  intervals: ['{{STARTDATE}}/{{ENDDATE}}'],
  granularity: 'hour',
  aggregations: [{ type: 'count', name: 'events' }],
};

function platformSteps(): Step[] {
  const ingest = (name: string, id: string, data: unknown): Step => ({
    name,
    method: 'POST',
    path: `/v2/data/in/${id}`,
    body: { id: 'api.data.in', ver: 'v2', ts: '2026-01-01T00:00:00+00:00', params: { msgid: 'recorded-msg' }, data },
  });
  const template = (name: string, request: unknown): Step => ({ name, method: 'POST', path: '/v2/template/create', body: envelope('api.query.template.create', request) });
  const run = (name: string, id: string, request: unknown): Step => ({ name, method: 'POST', path: `/v2/template/query/${id}`, body: envelope('api.query.template.query', request) });
  const dataOut = (name: string, id: string, request: Record<string, unknown>): Step => ({ name, method: 'POST', path: `/v2/data/query/${id}`, body: { ...envelope('api.data.out'), ...request } });
  const metrics = (name: string, query: unknown): Step => ({ name, method: 'POST', path: '/v2/data/metrics', body: { query } });
  return [
    // a Live dataset to work on
    {
      name: 'arrange: import the sales dataset',
      method: 'POST',
      path: '/v2/datasets/import',
      body: envelope('api.datasets.import', {
        ...definition(SALES),
        data_schema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'string', arrival_format: 'text', data_type: 'string' },
            ts: { type: 'string', arrival_format: 'text', data_type: 'date-time' },
            userid: { type: 'string', arrival_format: 'text', data_type: 'string' },
            device: { type: 'string', arrival_format: 'text', data_type: 'string' },
            amount: { type: 'number', arrival_format: 'number', data_type: 'number' },
          },
          additionalProperties: false,
        },
      }),
    },
    {
      name: 'arrange: sales ReadyToPublish',
      method: 'POST',
      path: '/v2/datasets/status-transition',
      body: envelope('api.datasets.status-transition', { dataset_id: SALES, status: 'ReadyToPublish' }),
    },
    { name: 'arrange: sales Live', method: 'POST', path: '/v2/datasets/status-transition', body: envelope('api.datasets.status-transition', { dataset_id: SALES, status: 'Live' }) },
    { name: 'arrange: a draft dataset', method: 'POST', path: '/v2/datasets/import', body: envelope('api.datasets.import', definition('rec-draft-only')) },

    // ingestion
    ingest('ingest: one event', SALES, SALES_EVENTS[0]),
    ingest('ingest: a batch', SALES, SALES_EVENTS.slice(1)),
    ingest('ingest: an events wrapper on a dataset without batches', SALES, { events: [{ id: 's8' }] }),
    ingest('ingest: a duplicate', SALES, SALES_EVENTS[0]),
    ingest('ingest: an event the schema refuses', SALES, { id: 's9', ts: '2025-06-01T12:00:00Z', amount: 'lots' }),
    ingest('ingest: refused, an unknown dataset', 'rec-nowhere', SALES_EVENTS[0]),
    ingest('ingest: refused, a draft dataset', 'rec-draft-only', SALES_EVENTS[0]),
    { name: 'ingest: refused, no data', method: 'POST', path: `/v2/data/in/${SALES}`, body: envelope('api.data.in') },
    {
      name: 'schema validate: an event that fits the Live schema',
      method: 'POST',
      path: '/v2/schema/validate',
      body: envelope('api.schema.validator', { datasetId: SALES, isLive: true, event: SALES_EVENTS[0] }),
    },
    {
      name: 'schema validate: an event that does not fit',
      method: 'POST',
      path: '/v2/schema/validate',
      body: envelope('api.schema.validator', { datasetId: SALES, isLive: true, event: { id: 1, colour: 'red' } }),
    },
    {
      name: 'schema validate: against a draft',
      method: 'POST',
      path: '/v2/schema/validate',
      body: envelope('api.schema.validator', { datasetId: 'rec-draft-only', isLive: false, event: { id: 'x' } }),
    },
    {
      name: 'schema validate: refused, an unknown dataset',
      method: 'POST',
      path: '/v2/schema/validate',
      body: envelope('api.schema.validator', { datasetId: 'rec-nowhere', isLive: true, event: {} }),
    },
    { name: 'schema validate: refused, no event', method: 'POST', path: '/v2/schema/validate', body: envelope('api.schema.validator', { datasetId: SALES, isLive: true }) },

    // templates
    template('template: create sql', { template_name: 'Rec Sales Rows', query_type: 'sql', query: SQL_TEMPLATE }),
    template('template: create json', { template_name: 'Rec Sales By Hour', query_type: 'json', query: JSON_TEMPLATE }),
    template('template: refused, the name exists', { template_name: 'Rec Sales Rows', query_type: 'sql', query: SQL_TEMPLATE }),
    template('template: refused, no {{DATASET}}', { template_name: 'Rec No Dataset', query_type: 'sql', query: 'SELECT 1 WHERE {{STARTDATE}} < {{ENDDATE}} LIMIT {{LIMIT}}' }),
    template('template: refused, an unknown query type', { template_name: 'Rec Graph', query_type: 'graph', query: SQL_TEMPLATE }),
    { name: 'template: read', method: 'GET', path: '/v2/template/read/rec_sales_rows' },
    { name: 'template: refused, read an unknown id', method: 'GET', path: '/v2/template/read/rec_nowhere' },
    { name: 'template: list', method: 'POST', path: '/v2/template/list', body: envelope('api.query.template.list', {}) },
    {
      name: 'template: list json ones, sorted',
      method: 'POST',
      path: '/v2/template/list',
      body: envelope('api.query.template.list', { filters: { query_type: 'json' }, sortBy: [{ field: 'template_name', order: 'asc' }] }),
    },
    { name: 'template: refused, list sorted by an unknown field', method: 'POST', path: '/v2/template/list', body: envelope('api.query.template.list', { sortBy: [{ field: 'colour' }] }) },
    { name: 'template: update its name', method: 'PATCH', path: '/v2/template/update/rec_sales_rows', body: envelope('api.query.template.update', { template_name: 'Rec Sales Rows Renamed' }) },
    { name: 'template: refused, update an unknown id', method: 'PATCH', path: '/v2/template/update/rec_nowhere', body: envelope('api.query.template.update', { template_name: 'x' }) },
    run('template: run sql', 'rec_sales_rows', { startdate: '2025-06-01', enddate: '2025-06-02', dataset: SALES, aggregationLevel: 'day', limit: 10 }),
    run('template: run json by hour', 'rec_sales_by_hour', { startdate: '2025-06-01T00:00:00Z', enddate: '2025-06-02T00:00:00Z', dataset: SALES, aggregationLevel: 'hour' }),
    run('template: refused, a range over 30 days', 'rec_sales_rows', { startdate: '2025-01-01', enddate: '2025-06-02', dataset: SALES, aggregationLevel: 'day' }),
    run('template: refused, a dataset that is not Live', 'rec_sales_rows', { startdate: '2025-06-01', enddate: '2025-06-02', dataset: 'rec-draft-only', aggregationLevel: 'day' }),
    run('template: refused, an unknown template', 'rec_nowhere', { startdate: '2025-06-01', enddate: '2025-06-02', dataset: SALES, aggregationLevel: 'day' }),
    run('template: refused, no aggregationLevel', 'rec_sales_rows', { startdate: '2025-06-01', enddate: '2025-06-02', dataset: SALES }),
    run('template: refused, a date that is not one', 'rec_sales_rows', { startdate: 'yesterday', enddate: '2025-06-02', dataset: SALES, aggregationLevel: 'day' }),
    { name: 'template: delete', method: 'DELETE', path: '/v2/template/delete/rec_sales_by_hour' },
    { name: 'template: refused, delete it again', method: 'DELETE', path: '/v2/template/delete/rec_sales_by_hour' },

    // data access
    dataOut('data query: sql', SALES, { query: `SELECT device, COUNT(*) AS n FROM "${SALES}" GROUP BY device ORDER BY device` }),
    dataOut('data query: native timeseries', SALES, {
      query: { queryType: 'timeseries', dataSource: SALES, intervals: ['2025-06-01T00:00:00Z/2025-06-02T00:00:00Z'], granularity: 'day', aggregations: [{ type: 'count', name: 'events' }] },
      context: { aggregationLevel: 'day' },
    }),
    dataOut('data query: refused, a native range over 30 days', SALES, {
      query: { queryType: 'timeseries', dataSource: SALES, intervals: ['2025-01-01/2025-06-02'], granularity: 'day', aggregations: [{ type: 'count', name: 'events' }] },
    }),
    dataOut('data query: refused, an unknown dataset', 'rec-nowhere', { query: 'SELECT 1' }),
    dataOut('data query: refused, a write', SALES, { query: `DELETE FROM "${SALES}"` }),
    { name: 'sql query: rows without an envelope', method: 'POST', path: '/v2/obsrv/data/sql-query', body: { query: `SELECT id, amount FROM "${SALES}" ORDER BY id` } },
    { name: 'sql query: refused, not SQL', method: 'POST', path: '/v2/obsrv/data/sql-query', body: { query: 'SELEKT everything' } },
    { name: 'sql query: refused, no query', method: 'POST', path: '/v2/obsrv/data/sql-query', body: {} },
    { name: 'exhaust: links to a day of events', method: 'GET', path: `/v2/data/exhaust/${SALES}?from=2025-06-01&to=2025-06-01` },
    { name: 'exhaust: refused, an unknown dataset', method: 'GET', path: '/v2/data/exhaust/rec-nowhere?from=2025-06-01&to=2025-06-01' },
    { name: 'exhaust: refused, a date that is not one', method: 'GET', path: `/v2/data/exhaust/${SALES}?from=June&to=2025-06-01` },
    { name: 'exhaust: refused, an unknown type', method: 'GET', path: `/v2/data/exhaust/${SALES}?type=parquet&from=2025-06-01&to=2025-06-01` },
    metrics('data metrics: a Druid native query', {
      url: '/druid/v2',
      method: 'POST',
      body: { query: { queryType: 'timeseries', dataSource: SALES, intervals: ['2025-06-01/2025-06-02'], granularity: 'all', aggregations: [{ type: 'count', name: 'events' }] } },
    }),
    metrics('data metrics: a Prometheus instant query at a fixed time', { url: '/prom/api/v1/query', method: 'GET', params: { query: 'vector(1)', time: '1750000000' } }),
    metrics('data metrics: refused, a path that is not a read endpoint', { url: '/prom/api/v1/admin/tsdb/delete_series', method: 'POST', params: {} }),
    metrics('data metrics: refused, PromQL that does not parse', { url: '/prom/api/v1/query', method: 'GET', params: { query: 'sum(' } }),
    { name: 'data metrics: refused, no query', method: 'POST', path: '/v2/data/metrics', body: {} },
    { name: 'druid datasources: simple', method: 'GET', path: '/druid/coordinator/v1/datasources?simple' },
    { name: 'druid datasources: plain', method: 'GET', path: '/druid/coordinator/v1/datasources' },
    { name: 'druid datasources: full', method: 'GET', path: '/druid/coordinator/v1/datasources?full' },
    { name: 'druid datasources: refused, a parameter given twice', method: 'GET', path: '/druid/coordinator/v1/datasources?simple=a&simple=b' },

    // files
    { name: 'files: upload links', method: 'POST', path: '/v2/files/generate-url', body: envelope('api.files.generate-url', { files: ['sample.json', 'more/events.json.gz'] }) },
    { name: 'files: download links (the second name)', method: 'POST', path: '/v2/files/url-access', body: envelope('api.files.generate-url', { files: ['sample.json'], access: 'read' }) },
    { name: 'files: refused, an unknown access', method: 'POST', path: '/v2/files/generate-url', body: envelope('api.files.generate-url', { files: ['sample.json'], access: 'delete' }) },
    { name: 'files: a path out of the folder keeps only its name', method: 'POST', path: '/v2/files/generate-url', body: envelope('api.files.generate-url', { files: ['../etc/passwd'] }) },
    { name: 'files: refused, no files', method: 'POST', path: '/v2/files/generate-url', body: envelope('api.files.generate-url', { files: [] }) },

    // connectors
    {
      name: 'connector: register a distribution',
      method: 'POST',
      path: '/v2/connector/register',
      raw: { contentType: 'multipart/form-data', data: form('file3', distributionTarGz({ id: 'rec-pg', version: '1.0.0', name: 'Rec Postgres' }), 'rec-pg-1.0.0.tar.gz') },
    },
    {
      name: 'connector: refused, an archive that is not one',
      method: 'POST',
      path: '/v2/connector/register',
      raw: { contentType: 'multipart/form-data', data: form('file', Buffer.from('not an archive, the same bytes every run\n'.repeat(16)), 'junk.tar.gz') },
    },
    { name: 'connector: refused, no file', method: 'POST', path: '/v2/connector/register', body: {} },
    { name: 'connector: list', method: 'POST', path: '/v2/connectors/list', body: envelope('api.connectors.list', {}) },
    { name: 'connector: list Live ones of a category', method: 'POST', path: '/v2/connectors/list', body: envelope('api.connectors.list', { filters: { status: ['Live'], category: ['Database'] } }) },
    { name: 'connector: refused, list by an unknown status', method: 'POST', path: '/v2/connectors/list', body: envelope('api.connectors.list', { filters: { status: ['Sleeping'] } }) },
    { name: 'connector: refused, a status that is not a list', method: 'POST', path: '/v2/connectors/list', body: envelope('api.connectors.list', { filters: { status: 'Live' } }) },
    { name: 'connector: list, a page', method: 'POST', path: '/v2/connectors/list', body: envelope('api.connectors.list', { limit: 1, offset: 1 }) },
    { name: 'connector: read', method: 'GET', path: '/v2/connectors/read/rec-pg-1.0.0' },
    { name: 'connector: refused, mode=edit without a draft', method: 'GET', path: '/v2/connectors/read/rec-pg-1.0.0?mode=edit' },
    { name: 'connector: refused, read an unknown id', method: 'GET', path: '/v2/connectors/read/rec-nowhere-1.0.0' },

    // PII
    {
      name: 'pii: analyse records',
      method: 'POST',
      path: '/v2/data/analyze/pii',
      body: envelope('api.data.analyze.pii', { dataset_id: SALES, data: [{ email: 'ana@example.com', card: '4111 1111 1111 1111', note: 'hello', phone: '+1 415 555 0100' }] }),
    },
    { name: 'pii: refused, no records', method: 'POST', path: '/v2/data/analyze/pii', body: envelope('api.data.analyze.pii', { dataset_id: SALES, data: [] }) },
    { name: 'pii: the system API, no envelope', method: 'POST', path: '/system/data/v1/analyze/pii', body: { dataset_id: SALES, data: [{ contact: 'ana@example.com', ip: '203.0.113.7' }] } },
    { name: 'pii: refused, the system API without data', method: 'POST', path: '/system/data/v1/analyze/pii', body: { dataset_id: SALES } },

    // dataset metrics and health
    {
      name: 'dataset metrics: volume, quality, lineage, connectors',
      method: 'POST',
      path: '/v2/dataset/metrics',
      body: envelope('api.dataset.metrics', { dataset_id: SALES, category: ['data_volume', 'data_quality', 'data_lineage', 'connectors'], query_time_period: 1 }),
    },
    {
      name: 'dataset metrics: freshness and observability',
      method: 'POST',
      path: '/v2/dataset/metrics',
      body: envelope('api.dataset.metrics', { dataset_id: SALES, category: ['data_freshness', 'data_observability'] }),
    },
    { name: 'dataset metrics: refused, an unknown category', method: 'POST', path: '/v2/dataset/metrics', body: envelope('api.dataset.metrics', { dataset_id: SALES, category: ['colour'] }) },
    {
      name: 'dataset metrics: refused, an unknown dataset',
      method: 'POST',
      path: '/v2/dataset/metrics',
      body: envelope('api.dataset.metrics', { dataset_id: 'rec-nowhere', category: ['data_volume'] }),
    },
    { name: 'dataset health: query and processing', method: 'POST', path: '/v2/datasets/health', body: envelope('api.dataset.health', { dataset_id: SALES, categories: ['query', 'processing'] }) },
    { name: 'dataset health: refused, an unknown dataset', method: 'POST', path: '/v2/datasets/health', body: envelope('api.dataset.health', { dataset_id: 'rec-nowhere', categories: ['query'] }) },
    { name: 'dataset health: refused, an unknown category', method: 'POST', path: '/v2/datasets/health', body: envelope('api.dataset.health', { dataset_id: SALES, categories: ['mood'] }) },

    // what no entry serves
    { name: 'route: a /system path nothing serves', method: 'GET', path: '/system/data/v1/nowhere' },
    { name: 'route: a template path with a method it does not take', method: 'GET', path: '/v2/template/delete/rec_sales_rows' },
  ];
}

/** A multipart form with one file part. */
function form(part: string, bytes: Buffer, filename: string): FormData {
  const data = new FormData();
  data.append(part, new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), filename);
  return data;
}

// ---------------------------------------------------------------------------------------------

describe('REST answers are the recorded ones, byte for byte', () => {
  const check = async (section: Section, about: string, steps: (gw: AlertingGateway) => Step[]) => {
    const running = gateways().of(section);
    const exchanges = await runScript(running.url, steps(running), normaliserFor(running));
    const problems = await checkAgainstRecording(recordingOf(section), about, exchanges);
    if (problems) throw new Error(`the REST answers of "${section}" differ from test/rest/recorded-answers/${section}.json:\n${problems}`);
    expect(exchanges.length).toBeGreaterThan(0);
    if (RECORDING) console.info(`recorded ${exchanges.length} ${section} exchanges`);
  };

  it(
    'datasets: create, read, update, lifecycle, import/export, copy, list, alias, reset, datasources, dataschema',
    () => check('datasets', 'Dataset lifecycle over REST (test/rest/recorded-answers.test.ts, datasetSteps)', datasetSteps),
    45_000,
  );

  it(
    'alerting: silences, metric aliases, notification channels, rules, legacy manager names',
    () => check('alerting', 'Alerting over REST (test/rest/recorded-answers.test.ts, alertingSteps)', alertingSteps),
    45_000,
  );

  it(
    'the rest: templates, ingestion, data access, files, connectors, PII, dataset metrics and health',
    () => check('platform', 'Every other REST entry (test/rest/recorded-answers.test.ts, platformSteps)', platformSteps),
    45_000,
  );
});

describe('the recording check itself', () => {
  it('fails on a one-character change of a recorded answer, naming the step, the request and where', async () => {
    const recording = JSON.parse(await readFile(recordingOf('datasets'), 'utf8')) as Recording;
    const changed = recording.exchanges.map((exchange) => ({ ...exchange, headers: { ...exchange.headers } }));
    const target = changed.findIndex((exchange) => exchange.step === 'read: Live (the default fields)');
    changed[target]!.body = changed[target]!.body.replace('"status":"Live"', '"status":"live"');
    changed[target + 1]!.headers['x-extra'] = 'yes';
    const message = compareExchanges(recording.exchanges, changed);
    expect(message).toContain(`#${target + 1} GET /v2/datasets/read/rec-full — step "read: Live (the default fields)"`);
    expect(message).toMatch(/body: first difference at character \d+:\n\s+recorded: .*"status":"Live".*\n\s+now: .*"status":"live"/);
    expect(message).toContain('header x-extra: recorded undefined, now "yes"');
    expect(compareExchanges(recording.exchanges, changed.slice(0, -1))).toMatch(/the script and the recording part here: recorded ".+", now nothing/);
    expect(compareExchanges(recording.exchanges, recording.exchanges)).toBe('');
  });

  it('normalises only what changes from run to run: ids and dates the script chose stay verbatim', () => {
    const normaliser = new Normaliser({ gateway: 'http://127.0.0.1:4321' });
    const now = new Date().toISOString();
    const generated = '3f2b8c1e-4d5a-4e6f-8a7b-9c0d1e2f3a4b';
    const text = `{"a":"${generated}","b":"${generated}","c":"00000000-0000-4000-8000-000000000001","d":"${now}","e":"2023-01-02T00:00:00Z","f":${Date.now()},"g":1700000000000,"h":"http://127.0.0.1:4321/x?signature=abc123&expires=1"}`;
    expect(normaliser.text(text)).toBe(
      '{"a":"<uuid-1>","b":"<uuid-1>","c":"00000000-0000-4000-8000-000000000001","d":"YYYY-MM-DDThh:mm:ss.SSSZ","e":"2023-01-02T00:00:00Z","f":<epoch-ms>,"g":1700000000000,"h":"<gateway>/x?signature=<signature>&expires=1"}',
    );
  });
});
