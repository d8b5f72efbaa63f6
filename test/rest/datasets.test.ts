// Datasets over the REST compatibility layer (contract 2.1, 3, 4.1, 7; reference §1.1, §1.3–§1.6 and
// its decisions). Mirrors test/graphql/datasets.test.ts rule by rule. Tests share one database:
// every test uses dataset ids of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { envelope } from '../support/api.js';
import {
  API,
  definition,
  denormField,
  editDraft,
  flatConfig,
  GOOD_CONNECTOR,
  GOOD_TRANSFORMATION,
  importDataset,
  insertV1Live,
  nested,
  seedDataset,
  seedMaster,
  sleep,
  storedStatuses,
  storedVersion,
  storedVersions,
  transition,
  type Json,
  type SeedState,
} from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const RESPONSE_CODE: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 409: 'CONFLICT', 500: 'INTERNAL_SERVER_ERROR' };
const RECORD_FIELDS = ['dataset_id', 'name', 'type', 'status', 'tags', 'version', 'api_version', 'dataset_config', 'transformations_config', 'connectors_config'];
const LIVE_STATUSES = ['Live', 'Retired'];
const NUMERIC_TEXT = /^\d+$/;

function importRaw(def: unknown, query = ''): Promise<Response> {
  return gw.http.post(`/v2/datasets/import${query}`).send(envelope(API.import, def));
}

function read(id: string, query = ''): Promise<Response> {
  return gw.http.get(`/v2/datasets/read/${encodeURIComponent(id)}${query}`);
}

function list(request?: Json): Promise<Response> {
  return gw.http.post('/v2/datasets/list').send(envelope(API.list, request));
}

function copy(sourceId: string, isLive: boolean, destinationId: string): Promise<Response> {
  return gw.http.post('/v2/datasets/copy').send(envelope(API.copy, { source: { datasetId: sourceId, isLive }, destination: { datasetId: destinationId } }));
}

function move(id: string, status: string): Promise<Response> {
  return gw.http.post('/v2/datasets/status-transition').send(envelope(API.transition, { dataset_id: id, status }));
}

async function readOk(id: string, query = ''): Promise<Json> {
  const response = await read(id, query);
  expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  return response.body.result as Json;
}

async function listOk(request?: Json): Promise<{ data: Json[]; count: number }> {
  const response = await list(request);
  expect({ status: response.status, body: response.status === 200 ? 'ok' : response.body }).toEqual({ status: 200, body: 'ok' });
  return response.body.result as { data: Json[]; count: number };
}

/** A failure envelope with this status, code, kind and a message matching `message`. */
function expectFailure(response: Response, status: number, code: string, message: RegExp): void {
  expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode }).toEqual({
    status,
    code,
    responseCode: RESPONSE_CODE[status],
  });
  expect(response.body.params?.status).toBe('FAILED');
  expect(response.body.error.message).toMatch(message);
}

async function countRows(where = 'TRUE', values: unknown[] = []): Promise<number> {
  const rows = await gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM datasets WHERE ${where}`, values);
  return rows.rows[0]!.n;
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/datasets/status-transition', () => {
  it('moves a complete Draft to ReadyToPublish, answering {message, dataset_id}', async () => {
    await seedDataset(gw, 'rtp-ok', 'Draft');
    const before = await storedVersion(gw, 'rtp-ok', 'draft');
    const response = await move('rtp-ok', 'ReadyToPublish');
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    expect(response.body.result).toEqual({ message: 'Dataset status transition to ReadyToPublish successful', dataset_id: 'rtp-ok' });
    expect(await storedStatuses(gw, 'rtp-ok')).toEqual([['draft', 'ReadyToPublish']]);
    const after = await storedVersion(gw, 'rtp-ok', 'draft');
    expect({ version: after.version, dataset_config: after.dataset_config }).toEqual({ version: before.version, dataset_config: before.dataset_config });
    expect((await readOk('rtp-ok', '?status=ReadyToPublish')).status).toBe('ReadyToPublish');
  });

  it('publishes a ReadyToPublish draft as the Live version: the draft is gone, the published date and entry topic are set', async () => {
    const def = definition('live-ok');
    await seedDataset(gw, 'live-ok', 'ReadyToPublish');
    const response = await move('live-ok', 'Live');
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Dataset status transition to Live successful', dataset_id: 'live-ok' });

    expect(await storedStatuses(gw, 'live-ok')).toEqual([['live', 'Live']]);
    const stored = await storedVersion(gw, 'live-ok', 'live');
    expect(stored.published).toBe(true);
    expect(typeof stored.entry_topic).toBe('string');
    expect(stored.entry_topic!.length).toBeGreaterThan(0);

    const live = await readOk('live-ok');
    expect(live).toMatchObject({ dataset_id: 'live-ok', status: 'Live', version: 1, api_version: 'v2', name: def.name, dataset_config: def.dataset_config });
    const dates = await readOk('live-ok', '?fields=published_date,entry_topic');
    expect(Date.parse(dates.published_date as string)).not.toBeNaN();
    expect(dates.entry_topic).toBe(stored.entry_topic);
    expectFailure(await read('live-ok', '?status=Draft'), 404, 'DATASET_NOT_FOUND', /live-ok/);
  });

  it('publishes a new draft of a Live dataset in place of the old Live version (version 2, one Live row, no draft)', async () => {
    await seedDataset(gw, 'republish', 'Live');
    await importDataset(gw, definition('republish', { name: 'Republished Name' }));
    await transition(gw, 'republish', 'ReadyToPublish');
    const response = await move('republish', 'Live');
    expect(response.status).toBe(200);
    expect(await storedStatuses(gw, 'republish')).toEqual([['live', 'Live']]);
    expect(await readOk('republish')).toMatchObject({ status: 'Live', version: 2, name: 'Republished Name' });
  });

  it('retires a Live dataset; the Retired version stays readable', async () => {
    await seedDataset(gw, 'retire-ok', 'Live');
    const response = await move('retire-ok', 'Retired');
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Dataset status transition to Retired successful', dataset_id: 'retire-ok' });
    expect(await storedStatuses(gw, 'retire-ok')).toEqual([['live', 'Retired']]);
    expect(await readOk('retire-ok')).toMatchObject({ dataset_id: 'retire-ok', status: 'Retired', version: 1 });
  });

  it('accepts the original spelling Retire as an alias and stores Retired', async () => {
    await seedDataset(gw, 'retire-alias', 'Live');
    const response = await move('retire-alias', 'Retire');
    expect(response.status).toBe(200);
    expect(response.body.result.dataset_id).toBe('retire-alias');
    expect(response.body.result.message).toMatch(/^Dataset status transition to Retired? successful$/);
    expect(await storedStatuses(gw, 'retire-alias')).toEqual([['live', 'Retired']]);
    expect((await readOk('retire-alias')).status).toBe('Retired');
  });

  it.each<[string, SeedState]>([
    ['a Draft', 'Draft'],
    ['a ReadyToPublish dataset', 'ReadyToPublish'],
    ['a Live dataset', 'Live'],
    ['a Retired dataset', 'Retired'],
    ['a Live dataset with a Draft', 'LiveWithDraft'],
  ])('deletes %s with every version, answering "Dataset status transition to Delete successful"', async (_, state) => {
    const id = `delete-${state.toLowerCase()}`;
    await seedDataset(gw, id, state);
    const response = await move(id, 'Delete');
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ message: 'Dataset status transition to Delete successful', dataset_id: id });
    expect(await storedVersions(gw, id)).toEqual([]);
    expectFailure(await read(id), 404, 'DATASET_NOT_FOUND', new RegExp(id));
    expectFailure(await read(id, '?mode=edit'), 404, 'DATASET_NOT_FOUND', new RegExp(id));
    expectFailure(await move(id, 'Delete'), 404, 'DATASET_NOT_FOUND', new RegExp(id));
  });

  it('returns 400 DATASET_LIVE_FAILURE naming the dataset and its status when a Draft is asked to go Live, and changes nothing', async () => {
    await seedDataset(gw, 'draft-to-live', 'Draft');
    const before = await storedVersions(gw, 'draft-to-live');
    const response = await move('draft-to-live', 'Live');
    expectFailure(response, 400, 'DATASET_LIVE_FAILURE', /draft-to-live/);
    expect(response.body.error.message).toMatch(/\bDraft\b/);
    expect(response.body.error.trace).toBe('');
    expect(response.body.result).toEqual({});
    expect(await storedVersions(gw, 'draft-to-live')).toEqual(before);
  });

  it.each(['ReadyToPublish', 'Live', 'Retired', 'Retire', 'Delete'])(
    'returns 404 DATASET_NOT_FOUND naming the id when asked to move a dataset that does not exist to %s',
    async (status) => {
      const response = await move('never-imported', status);
      expectFailure(response, 404, 'DATASET_NOT_FOUND', /never-imported/);
      expect(await storedVersions(gw, 'never-imported')).toEqual([]);
    },
  );

  it.each<[string, SeedState, string, string, string]>([
    ['ReadyToPublish twice', 'ReadyToPublish', 'ReadyToPublish', 'DATASET_READYTOPUBLISH_FAILURE', 'ReadyToPublish'],
    ['ReadyToPublish of a Live dataset without a draft', 'Live', 'ReadyToPublish', 'DATASET_READYTOPUBLISH_FAILURE', 'Live'],
    ['ReadyToPublish of a Retired dataset', 'Retired', 'ReadyToPublish', 'DATASET_READYTOPUBLISH_FAILURE', 'Retired'],
    ['Live of a Live dataset without a draft', 'Live', 'Live', 'DATASET_LIVE_FAILURE', 'Live'],
    ['Live of a Retired dataset', 'Retired', 'Live', 'DATASET_LIVE_FAILURE', 'Retired'],
    ['Live of a Live dataset whose draft is not ReadyToPublish', 'LiveWithDraft', 'Live', 'DATASET_LIVE_FAILURE', 'Draft'],
    ['Retire of a Draft-only dataset', 'Draft', 'Retired', 'DATASET_RETIRE_FAILURE', 'Draft'],
    ['Retire of a ReadyToPublish-only dataset', 'ReadyToPublish', 'Retired', 'DATASET_RETIRE_FAILURE', 'ReadyToPublish'],
    ['Retire of a Retired dataset', 'Retired', 'Retired', 'DATASET_RETIRE_FAILURE', 'Retired'],
    ['Retire (alias) of a Draft-only dataset', 'Draft', 'Retire', 'DATASET_RETIRE_FAILURE', 'Draft'],
  ])('refuses %s with 400 %s naming the dataset and its status, and changes nothing', async (label, state, status, code, current) => {
    const id = `refuse-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`.slice(0, 60);
    await seedDataset(gw, id, state);
    const before = await storedVersions(gw, id);
    const response = await move(id, status);
    expectFailure(response, 400, code, new RegExp(id));
    expect(response.body.error.message).toMatch(new RegExp(`\\b${current}\\b`));
    expect(await storedVersions(gw, id)).toEqual(before);
  });

  it('returns 400 DATASET_STATUS_TRANSITION_INVALID_INPUT for a status value outside the lifecycle, and changes nothing', async () => {
    await seedDataset(gw, 'odd-status', 'Draft');
    const before = await storedVersions(gw, 'odd-status');
    const response = await move('odd-status', 'Published');
    expectFailure(response, 400, 'DATASET_STATUS_TRANSITION_INVALID_INPUT', /status/);
    expect(await storedVersions(gw, 'odd-status')).toEqual(before);
  });

  it('returns 400 DATASET_CONFIGS_INVALID naming data_key when ReadyToPublish is asked of a master without a data key', async () => {
    await seedDataset(gw, 'master-no-key', 'Draft', { type: 'master', dataset_config: { keys_config: { data_key: '' } } });
    const response = await move('master-no-key', 'ReadyToPublish');
    expectFailure(response, 400, 'DATASET_CONFIGS_INVALID', /data_key/);
    expect(await storedStatuses(gw, 'master-no-key')).toEqual([['draft', 'Draft']]);
  });

  it('returns 400 DATASET_IN_USE naming the dependent when a master that a Live dataset denormalises from is retired, and keeps the master Live', async () => {
    await seedMaster(gw, 'users-in-use');
    await seedDataset(gw, 'orders-uses-users', 'Live', { denorm_config: { denorm_fields: [denormField('users-in-use')] } });
    const response = await move('users-in-use', 'Retired');
    expectFailure(response, 400, 'DATASET_IN_USE', /orders-uses-users/);
    expect(await storedStatuses(gw, 'users-in-use')).toEqual([['live', 'Live']]);
    // Once the dependent is retired, the master can be.
    await transition(gw, 'orders-uses-users', 'Retired');
    expect((await move('users-in-use', 'Retired')).status).toBe(200);
  });

  it.each<[string, string, (id: string) => Promise<void>]>([
    ['does not exist', 'src-missing', async () => undefined],
    ['is a master only in Draft', 'src-draft-master', (id) => seedMaster(gw, id, 'Draft')],
    ['is a master that is Retired', 'src-retired-master', (id) => seedMaster(gw, id, 'Retired')],
    ['is a Live event dataset, not a master', 'src-live-event', (id) => seedDataset(gw, id, 'Live')],
  ])('cannot take a denorm source that %s to Live: import drops the field and lists it in ignoredFields', async (_, source, arrange) => {
    const id = `denorm-${source}`;
    await arrange(source);
    const field = denormField(source);
    const response = await importRaw(definition(id, { denorm_config: { denorm_fields: [field] } }));
    expect(response.status).toBe(200);
    expect(response.body.result.message).toBe('Dataset is partially imported');
    expect(response.body.result.ignoredFields.denorm_fields).toEqual([{ config: field, details: expect.stringMatching(new RegExp(source)) }]);
    const draft = await readOk(id, '?mode=edit');
    expect(draft.denorm_config.denorm_fields).toEqual([]);
    // What is left publishes, with no denorm source at all.
    await transition(gw, id, 'ReadyToPublish');
    await transition(gw, id, 'Live');
    expect((await readOk(id, '?fields=denorm_config')).denorm_config.denorm_fields).toEqual([]);
  });

  it('refuses a failed Live as a whole: a denorm source retired after ReadyToPublish gives DEPENDENT_MASTER_DATA_NOT_LIVE and the draft stays ReadyToPublish', async () => {
    await seedMaster(gw, 'users-retired-late');
    await seedDataset(gw, 'orders-late', 'ReadyToPublish', { denorm_config: { denorm_fields: [denormField('users-retired-late')] } });
    await transition(gw, 'users-retired-late', 'Retired');
    const before = await storedVersions(gw, 'orders-late');

    const response = await move('orders-late', 'Live');
    expectFailure(response, 400, 'DEPENDENT_MASTER_DATA_NOT_LIVE', /users-retired-late/);
    expect(await storedVersions(gw, 'orders-late')).toEqual(before);
    expect(await storedStatuses(gw, 'orders-late')).toEqual([['draft', 'ReadyToPublish']]);
  });

  it('runs Live in one transaction: when its last step fails in the database, no Live row is left and the draft is as it was', async () => {
    await seedDataset(gw, 'tx-live', 'ReadyToPublish');
    const before = await storedVersions(gw, 'tx-live');
    await gw.sql(`CREATE OR REPLACE FUNCTION refuse_tx_live_draft_delete() RETURNS trigger AS $$
      BEGIN
        IF OLD.dataset_id = 'tx-live' AND OLD.stage = 'draft' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN OLD;
      END $$ LANGUAGE plpgsql`);
    await gw.sql('CREATE TRIGGER refuse_tx_live_draft_delete BEFORE DELETE ON datasets FOR EACH ROW EXECUTE FUNCTION refuse_tx_live_draft_delete()');
    try {
      const response = await move('tx-live', 'Live');
      expectFailure(response, 500, 'INTERNAL_SERVER_ERROR', /internal error/);
      expect(response.body.error.message).not.toMatch(/injected failure/);
    } finally {
      await gw.sql('DROP TRIGGER refuse_tx_live_draft_delete ON datasets');
    }
    expect(await storedVersions(gw, 'tx-live')).toEqual(before);
    expect((await move('tx-live', 'Live')).status).toBe(200);
  });

  it('runs Delete in one transaction: when removing the Live version fails, the draft is kept too', async () => {
    await seedDataset(gw, 'tx-delete', 'LiveWithDraft');
    const before = await storedVersions(gw, 'tx-delete');
    await gw.sql(`CREATE OR REPLACE FUNCTION refuse_tx_delete_live() RETURNS trigger AS $$
      BEGIN
        IF OLD.dataset_id = 'tx-delete' AND OLD.stage = 'live' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN OLD;
      END $$ LANGUAGE plpgsql`);
    await gw.sql('CREATE TRIGGER refuse_tx_delete_live BEFORE DELETE ON datasets FOR EACH ROW EXECUTE FUNCTION refuse_tx_delete_live()');
    try {
      expect((await move('tx-delete', 'Delete')).status).toBe(500);
    } finally {
      await gw.sql('DROP TRIGGER refuse_tx_delete_live ON datasets');
    }
    expect(await storedVersions(gw, 'tx-delete')).toEqual(before);
  });
});

describe('POST /v2/datasets/import', () => {
  it('imports a new definition as a Draft of version 1, answering {message, data: {id, version_key}}', async () => {
    const def = definition('import-new', { transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    const response = await importRaw(def);
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    expect(response.body.result).toEqual({ message: 'Dataset is imported successfully', data: { id: 'import-new', version_key: expect.stringMatching(NUMERIC_TEXT) } });

    expect(await storedStatuses(gw, 'import-new')).toEqual([['draft', 'Draft']]);
    const draft = await readOk('import-new', '?mode=edit');
    expect(draft).toMatchObject({
      dataset_id: 'import-new',
      name: def.name,
      type: 'event',
      status: 'Draft',
      version: 1,
      version_key: response.body.result.data.version_key,
      api_version: 'v2',
      tags: def.tags,
      data_schema: def.data_schema,
      dataset_config: def.dataset_config,
      dedup_config: def.dedup_config,
      validation_config: def.validation_config,
      transformations_config: [GOOD_TRANSFORMATION],
      connectors_config: [GOOD_CONNECTOR],
    });
  });

  it('replaces an existing draft by default (overwrite defaults to true), keeping one draft', async () => {
    const first = await importDataset(gw, definition('import-overwrite', { name: 'First Name' }));
    await sleep(5);
    const second = await importRaw(definition('import-overwrite', { name: 'Second Name' }));
    expect(second.status).toBe(200);
    expect(second.body.result.data.id).toBe('import-overwrite');
    expect(second.body.result.data.version_key).not.toBe(first.data.version_key);
    await sleep(5);
    const third = await importRaw(definition('import-overwrite', { name: 'Third Name' }), '?overwrite=true');
    expect(third.status).toBe(200);
    expect(await storedStatuses(gw, 'import-overwrite')).toEqual([['draft', 'Draft']]);
    expect(await readOk('import-overwrite', '?mode=edit')).toMatchObject({ name: 'Third Name', version: 1, version_key: third.body.result.data.version_key });
  });

  it('returns 409 DATASET_EXISTS naming the id when overwrite=false meets an existing draft, and leaves the draft as it was', async () => {
    await importDataset(gw, definition('import-no-overwrite', { name: 'Kept Name' }));
    const before = await storedVersions(gw, 'import-no-overwrite');
    const response = await importRaw(definition('import-no-overwrite', { name: 'Refused Name' }), '?overwrite=false');
    expectFailure(response, 409, 'DATASET_EXISTS', /import-no-overwrite/);
    expect(await storedVersions(gw, 'import-no-overwrite')).toEqual(before);
  });

  it('imports with overwrite=false when no draft exists yet', async () => {
    const response = await importRaw(definition('import-fresh-no-overwrite'), '?overwrite=false');
    expect(response.status).toBe(200);
    expect(await storedStatuses(gw, 'import-fresh-no-overwrite')).toEqual([['draft', 'Draft']]);
  });

  it('imports over a Live dataset as a new Draft of version live + 1, leaving the Live version untouched', async () => {
    await seedDataset(gw, 'import-over-live', 'Live');
    const live = await storedVersion(gw, 'import-over-live', 'live');
    const response = await importRaw(definition('import-over-live', { name: 'Edited By Import' }), '?overwrite=false');
    expect(response.status).toBe(200);
    expect(await storedStatuses(gw, 'import-over-live')).toEqual([['live', 'Live'], ['draft', 'Draft']]);
    expect(await storedVersion(gw, 'import-over-live', 'live')).toEqual(live);
    expect(await readOk('import-over-live', '?mode=edit')).toMatchObject({ name: 'Edited By Import', status: 'Draft', version: 2 });
    expect(await readOk('import-over-live')).toMatchObject({ status: 'Live', version: 1 });
  });

  it('numbers a draft imported over a v1 Live of version 3 as version 4', async () => {
    await insertV1Live(gw, 'import-over-v3', { version: 3 });
    const response = await importRaw(definition('import-over-v3'));
    expect(response.status).toBe(200);
    expect((await readOk('import-over-v3', '?mode=edit')).version).toBe(4);
  });

  it.each<[string, 'v1' | null]>([
    ['api_version v1', 'v1'],
    ['api_version null', null],
  ])('converts a v1 definition (%s, flat dataset_config with redis_db_*) to the nested v2 form with cache_db_* names', async (_, apiVersion) => {
    const id = `import-v1-${apiVersion ?? 'null'}`;
    const flat = {
      data_key: 'userid',
      timestamp_key: 'event.ts',
      exclude_fields: ['debug'],
      entry_topic: 'legacy.ingest',
      redis_db_host: 'cache.internal',
      redis_db_port: 6380,
      index_data: true,
      redis_db: 5,
      file_upload_path: ['uploads/a'],
    };
    const def = { ...definition(id, { type: 'master' }), api_version: apiVersion, dataset_config: flat, denorm_config: { redis_db_host: 'denorm.internal', redis_db_port: 6381, denorm_fields: [] } };
    const response = await importRaw(def);
    expect(response.status).toBe(200);
    expect(response.body.result.data.id).toBe(id);
    const ignored = response.body.result.ignoredFields.dataset_config as { config: Json; details: string }[];
    const ignoredKeys = ignored.flatMap((item) => Object.keys(item.config));
    expect(ignoredKeys).toEqual(expect.arrayContaining(['exclude_fields', 'index_data']));
    for (const carried of ['data_key', 'timestamp_key', 'redis_db_host', 'cache_db_host', 'redis_db_port', 'cache_db_port', 'redis_db', 'cache_db', 'file_upload_path']) {
      expect(ignoredKeys).not.toContain(carried);
    }
    expect(ignored.find((item) => 'index_data' in item.config)).toEqual({ config: { index_data: true }, details: expect.any(String) });

    const draft = await readOk(id, '?mode=edit');
    expect(draft.api_version).toBe('v2');
    expect(draft.dataset_config).toEqual({
      keys_config: { data_key: 'userid', partition_key: '', timestamp_key: 'event.ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: true },
      cache_config: { cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 5 },
      file_upload_path: ['uploads/a'],
    });
    expect(draft.denorm_config).toMatchObject({ cache_db_host: 'denorm.internal', cache_db_port: 6381 });
    expect(draft.entry_topic).toBe('legacy.ingest');
    const stored = await storedVersion(gw, id, 'draft');
    expect(`${stored.dataset_config}${stored.denorm_config}`).not.toMatch(/redis_db/);
  });

  it('accepts the original redis_db_* names in a v2 cache_config and denorm_config, and stores the cache_db_* names', async () => {
    const def = definition('import-redis-names');
    def.dataset_config.cache_config = { redis_db_host: 'cache.internal', redis_db_port: 6380, redis_db: 3 };
    def.denorm_config = { redis_db_host: 'denorm.internal', redis_db_port: 6381, denorm_fields: [] };
    expect((await importRaw(def)).status).toBe(200);
    const draft = await readOk('import-redis-names', '?mode=edit');
    expect(draft.dataset_config.cache_config).toEqual({ cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 3 });
    expect(draft.denorm_config).toMatchObject({ cache_db_host: 'denorm.internal', cache_db_port: 6381 });
    const stored = await storedVersion(gw, 'import-redis-names', 'draft');
    expect(`${stored.dataset_config}${stored.denorm_config}`).not.toMatch(/redis_db/);
  });

  it('drops bad transformations and connectors, lists each with the reason, and says "Dataset is partially imported"', async () => {
    const badTransformation = { field_key: 'no_mode', transformation_function: { type: 'mask', expr: 'email' } };
    const badConnector = { id: 'broken', connector_id: 'kafka-connector-1.0.0' };
    const response = await importRaw(
      definition('import-partial', {
        transformations_config: [GOOD_TRANSFORMATION, badTransformation],
        connectors_config: [badConnector, GOOD_CONNECTOR],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({
      message: 'Dataset is partially imported',
      data: { id: 'import-partial', version_key: expect.stringMatching(NUMERIC_TEXT) },
      ignoredFields: {
        transformations: [{ config: badTransformation, details: expect.stringMatching(/mode/) }],
        connectors: [{ config: badConnector, details: expect.stringMatching(/connector_config/) }],
      },
    });
    const draft = await readOk('import-partial', '?mode=edit');
    expect(draft.transformations_config).toEqual([GOOD_TRANSFORMATION]);
    expect(draft.connectors_config).toEqual([GOOD_CONNECTOR]);
  });

  it('drops a denorm field that points at the dataset itself and lists it', async () => {
    const field = denormField('import-self-ref');
    const response = await importRaw(definition('import-self-ref', { denorm_config: { denorm_fields: [field] } }));
    expect(response.status).toBe(200);
    expect(response.body.result.message).toBe('Dataset is partially imported');
    expect(response.body.result.ignoredFields.denorm_fields).toEqual([{ config: field, details: expect.any(String) }]);
  });

  it('keeps a denorm field that points at a Live master', async () => {
    await seedMaster(gw, 'import-live-master');
    const field = denormField('import-live-master');
    const response = await importRaw(definition('import-with-denorm', { denorm_config: { denorm_fields: [field] } }));
    expect(response.status).toBe(200);
    expect(response.body.result.message).toBe('Dataset is imported successfully');
    expect(response.body.result.ignoredFields).toBeUndefined();
    expect((await readOk('import-with-denorm', '?mode=edit')).denorm_config.denorm_fields).toEqual([field]);
  });

  it('accepts back as is the definition a draft read returns (contract 2.1: the import payload is what draft reads give)', async () => {
    await seedDataset(gw, 'round-trip', 'Draft', { transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    const exported = await readOk('round-trip', '?mode=edit');
    await transition(gw, 'round-trip', 'Delete');
    const response = await importRaw(exported);
    expect(response.status).toBe(200);
    expect(response.body.result.data.id).toBe('round-trip');
    const strip = ({ version_key: _k, created_date: _c, updated_date: _u, ...rest }: Json) => rest;
    expect(strip(await readOk('round-trip', '?mode=edit'))).toEqual(strip(exported));
  });

  it('returns 400 DATASET_IMPORT_INVALID_CONFIGS for an overwrite value other than true or false, and stores nothing', async () => {
    expectFailure(await importRaw(definition('import-odd-overwrite'), '?overwrite=yes'), 400, 'DATASET_IMPORT_INVALID_CONFIGS', /overwrite/);
    expect(await storedVersions(gw, 'import-odd-overwrite')).toEqual([]);
  });

  it.each<[string, (id: string) => Json, RegExp]>([
    ['name is a number', (id) => definition(id, { name: 5 }), /\/name\b/],
    ['type is "stream"', (id) => definition(id, { type: 'stream' }), /\/type\b/],
    ['data_schema has no properties', (id) => ({ ...definition(id), data_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } }), /data_schema.*properties|properties.*data_schema/],
    ['tags is a string', (id) => definition(id, { tags: 'one' }), /\/tags\b/],
    ['dataset_config lacks keys_config', (id) => ({ ...definition(id), dataset_config: { indexing_config: { olap_store_enabled: true } } }), /keys_config/],
    ['dataset_id is missing', (id) => { const { dataset_id: _, ...rest } = definition(id); return rest; }, /dataset_id/],
  ])('returns 400 DATASET_IMPORT_INVALID_CONFIGS naming the path when %s, and stores nothing', async (label, build, message) => {
    const id = `bad-${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`.replace(/-$/, '');
    const response = await importRaw(build(id));
    expectFailure(response, 400, 'DATASET_IMPORT_INVALID_CONFIGS', message);
    expect(await storedVersions(gw, id)).toEqual([]);
  });

  it.each<[string, string, (id: string) => Json]>([
    ['dataset_config', 'dataset_config|keys_config', (id) => ({ ...definition(id), dataset_config: { ...definition(id).dataset_config, keys_config: nested(200) } })],
    ['data_schema', 'data_schema', (id) => definition(id, { data_schema: { properties: { deep: nested(200) } } })],
    ['sample_data', 'sample_data', (id) => definition(id, { sample_data: nested(200) })],
    ['connector config', 'connector', (id) => definition(id, { connectors_config: [{ ...GOOD_CONNECTOR, connector_config: nested(200) }] })],
  ])('returns a clear 400 (never a 500) for a 200-level nested %s, and stores nothing', async (label, part, build) => {
    const id = `deep-${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
    const response = await importRaw(build(id));
    expect({ status: response.status, responseCode: response.body.responseCode }).toEqual({ status: 400, responseCode: 'BAD_REQUEST' });
    expect(response.body.error.code).toBe('DATASET_IMPORT_INVALID_CONFIGS');
    expect(response.body.error.message).toMatch(new RegExp(`${part}|deep|depth|nest`, 'i'));
    expect(await storedVersions(gw, id)).toEqual([]);
  });
});

describe('GET /v2/datasets/read/:id', () => {
  it('returns the Live version by default with the record fields of contract 2.1', async () => {
    const def = definition('read-live', { tags: ['alpha', 'beta'], transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    await importDataset(gw, def);
    await transition(gw, 'read-live', 'ReadyToPublish');
    await transition(gw, 'read-live', 'Live');
    const response = await read('read-live');
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    const record = response.body.result as Json;
    expect(Object.keys(record).sort()).toEqual([...RECORD_FIELDS].sort());
    expect(record).toEqual({
      dataset_id: 'read-live',
      name: def.name,
      type: 'event',
      status: 'Live',
      tags: ['alpha', 'beta'],
      version: 1,
      api_version: 'v2',
      dataset_config: def.dataset_config,
      transformations_config: [GOOD_TRANSFORMATION],
      connectors_config: [GOOD_CONNECTOR],
    });
  });

  it('narrows the result to fields=a,b', async () => {
    await seedDataset(gw, 'read-narrow', 'Live');
    expect(await readOk('read-narrow', '?fields=name,version')).toEqual({ name: 'Dataset read-narrow', version: 1 });
    expect(await readOk('read-narrow', '?fields=router_config')).toEqual({ router_config: { topic: 'read-narrow' } });
  });

  it('returns 400 DATASET_INVALID_FIELDS naming a requested field the dataset does not have', async () => {
    await seedDataset(gw, 'read-bad-field', 'Live');
    const response = await read('read-bad-field', '?fields=name,colour');
    expectFailure(response, 400, 'DATASET_INVALID_FIELDS', /colour/);
    expect(response.body.error.message).not.toMatch(/\bname\b/);
  });

  it('picks the version with status=: the draft with status=Draft, the Live one with status=Live', async () => {
    await seedDataset(gw, 'read-by-status', 'LiveWithDraft');
    expect(await readOk('read-by-status', '?status=Draft&fields=status,version')).toEqual({ status: 'Draft', version: 2 });
    expect(await readOk('read-by-status', '?status=Live&fields=status,version')).toEqual({ status: 'Live', version: 1 });
    expect(await readOk('read-by-status', '?fields=status,version')).toEqual({ status: 'Live', version: 1 });
    expectFailure(await read('read-by-status', '?status=Retired'), 404, 'DATASET_NOT_FOUND', /read-by-status/);
  });

  it('returns 400 DATASET_READ_INVALID_INPUT for a status that is not a dataset status', async () => {
    await seedDataset(gw, 'read-odd-status', 'Live');
    expectFailure(await read('read-odd-status', '?status=Published'), 400, 'DATASET_READ_INVALID_INPUT', /status/);
  });

  it('returns 404 DATASET_NOT_FOUND naming an id that does not exist, and for a dataset that has no Live version', async () => {
    expectFailure(await read('read-missing'), 404, 'DATASET_NOT_FOUND', /read-missing/);
    await seedDataset(gw, 'read-draft-only', 'Draft');
    expectFailure(await read('read-draft-only'), 404, 'DATASET_NOT_FOUND', /read-draft-only/);
  });

  it('with mode=edit on a Live dataset without a draft, creates a Draft of version + 1 and returns it, leaving Live untouched', async () => {
    await seedDataset(gw, 'read-edit', 'Live');
    const live = await storedVersion(gw, 'read-edit', 'live');
    const draft = await readOk('read-edit', '?mode=edit');
    expect(draft).toMatchObject({ dataset_id: 'read-edit', status: 'Draft', version: 2, api_version: 'v2', dataset_config: definition('read-edit').dataset_config });
    expect(draft.version_key).toMatch(NUMERIC_TEXT);
    expect(await storedStatuses(gw, 'read-edit')).toEqual([['live', 'Live'], ['draft', 'Draft']]);
    expect(await storedVersion(gw, 'read-edit', 'live')).toEqual(live);
  });

  it('with mode=edit twice returns the same draft (same version_key), creating only one', async () => {
    await seedDataset(gw, 'read-edit-twice', 'Live');
    const first = await readOk('read-edit-twice', '?mode=edit');
    const second = await readOk('read-edit-twice', '?mode=edit');
    expect(second.version_key).toBe(first.version_key);
    expect(second).toEqual(first);
    expect(await countRows('dataset_id = $1', ['read-edit-twice'])).toBe(2);
  });

  it('with mode=edit returns an existing draft as it is, narrowed by fields', async () => {
    const imported = await importDataset(gw, definition('read-edit-existing', { name: 'Existing Draft' }));
    expect(await readOk('read-edit-existing', '?mode=edit&fields=name,version_key,status')).toEqual({
      name: 'Existing Draft',
      version_key: imported.data.version_key,
      status: 'Draft',
    });
  });

  it('with mode=edit returns 404 DATASET_NOT_FOUND for an id that does not exist, creating nothing', async () => {
    expectFailure(await read('read-edit-missing', '?mode=edit'), 404, 'DATASET_NOT_FOUND', /read-edit-missing/);
    expect(await storedVersions(gw, 'read-edit-missing')).toEqual([]);
  });

  it.each<[string, 'v1' | null]>([
    ['v1', 'v1'],
    ['null', null],
  ])('returns the flat dataset_config of an api_version %s Live record byte for byte, with the cache_db_* names', async (label, apiVersion) => {
    const id = `read-v1-${label}`;
    const configText = await insertV1Live(gw, id, { apiVersion });
    const response = await read(id);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"dataset_config":${configText}`);
    expect(JSON.stringify(response.body.result.dataset_config)).toBe(configText);
    expect(response.body.result).toMatchObject({ dataset_id: id, status: 'Live', version: 3, api_version: apiVersion });
    expect(Object.keys(response.body.result.dataset_config)).toEqual(Object.keys(flatConfig()));
  });

  it('returns a flat config with dotted timestamp key and unusual key order exactly as stored', async () => {
    const configText = '{"timestamp_key":"data.event.ts","cache_db":12,"data_key":"","index_data":false,"entry_topic":"t.in","cache_db_port":null,"cache_db_host":"","exclude_fields":[],"file_upload_path":[]}';
    await insertV1Live(gw, 'read-v1-order', { datasetConfigText: configText });
    const response = await read('read-v1-order', '?fields=dataset_config');
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"result":{"dataset_config":${configText}}`);
  });

  it('returns the original redis_db_* names of an old record as cache_db_*, in the same places', async () => {
    const stored = { data_key: '', timestamp_key: 'ts', redis_db_host: 'old.cache', redis_db_port: 6379, index_data: true, redis_db: 2 };
    await insertV1Live(gw, 'read-v1-redis', { datasetConfig: stored });
    const record = await readOk('read-v1-redis', '?fields=dataset_config');
    expect(JSON.stringify(record.dataset_config)).toBe(
      JSON.stringify({ data_key: '', timestamp_key: 'ts', cache_db_host: 'old.cache', cache_db_port: 6379, index_data: true, cache_db: 2 }),
    );
  });

  it('with mode=edit on a v1 Live record creates a v2 Draft (nested config, version + 1) and leaves the v1 record as stored', async () => {
    const configText = await insertV1Live(gw, 'read-v1-edit', { type: 'master' });
    const draft = await readOk('read-v1-edit', '?mode=edit');
    expect(draft).toMatchObject({ dataset_id: 'read-v1-edit', status: 'Draft', version: 4, api_version: 'v2', type: 'master' });
    expect(draft.dataset_config).toEqual({
      keys_config: { data_key: 'userid', partition_key: '', timestamp_key: 'obsrv_meta.syncts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: true },
      cache_config: { cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 7 },
      file_upload_path: ['uploads/old'],
    });
    expect(JSON.stringify(draft.denorm_config)).not.toMatch(/redis_db/);
    expect(draft.entry_topic).toBe('local.ingest');
    expect((await storedVersion(gw, 'read-v1-edit', 'live')).dataset_config).toBe(configText);
    const live = await read('read-v1-edit');
    expect(live.text).toContain(`"dataset_config":${configText}`);
    // The converted draft is complete: it can be published.
    await transition(gw, 'read-v1-edit', 'ReadyToPublish');
    await transition(gw, 'read-v1-edit', 'Live');
    expect(await readOk('read-v1-edit', '?fields=version,api_version,status')).toEqual({ version: 4, api_version: 'v2', status: 'Live' });
  });

  it('with mode=edit on a Retired dataset creates a Draft from it', async () => {
    await seedDataset(gw, 'read-edit-retired', 'Retired');
    expect(await readOk('read-edit-retired', '?mode=edit&fields=status,version')).toEqual({ status: 'Draft', version: 2 });
  });
});

describe('POST /v2/datasets/list', () => {
  beforeAll(async () => {
    await seedDataset(gw, 'list-draft', 'Draft');
    await seedDataset(gw, 'list-ready', 'ReadyToPublish');
    await seedDataset(gw, 'list-live', 'Live');
    await seedDataset(gw, 'list-retired', 'Retired');
    await seedDataset(gw, 'list-both', 'LiveWithDraft');
    await seedMaster(gw, 'list-master');
    await seedMaster(gw, 'list-master-draft', 'Draft');
  });

  const pairs = (data: Json[]) => data.map((record) => `${record.dataset_id}:${record.status}`);

  async function storedPairs(where = 'TRUE', values: unknown[] = []): Promise<string[]> {
    const rows = await gw.sql<{ pair: string }>(`SELECT dataset_id || ':' || status AS pair FROM datasets WHERE ${where}`, values);
    return rows.rows.map((row) => row.pair);
  }

  function expectLiveFirst(data: Json[]): void {
    const live = data.map((record, index) => (LIVE_STATUSES.includes(record.status as string) ? index : -1)).filter((index) => index >= 0);
    const drafts = data.map((record, index) => (LIVE_STATUSES.includes(record.status as string) ? -1 : index)).filter((index) => index >= 0);
    if (live.length > 0 && drafts.length > 0) expect(Math.max(...live)).toBeLessThan(Math.min(...drafts));
  }

  it('lists every version in every status without filters, Live versions before drafts, as {data, count}', async () => {
    const result = await listOk({});
    expect(Object.keys(result).sort()).toEqual(['count', 'data']);
    expect(pairs(result.data).sort()).toEqual((await storedPairs()).sort());
    expect(result.count).toBe(await countRows());
    expect(pairs(result.data)).toEqual(expect.arrayContaining(['list-both:Live', 'list-both:Draft', 'list-retired:Retired', 'list-ready:ReadyToPublish']));
    expectLiveFirst(result.data);
  });

  it('lists everything when the envelope carries no request', async () => {
    const result = await listOk();
    expect(result.data).toHaveLength(await countRows());
  });

  it('gives each record the fields of contract 2.1', async () => {
    const { data } = await listOk({ filters: { status: ['Live'] } });
    const record = data.find((item) => item.dataset_id === 'list-live')!;
    expect(record).toMatchObject({ dataset_id: 'list-live', name: 'Dataset list-live', type: 'event', status: 'Live', tags: ['test'], version: 1, api_version: 'v2' });
    expect(record.dataset_config).toEqual(definition('list-live').dataset_config);
  });

  it('filters on an array of statuses', async () => {
    const result = await listOk({ filters: { status: ['Draft', 'ReadyToPublish'] } });
    expect(pairs(result.data).sort()).toEqual((await storedPairs("status IN ('Draft', 'ReadyToPublish')")).sort());
    expect(result.count).toBe(result.data.length);
    expect(pairs(result.data)).toEqual(expect.arrayContaining(['list-draft:Draft', 'list-ready:ReadyToPublish', 'list-both:Draft']));
    expect(new Set(result.data.map((record) => record.status))).toEqual(new Set(['Draft', 'ReadyToPublish']));
  });

  it('filters on a single status given as a string', async () => {
    const result = await listOk({ filters: { status: 'Retired' } });
    expect(pairs(result.data).sort()).toEqual((await storedPairs("status = 'Retired'")).sort());
    expect(pairs(result.data)).toContain('list-retired:Retired');
  });

  it('filters on type, alone and with status', async () => {
    const masters = await listOk({ filters: { type: 'master' } });
    expect(pairs(masters.data).sort()).toEqual((await storedPairs("type = 'master'")).sort());
    expect(pairs(masters.data)).toEqual(expect.arrayContaining(['list-master:Live', 'list-master-draft:Draft']));
    expectLiveFirst(masters.data);

    const liveMasters = await listOk({ filters: { type: 'master', status: ['Live'] } });
    expect(pairs(liveMasters.data).sort()).toEqual((await storedPairs("type = 'master' AND status = 'Live'")).sort());
    expect(liveMasters.count).toBe(liveMasters.data.length);
  });

  it.each<[string, Json, RegExp]>([
    ['a status value outside the lifecycle', { filters: { status: ['Live', 'Published'] } }, /\/request\/filters\/status/],
    ['a single unknown status string', { filters: { status: 'Archived' } }, /\/request\/filters\/status/],
    ['an unknown type', { filters: { type: 'stream' } }, /\/request\/filters\/type/],
    ['an unknown filter key', { filters: { colour: 'blue' } }, /'colour'/],
    ['a negative limit', { limit: -1 }, /\/request\/limit/],
    ['a fractional offset', { offset: 1.5 }, /\/request\/offset/],
  ])('returns 400 DATASET_LIST_INPUT_INVALID for %s, naming it', async (_, request, message) => {
    expectFailure(await list(request), 400, 'DATASET_LIST_INPUT_INVALID', message);
  });

  it('pages with limit and offset: the pages together give the whole list once, in order, each with the full count', async () => {
    const all = await listOk({});
    const paged: Json[] = [];
    for (let offset = 0; offset < all.data.length + 3; offset += 3) {
      const page = await listOk({ limit: 3, offset });
      expect(page.data.length).toBeLessThanOrEqual(3);
      expect(page.count).toBe(all.count);
      paged.push(...page.data);
    }
    expect(pairs(paged)).toEqual(pairs(all.data));
    expect(pairs((await listOk({ limit: 2, offset: 1 })).data)).toEqual(pairs(all.data.slice(1, 3)));
  });

  it('returns 400 DATASET_LIST_INPUT_INVALID when the limit is above the maximum of 1000', async () => {
    expectFailure(await list({ limit: 1001 }), 400, 'DATASET_LIST_INPUT_INVALID', /1000/);
  });

  it.each<[string, Json]>([
    ['a limit past 32 bits', { limit: 2 ** 40 }],
    ['an offset past 2^53', { offset: 1e20 }],
  ])('answers %s with 400 DATASET_LIST_INPUT_INVALID, never a 500', async (_, request) => {
    const response = await list(request);
    expectFailure(response, 400, 'DATASET_LIST_INPUT_INVALID', /./);
  });
});

describe('POST /v2/datasets/copy', () => {
  it('copies the Live version (isLive true) into a new Draft of version 1 routed to the destination', async () => {
    await seedDataset(gw, 'copy-live-src', 'Live', { name: 'Copy Source', tags: ['copied'] });
    const before = await storedVersions(gw, 'copy-live-src');
    const response = await copy('copy-live-src', true, 'copy-live-dst');
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ dataset_id: 'copy-live-dst', message: 'Dataset clone successful' });

    expect(await storedStatuses(gw, 'copy-live-dst')).toEqual([['draft', 'Draft']]);
    const clone = await readOk('copy-live-dst', '?mode=edit');
    const source = definition('copy-live-src');
    expect(clone).toMatchObject({
      dataset_id: 'copy-live-dst',
      name: 'Copy Source',
      tags: ['copied'],
      status: 'Draft',
      version: 1,
      api_version: 'v2',
      router_config: { topic: 'copy-live-dst' },
      data_schema: source.data_schema,
      dataset_config: source.dataset_config,
    });
    expect(await storedVersions(gw, 'copy-live-src')).toEqual(before);
  });

  it('copies the Draft (isLive false) rather than the Live version', async () => {
    await seedDataset(gw, 'copy-draft-src', 'Live', { name: 'Live Name' });
    await importDataset(gw, definition('copy-draft-src', { name: 'Draft Name' }));
    const response = await copy('copy-draft-src', false, 'copy-draft-dst');
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual({ dataset_id: 'copy-draft-dst', message: 'Dataset clone successful' });
    expect(await readOk('copy-draft-dst', '?mode=edit')).toMatchObject({
      dataset_id: 'copy-draft-dst',
      name: 'Draft Name',
      status: 'Draft',
      version: 1,
      router_config: { topic: 'copy-draft-dst' },
    });
  });

  it('copies a v1 Live record into a v2 Draft with the nested config', async () => {
    await insertV1Live(gw, 'copy-v1-src');
    expect((await copy('copy-v1-src', true, 'copy-v1-dst')).status).toBe(200);
    const clone = await readOk('copy-v1-dst', '?mode=edit');
    expect(clone).toMatchObject({ api_version: 'v2', version: 1, status: 'Draft' });
    expect(clone.dataset_config.keys_config).toEqual({ data_key: '', partition_key: '', timestamp_key: 'obsrv_meta.syncts' });
  });

  it('returns 404 DATASET_NOT_EXISTS when the source does not exist, or has no version of the kind asked for, and stores nothing', async () => {
    expectFailure(await copy('copy-missing-src', true, 'copy-missing-dst'), 404, 'DATASET_NOT_EXISTS', /copy-missing-src/);
    expectFailure(await copy('copy-missing-src', false, 'copy-missing-dst'), 404, 'DATASET_NOT_EXISTS', /copy-missing-src/);
    await seedDataset(gw, 'copy-draft-only', 'Draft');
    expectFailure(await copy('copy-draft-only', true, 'copy-missing-dst'), 404, 'DATASET_NOT_EXISTS', /copy-draft-only/);
    expect(await storedVersions(gw, 'copy-missing-dst')).toEqual([]);
  });

  it.each<[string, SeedState]>([
    ['a Draft', 'Draft'],
    ['a Live dataset', 'Live'],
  ])('returns 409 DATASET_ALREADY_EXISTS naming the destination when it is %s, and leaves it as it was', async (_, state) => {
    const source = `copy-taken-src-${state.toLowerCase()}`;
    const destination = `copy-taken-${state.toLowerCase()}`;
    await seedDataset(gw, source, 'Live');
    await seedDataset(gw, destination, state, { name: 'Already Here' });
    const before = await storedVersions(gw, destination);
    expectFailure(await copy(source, true, destination), 409, 'DATASET_ALREADY_EXISTS', new RegExp(destination));
    expect(await storedVersions(gw, destination)).toEqual(before);
  });

  it('returns 400 DATASET_COPY_INVALID_INPUT when the destination is missing', async () => {
    const response = await gw.http.post('/v2/datasets/copy').send(envelope(API.copy, { source: { datasetId: 'x-src', isLive: true } }));
    expectFailure(response, 400, 'DATASET_COPY_INVALID_INPUT', /destination/);
  });
});

describe('a dataset through its whole lifecycle', () => {
  it('goes Draft, ReadyToPublish, Live, edited, Live again (version 2), Retired, edited, Deleted', async () => {
    await seedDataset(gw, 'life', 'Draft');
    await transition(gw, 'life', 'ReadyToPublish');
    await transition(gw, 'life', 'Live');
    expect((await editDraft(gw, 'life')).version).toBe(2);
    await transition(gw, 'life', 'ReadyToPublish');
    await transition(gw, 'life', 'Live');
    expect(await readOk('life', '?fields=status,version')).toEqual({ status: 'Live', version: 2 });
    await transition(gw, 'life', 'Retired');
    expect((await editDraft(gw, 'life')).version).toBe(3);
    expect(await storedStatuses(gw, 'life')).toEqual([['live', 'Retired'], ['draft', 'Draft']]);
    await transition(gw, 'life', 'Delete');
    expect(await storedVersions(gw, 'life')).toEqual([]);
  });
});
