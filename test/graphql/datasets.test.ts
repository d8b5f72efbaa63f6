// Datasets over GraphQL (POST /graphql). Mirrors test/rest/datasets.test.ts rule by rule, plus what
// only GraphQL offers: versions by enum, cursor pagination, nested live/draft/denormSources.
// Tests share one database: every test uses dataset ids of its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import {
  definition,
  denormField,
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

const RESPONSE_CODE: Record<string, string> = {
  DATASET_NOT_FOUND: 'NOT_FOUND',
  DATASET_NOT_EXISTS: 'NOT_FOUND',
  DATASET_INVALID_FIELDS: 'BAD_REQUEST',
  DATASET_LIST_INPUT_INVALID: 'BAD_REQUEST',
  DATASET_IMPORT_INVALID_CONFIGS: 'BAD_REQUEST',
  DATASET_EXISTS: 'CONFLICT',
  DATASET_ALREADY_EXISTS: 'CONFLICT',
  DATASET_COPY_INVALID_INPUT: 'BAD_REQUEST',
  DATASET_LIVE_FAILURE: 'BAD_REQUEST',
  DATASET_READYTOPUBLISH_FAILURE: 'BAD_REQUEST',
  DATASET_RETIRE_FAILURE: 'BAD_REQUEST',
  DATASET_CONFIGS_INVALID: 'BAD_REQUEST',
  DATASET_IN_USE: 'BAD_REQUEST',
  DEPENDENT_MASTER_DATA_NOT_LIVE: 'BAD_REQUEST',
};
const STATUS: Record<string, string> = { Draft: 'DRAFT', ReadyToPublish: 'READY_TO_PUBLISH', Live: 'LIVE', Retired: 'RETIRED' };
const RECORD_FIELDS = ['dataset_id', 'name', 'type', 'status', 'tags', 'version', 'api_version', 'dataset_config', 'transformations_config', 'connectors_config'];
const FIELDS = 'id name type status stage tags version versionKey apiVersion datasetConfig entryTopic publishedAt';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const NUMERIC_TEXT = /^\d+$/;
const LIVE_STATUSES = ['LIVE', 'RETIRED'];

interface Dataset {
  id: string;
  name: string;
  type: 'EVENT' | 'MASTER';
  status: 'DRAFT' | 'READY_TO_PUBLISH' | 'LIVE' | 'RETIRED';
  stage: 'LIVE' | 'DRAFT';
  tags: string[];
  version: number;
  versionKey: string;
  apiVersion: string | null;
  datasetConfig: Json;
  entryTopic: string | null;
  publishedAt: string | null;
}

interface Connection {
  edges: { cursor: string; node: Dataset }[];
  nodes: Dataset[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

function readDataset(id: string, args: { version?: string; status?: string; fields?: string[] } = {}): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `query Read($id: ID!, $version: DatasetVersion, $status: DatasetStatus, $fields: [String!]) {
      dataset(id: $id, version: $version, status: $status) { ${FIELDS} definition(fields: $fields) }
    }`,
    { id, ...args },
  );
}

function listDatasets(variables: Json = {}): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `query List($filter: DatasetFilter, $first: Int, $after: String) {
      datasets(filter: $filter, first: $first, after: $after) {
        edges { cursor node { id status stage } }
        nodes { ${FIELDS} }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        totalCount
      }
    }`,
    variables,
  );
}

function importDef(def: unknown, overwrite?: boolean): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `mutation Import($definition: JSON!, $overwrite: Boolean) {
      importDataset(definition: $definition, overwrite: $overwrite) { id versionKey message ignoredFields dataset { ${FIELDS} definition } }
    }`,
    overwrite === undefined ? { definition: def } : { definition: def, overwrite },
  );
}

function edit(id: string, fields?: string[]): Promise<GraphQLResponse<Json>> {
  return graphql(gw, `mutation Edit($id: ID!, $fields: [String!]) { editDataset(id: $id) { ${FIELDS} definition(fields: $fields) } }`, { id, fields });
}

function copy(sourceId: string, sourceVersion: 'LIVE' | 'DRAFT', destinationId: string): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `mutation Copy($input: CopyDatasetInput!) { copyDataset(input: $input) { message dataset { ${FIELDS} definition } } }`,
    { input: { sourceId, sourceVersion, destinationId } },
  );
}

function move(id: string, to: string): Promise<GraphQLResponse<Json>> {
  return graphql(
    gw,
    `mutation Move($id: ID!, $to: DatasetTransition!) { transitionDataset(id: $id, to: $to) { id message dataset { ${FIELDS} live { version } draft { version } } } }`,
    { id, to },
  );
}

async function readOk(id: string, args: { version?: string; status?: string; fields?: string[] } = {}): Promise<Dataset & { definition: Json }> {
  const response = await readDataset(id, args);
  expect(response.errors).toBeUndefined();
  expect(response.data!.dataset).not.toBeNull();
  return response.data!.dataset as Dataset & { definition: Json };
}

async function editOk(id: string, fields?: string[]): Promise<Dataset & { definition: Json }> {
  const response = await edit(id, fields);
  expect(response.errors).toBeUndefined();
  return response.data!.editDataset as Dataset & { definition: Json };
}

async function listOk(variables: Json = {}): Promise<Connection> {
  const response = await listDatasets(variables);
  expect(response.errors).toBeUndefined();
  return response.data!.datasets as Connection;
}

/** A single error from our services: contract code, its kind, and a message matching `message`. */
function expectFailure(response: GraphQLResponse, code: string, message: RegExp): void {
  expect(response.status).toBe(200);
  expect(response.errors).toHaveLength(1);
  expect({ code: errorCode(response), responseCode: response.errors![0]!.extensions?.responseCode }).toEqual({ code, responseCode: RESPONSE_CODE[code] });
  expect(response.errors![0]!.message).toMatch(message);
}

/** GraphQL itself refused the request (type or validation level): no data, an error matching `message`. */
function expectRefusedByGraphQL(response: GraphQLResponse, message: RegExp): void {
  expect(response.status).toBe(400);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.length).toBeGreaterThan(0);
  expect(response.errors![0]!.message).toMatch(message);
}

async function countRows(where = 'TRUE', values: unknown[] = []): Promise<number> {
  const rows = await gw.sql<{ n: number }>(`SELECT count(*)::int AS n FROM datasets WHERE ${where}`, values);
  return rows.rows[0]!.n;
}

// ---------------------------------------------------------------------------------------------

describe('transitionDataset(id, to)', () => {
  it('moves a complete Draft to READY_TO_PUBLISH, answering {id, message, dataset}', async () => {
    await seedDataset(gw, 'rtp-ok', 'Draft');
    const response = await move('rtp-ok', 'READY_TO_PUBLISH');
    expect(response.errors).toBeUndefined();
    expect(response.data!.transitionDataset).toMatchObject({
      id: 'rtp-ok',
      message: 'Dataset status transition to ReadyToPublish successful',
      dataset: { id: 'rtp-ok', status: 'READY_TO_PUBLISH', stage: 'DRAFT', version: 1 },
    });
    expect(await storedStatuses(gw, 'rtp-ok')).toEqual([['draft', 'ReadyToPublish']]);
    expect((await readOk('rtp-ok', { status: 'READY_TO_PUBLISH' })).status).toBe('READY_TO_PUBLISH');
  });

  it('publishes a READY_TO_PUBLISH draft as the Live version: the draft is gone, the published date and entry topic are set', async () => {
    const def = definition('live-ok');
    await seedDataset(gw, 'live-ok', 'ReadyToPublish');
    const response = await move('live-ok', 'LIVE');
    expect(response.errors).toBeUndefined();
    const moved = response.data!.transitionDataset as { id: string; message: string; dataset: Dataset & { live: Json; draft: Json | null } };
    expect(moved).toMatchObject({ id: 'live-ok', message: 'Dataset status transition to Live successful' });
    expect(moved.dataset).toMatchObject({ status: 'LIVE', stage: 'LIVE', version: 1, apiVersion: 'v2', datasetConfig: def.dataset_config, live: { version: 1 }, draft: null });
    expect(moved.dataset.publishedAt).toMatch(ISO_UTC);
    expect(moved.dataset.entryTopic).toEqual(expect.any(String));
    expect(moved.dataset.entryTopic!.length).toBeGreaterThan(0);

    expect(await storedStatuses(gw, 'live-ok')).toEqual([['live', 'Live']]);
    expect((await storedVersion(gw, 'live-ok', 'live')).published).toBe(true);
    expect(await readOk('live-ok')).toMatchObject({ id: 'live-ok', status: 'LIVE', name: def.name, entryTopic: moved.dataset.entryTopic });
    expectFailure(await readDataset('live-ok', { version: 'DRAFT' }), 'DATASET_NOT_FOUND', /live-ok/);
  });

  it('publishes a new draft of a Live dataset in place of the old Live version (version 2, one Live row, no draft)', async () => {
    await seedDataset(gw, 'republish', 'Live');
    await importDataset(gw, definition('republish', { name: 'Republished Name' }));
    await transition(gw, 'republish', 'ReadyToPublish');
    const response = await move('republish', 'LIVE');
    expect(response.errors).toBeUndefined();
    expect(await storedStatuses(gw, 'republish')).toEqual([['live', 'Live']]);
    expect(await readOk('republish')).toMatchObject({ status: 'LIVE', version: 2, name: 'Republished Name' });
  });

  it('retires a Live dataset; the Retired version stays readable', async () => {
    await seedDataset(gw, 'retire-ok', 'Live');
    const response = await move('retire-ok', 'RETIRED');
    expect(response.errors).toBeUndefined();
    expect(response.data!.transitionDataset).toMatchObject({
      id: 'retire-ok',
      message: 'Dataset status transition to Retired successful',
      dataset: { status: 'RETIRED', stage: 'LIVE' },
    });
    expect(await storedStatuses(gw, 'retire-ok')).toEqual([['live', 'Retired']]);
    expect(await readOk('retire-ok')).toMatchObject({ id: 'retire-ok', status: 'RETIRED', version: 1 });
  });

  it('offers RETIRED only: the REST alias Retire is not a GraphQL value and is refused at the type level', async () => {
    await seedDataset(gw, 'retire-alias', 'Live');
    expectRefusedByGraphQL(await move('retire-alias', 'RETIRE'), /RETIRE/);
    expect(await storedStatuses(gw, 'retire-alias')).toEqual([['live', 'Live']]);
  });

  it.each<[string, SeedState]>([
    ['a Draft', 'Draft'],
    ['a ReadyToPublish dataset', 'ReadyToPublish'],
    ['a Live dataset', 'Live'],
    ['a Retired dataset', 'Retired'],
    ['a Live dataset with a Draft', 'LiveWithDraft'],
  ])('deletes %s with every version, answering "Dataset status transition to Delete successful" and no dataset', async (_, state) => {
    const id = `delete-${state.toLowerCase()}`;
    await seedDataset(gw, id, state);
    const response = await move(id, 'DELETE');
    expect(response.errors).toBeUndefined();
    expect(response.data!.transitionDataset).toEqual({ id, message: 'Dataset status transition to Delete successful', dataset: null });
    expect(await storedVersions(gw, id)).toEqual([]);
    expectFailure(await readDataset(id), 'DATASET_NOT_FOUND', new RegExp(id));
    expectFailure(await edit(id), 'DATASET_NOT_FOUND', new RegExp(id));
    expectFailure(await move(id, 'DELETE'), 'DATASET_NOT_FOUND', new RegExp(id));
  });

  it('returns DATASET_LIVE_FAILURE (BAD_REQUEST) naming the dataset and its status when a Draft is asked to go LIVE, and changes nothing', async () => {
    await seedDataset(gw, 'draft-to-live', 'Draft');
    const before = await storedVersions(gw, 'draft-to-live');
    const response = await move('draft-to-live', 'LIVE');
    expectFailure(response, 'DATASET_LIVE_FAILURE', /draft-to-live/);
    expect(response.errors![0]!.message).toMatch(/\bDraft\b/);
    expect(response.data ?? null).toBeNull();
    expect(await storedVersions(gw, 'draft-to-live')).toEqual(before);
  });

  it.each(['READY_TO_PUBLISH', 'LIVE', 'RETIRED', 'DELETE'])(
    'returns DATASET_NOT_FOUND (NOT_FOUND) naming the id when asked to move a dataset that does not exist to %s',
    async (to) => {
      expectFailure(await move('never-imported', to), 'DATASET_NOT_FOUND', /never-imported/);
      expect(await storedVersions(gw, 'never-imported')).toEqual([]);
    },
  );

  it.each<[string, SeedState, string, string, string]>([
    ['READY_TO_PUBLISH twice', 'ReadyToPublish', 'READY_TO_PUBLISH', 'DATASET_READYTOPUBLISH_FAILURE', 'ReadyToPublish'],
    ['READY_TO_PUBLISH of a Live dataset without a draft', 'Live', 'READY_TO_PUBLISH', 'DATASET_READYTOPUBLISH_FAILURE', 'Live'],
    ['READY_TO_PUBLISH of a Retired dataset', 'Retired', 'READY_TO_PUBLISH', 'DATASET_READYTOPUBLISH_FAILURE', 'Retired'],
    ['LIVE of a Live dataset without a draft', 'Live', 'LIVE', 'DATASET_LIVE_FAILURE', 'Live'],
    ['LIVE of a Retired dataset', 'Retired', 'LIVE', 'DATASET_LIVE_FAILURE', 'Retired'],
    ['LIVE of a Live dataset whose draft is not ReadyToPublish', 'LiveWithDraft', 'LIVE', 'DATASET_LIVE_FAILURE', 'Draft'],
    ['RETIRED of a Draft-only dataset', 'Draft', 'RETIRED', 'DATASET_RETIRE_FAILURE', 'Draft'],
    ['RETIRED of a ReadyToPublish-only dataset', 'ReadyToPublish', 'RETIRED', 'DATASET_RETIRE_FAILURE', 'ReadyToPublish'],
    ['RETIRED of a Retired dataset', 'Retired', 'RETIRED', 'DATASET_RETIRE_FAILURE', 'Retired'],
  ])('refuses %s with %s naming the dataset and its status, and changes nothing', async (label, state, to, code, current) => {
    const id = `refuse-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`.slice(0, 60);
    await seedDataset(gw, id, state);
    const before = await storedVersions(gw, id);
    const response = await move(id, to);
    expectFailure(response, code, new RegExp(id));
    expect(response.errors![0]!.message).toMatch(new RegExp(`\\b${current}\\b`));
    expect(await storedVersions(gw, id)).toEqual(before);
  });

  it('refuses a move outside the lifecycle at the type level (DatasetTransition enum), and changes nothing', async () => {
    await seedDataset(gw, 'odd-status', 'Draft');
    const before = await storedVersions(gw, 'odd-status');
    expectRefusedByGraphQL(await move('odd-status', 'PUBLISHED'), /PUBLISHED/);
    expect(await storedVersions(gw, 'odd-status')).toEqual(before);
  });

  it('returns DATASET_CONFIGS_INVALID naming data_key when READY_TO_PUBLISH is asked of a master without a data key', async () => {
    await seedDataset(gw, 'master-no-key', 'Draft', { type: 'master', dataset_config: { keys_config: { data_key: '' } } });
    expectFailure(await move('master-no-key', 'READY_TO_PUBLISH'), 'DATASET_CONFIGS_INVALID', /data_key/);
    expect(await storedStatuses(gw, 'master-no-key')).toEqual([['draft', 'Draft']]);
  });

  it('returns DATASET_IN_USE naming the dependent when a master that a Live dataset denormalises from is retired, and keeps the master Live', async () => {
    await seedMaster(gw, 'users-in-use');
    await seedDataset(gw, 'orders-uses-users', 'Live', { denorm_config: { denorm_fields: [denormField('users-in-use')] } });
    expectFailure(await move('users-in-use', 'RETIRED'), 'DATASET_IN_USE', /orders-uses-users/);
    expect(await storedStatuses(gw, 'users-in-use')).toEqual([['live', 'Live']]);
    await transition(gw, 'orders-uses-users', 'Retired');
    expect((await move('users-in-use', 'RETIRED')).errors).toBeUndefined();
  });

  it.each<[string, string, (id: string) => Promise<void>]>([
    ['does not exist', 'src-missing', async () => undefined],
    ['is a master only in Draft', 'src-draft-master', (id) => seedMaster(gw, id, 'Draft')],
    ['is a master that is Retired', 'src-retired-master', (id) => seedMaster(gw, id, 'Retired')],
    ['is a Live event dataset, not a master', 'src-live-event', (id) => seedDataset(gw, id, 'Live')],
  ])('cannot take a denorm source that %s to Live: importDataset drops the field and lists it in ignoredFields', async (_, source, arrange) => {
    const id = `denorm-${source}`;
    await arrange(source);
    const field = denormField(source);
    const response = await importDef(definition(id, { denorm_config: { denorm_fields: [field] } }));
    expect(response.errors).toBeUndefined();
    const imported = response.data!.importDataset as { message: string; ignoredFields: Json; dataset: { definition: Json } };
    expect(imported.message).toBe('Dataset is partially imported');
    expect(imported.ignoredFields.denorm_fields).toEqual([{ config: field, details: expect.stringMatching(new RegExp(source)) }]);
    expect(imported.dataset.definition.denorm_config.denorm_fields).toEqual([]);
    await transition(gw, id, 'ReadyToPublish');
    await transition(gw, id, 'Live');
    const live = await graphql(gw, 'query($id: ID!) { dataset(id: $id) { status denormSources { id } } }', { id });
    expect(live.data!.dataset).toEqual({ status: 'LIVE', denormSources: [] });
  });

  it('refuses a failed LIVE as a whole: a denorm source retired after READY_TO_PUBLISH gives DEPENDENT_MASTER_DATA_NOT_LIVE and the draft stays ReadyToPublish', async () => {
    await seedMaster(gw, 'users-retired-late');
    await seedDataset(gw, 'orders-late', 'ReadyToPublish', { denorm_config: { denorm_fields: [denormField('users-retired-late')] } });
    await transition(gw, 'users-retired-late', 'Retired');
    const before = await storedVersions(gw, 'orders-late');
    expectFailure(await move('orders-late', 'LIVE'), 'DEPENDENT_MASTER_DATA_NOT_LIVE', /users-retired-late/);
    expect(await storedVersions(gw, 'orders-late')).toEqual(before);
    expect(await storedStatuses(gw, 'orders-late')).toEqual([['draft', 'ReadyToPublish']]);
  });

  it('runs LIVE in one transaction: when its last step fails in the database, no Live row is left and the draft is as it was', async () => {
    await seedDataset(gw, 'tx-live', 'ReadyToPublish');
    const before = await storedVersions(gw, 'tx-live');
    await gw.sql(`CREATE OR REPLACE FUNCTION refuse_tx_live_draft_delete() RETURNS trigger AS $$
      BEGIN
        IF OLD.dataset_id = 'tx-live' AND OLD.stage = 'draft' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN OLD;
      END $$ LANGUAGE plpgsql`);
    await gw.sql('CREATE TRIGGER refuse_tx_live_draft_delete BEFORE DELETE ON datasets FOR EACH ROW EXECUTE FUNCTION refuse_tx_live_draft_delete()');
    try {
      const response = await move('tx-live', 'LIVE');
      expect(errorCode(response)).toBe('INTERNAL_SERVER_ERROR');
      expect(response.errors![0]!.message).not.toMatch(/injected failure/);
    } finally {
      await gw.sql('DROP TRIGGER refuse_tx_live_draft_delete ON datasets');
    }
    expect(await storedVersions(gw, 'tx-live')).toEqual(before);
    expect((await move('tx-live', 'LIVE')).errors).toBeUndefined();
  });

  it('runs DELETE in one transaction: when removing the Live version fails, the draft is kept too', async () => {
    await seedDataset(gw, 'tx-delete', 'LiveWithDraft');
    const before = await storedVersions(gw, 'tx-delete');
    await gw.sql(`CREATE OR REPLACE FUNCTION refuse_tx_delete_live() RETURNS trigger AS $$
      BEGIN
        IF OLD.dataset_id = 'tx-delete' AND OLD.stage = 'live' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN OLD;
      END $$ LANGUAGE plpgsql`);
    await gw.sql('CREATE TRIGGER refuse_tx_delete_live BEFORE DELETE ON datasets FOR EACH ROW EXECUTE FUNCTION refuse_tx_delete_live()');
    try {
      expect(errorCode(await move('tx-delete', 'DELETE'))).toBe('INTERNAL_SERVER_ERROR');
    } finally {
      await gw.sql('DROP TRIGGER refuse_tx_delete_live ON datasets');
    }
    expect(await storedVersions(gw, 'tx-delete')).toEqual(before);
  });
});

describe('importDataset(definition, overwrite)', () => {
  it('imports a new definition as a Draft of version 1, answering {id, versionKey, message} and the stored draft', async () => {
    const def = definition('import-new', { transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    const response = await importDef(def);
    expect(response.errors).toBeUndefined();
    const imported = response.data!.importDataset as { id: string; versionKey: string; message: string; ignoredFields: Json | null; dataset: Dataset & { definition: Json } };
    expect(imported).toMatchObject({ id: 'import-new', message: 'Dataset is imported successfully', ignoredFields: null });
    expect(imported.versionKey).toMatch(NUMERIC_TEXT);
    expect(imported.dataset).toMatchObject({ id: 'import-new', status: 'DRAFT', stage: 'DRAFT', version: 1, versionKey: imported.versionKey, apiVersion: 'v2' });
    expect(imported.dataset.definition).toMatchObject({
      dataset_id: 'import-new',
      name: def.name,
      type: 'event',
      status: 'Draft',
      tags: def.tags,
      data_schema: def.data_schema,
      dataset_config: def.dataset_config,
      dedup_config: def.dedup_config,
      validation_config: def.validation_config,
      transformations_config: [GOOD_TRANSFORMATION],
      connectors_config: [GOOD_CONNECTOR],
    });
    expect(await storedStatuses(gw, 'import-new')).toEqual([['draft', 'Draft']]);
    expect((await readOk('import-new', { version: 'DRAFT' })).definition).toEqual(imported.dataset.definition);
  });

  it('replaces an existing draft by default (overwrite defaults to true), keeping one draft', async () => {
    const first = await importDef(definition('import-overwrite', { name: 'First Name' }));
    await sleep(5);
    const second = await importDef(definition('import-overwrite', { name: 'Second Name' }));
    expect(second.errors).toBeUndefined();
    expect(second.data!.importDataset.versionKey).not.toBe(first.data!.importDataset.versionKey);
    await sleep(5);
    const third = await importDef(definition('import-overwrite', { name: 'Third Name' }), true);
    expect(third.errors).toBeUndefined();
    expect(await storedStatuses(gw, 'import-overwrite')).toEqual([['draft', 'Draft']]);
    expect(await readOk('import-overwrite', { version: 'DRAFT' })).toMatchObject({ name: 'Third Name', version: 1, versionKey: third.data!.importDataset.versionKey });
  });

  it('returns DATASET_EXISTS (CONFLICT) naming the id when overwrite is false and a draft exists, and leaves the draft as it was', async () => {
    await importDataset(gw, definition('import-no-overwrite', { name: 'Kept Name' }));
    const before = await storedVersions(gw, 'import-no-overwrite');
    expectFailure(await importDef(definition('import-no-overwrite', { name: 'Refused Name' }), false), 'DATASET_EXISTS', /import-no-overwrite/);
    expect(await storedVersions(gw, 'import-no-overwrite')).toEqual(before);
  });

  it('imports with overwrite false when no draft exists yet', async () => {
    expect((await importDef(definition('import-fresh-no-overwrite'), false)).errors).toBeUndefined();
    expect(await storedStatuses(gw, 'import-fresh-no-overwrite')).toEqual([['draft', 'Draft']]);
  });

  it('imports over a Live dataset as a new Draft of version live + 1, leaving the Live version untouched', async () => {
    await seedDataset(gw, 'import-over-live', 'Live');
    const live = await storedVersion(gw, 'import-over-live', 'live');
    const response = await importDef(definition('import-over-live', { name: 'Edited By Import' }), false);
    expect(response.errors).toBeUndefined();
    expect(response.data!.importDataset.dataset).toMatchObject({ name: 'Edited By Import', status: 'DRAFT', version: 2 });
    expect(await storedStatuses(gw, 'import-over-live')).toEqual([['live', 'Live'], ['draft', 'Draft']]);
    expect(await storedVersion(gw, 'import-over-live', 'live')).toEqual(live);
    expect(await readOk('import-over-live')).toMatchObject({ status: 'LIVE', version: 1 });
  });

  it('numbers a draft imported over a v1 Live of version 3 as version 4', async () => {
    await insertV1Live(gw, 'import-over-v3', { version: 3 });
    const response = await importDef(definition('import-over-v3'));
    expect(response.errors).toBeUndefined();
    expect(response.data!.importDataset.dataset.version).toBe(4);
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
    const response = await importDef(def);
    expect(response.errors).toBeUndefined();
    const imported = response.data!.importDataset as { id: string; ignoredFields: Json | null; dataset: Dataset & { definition: Json } };
    expect(imported.id).toBe(id);
    const ignored = (imported.ignoredFields?.dataset_config ?? []) as { config: Json; details: string }[];
    const ignoredKeys = ignored.flatMap((item) => Object.keys(item.config));
    expect(ignoredKeys).toEqual(expect.arrayContaining(['exclude_fields', 'index_data']));
    for (const carried of ['data_key', 'timestamp_key', 'redis_db_host', 'cache_db_host', 'redis_db_port', 'cache_db_port', 'redis_db', 'cache_db', 'file_upload_path']) {
      expect(ignoredKeys).not.toContain(carried);
    }
    expect(ignored.find((item) => 'index_data' in item.config)).toEqual({ config: { index_data: true }, details: expect.any(String) });

    expect(imported.dataset.apiVersion).toBe('v2');
    expect(imported.dataset.datasetConfig).toEqual({
      keys_config: { data_key: 'userid', partition_key: '', timestamp_key: 'event.ts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: true },
      cache_config: { cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 5 },
      file_upload_path: ['uploads/a'],
    });
    expect(imported.dataset.definition.denorm_config).toMatchObject({ cache_db_host: 'denorm.internal', cache_db_port: 6381 });
    expect(imported.dataset.entryTopic).toBe('legacy.ingest');
    const stored = await storedVersion(gw, id, 'draft');
    expect(`${stored.dataset_config}${stored.denorm_config}`).not.toMatch(/redis_db/);
  });

  it('accepts the original redis_db_* names in a v2 cache_config and denorm_config, and stores the cache_db_* names', async () => {
    const def = definition('import-redis-names');
    def.dataset_config.cache_config = { redis_db_host: 'cache.internal', redis_db_port: 6380, redis_db: 3 };
    def.denorm_config = { redis_db_host: 'denorm.internal', redis_db_port: 6381, denorm_fields: [] };
    const response = await importDef(def);
    expect(response.errors).toBeUndefined();
    const dataset = response.data!.importDataset.dataset as Dataset & { definition: Json };
    expect(dataset.datasetConfig.cache_config).toEqual({ cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 3 });
    expect(dataset.definition.denorm_config).toMatchObject({ cache_db_host: 'denorm.internal', cache_db_port: 6381 });
    const stored = await storedVersion(gw, 'import-redis-names', 'draft');
    expect(`${stored.dataset_config}${stored.denorm_config}`).not.toMatch(/redis_db/);
  });

  it('drops bad transformations and connectors, lists each with the reason, and says "Dataset is partially imported"', async () => {
    const badTransformation = { field_key: 'no_mode', transformation_function: { type: 'mask', expr: 'email' } };
    const badConnector = { id: 'broken', connector_id: 'kafka-connector-1.0.0' };
    const response = await importDef(
      definition('import-partial', { transformations_config: [GOOD_TRANSFORMATION, badTransformation], connectors_config: [badConnector, GOOD_CONNECTOR] }),
    );
    expect(response.errors).toBeUndefined();
    const imported = response.data!.importDataset as { message: string; ignoredFields: Json; dataset: { definition: Json } };
    expect(imported.message).toBe('Dataset is partially imported');
    expect(imported.ignoredFields).toEqual({
      transformations: [{ config: badTransformation, details: expect.stringMatching(/mode/) }],
      connectors: [{ config: badConnector, details: expect.stringMatching(/connector_config/) }],
    });
    expect(imported.dataset.definition.transformations_config).toEqual([GOOD_TRANSFORMATION]);
    expect(imported.dataset.definition.connectors_config).toEqual([GOOD_CONNECTOR]);
  });

  it('drops a denorm field that points at the dataset itself and lists it', async () => {
    const field = denormField('import-self-ref');
    const response = await importDef(definition('import-self-ref', { denorm_config: { denorm_fields: [field] } }));
    expect(response.errors).toBeUndefined();
    expect(response.data!.importDataset.message).toBe('Dataset is partially imported');
    expect(response.data!.importDataset.ignoredFields.denorm_fields).toEqual([{ config: field, details: expect.any(String) }]);
  });

  it('keeps a denorm field that points at a Live master', async () => {
    await seedMaster(gw, 'import-live-master');
    const field = denormField('import-live-master');
    const response = await importDef(definition('import-with-denorm', { denorm_config: { denorm_fields: [field] } }));
    expect(response.errors).toBeUndefined();
    expect(response.data!.importDataset).toMatchObject({ message: 'Dataset is imported successfully', ignoredFields: null });
    expect(response.data!.importDataset.dataset.definition.denorm_config.denorm_fields).toEqual([field]);
  });

  it('accepts back as is the definition a draft read returns (contract 2.1: the import payload is what draft reads give)', async () => {
    await seedDataset(gw, 'round-trip', 'Draft', { transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    const exported = (await readOk('round-trip', { version: 'DRAFT' })).definition;
    await transition(gw, 'round-trip', 'Delete');
    const response = await importDef(exported);
    expect(response.errors).toBeUndefined();
    expect(response.data!.importDataset.id).toBe('round-trip');
    const strip = ({ version_key: _k, created_date: _c, updated_date: _u, ...rest }: Json) => rest;
    expect(strip(response.data!.importDataset.dataset.definition)).toEqual(strip(exported));
  });

  it('refuses an overwrite value that is not a Boolean at the type level, and stores nothing', async () => {
    const response = await graphql(gw, 'mutation($d: JSON!) { importDataset(definition: $d, overwrite: "yes") { id } }', { d: definition('import-odd-overwrite') });
    expectRefusedByGraphQL(response, /Boolean/);
    expect(await storedVersions(gw, 'import-odd-overwrite')).toEqual([]);
  });

  it.each<[string, (id: string) => Json, RegExp]>([
    ['name is a number', (id) => definition(id, { name: 5 }), /\/name\b/],
    ['type is "stream"', (id) => definition(id, { type: 'stream' }), /\/type\b/],
    ['data_schema has no properties', (id) => ({ ...definition(id), data_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } }), /data_schema.*properties|properties.*data_schema/],
    ['tags is a string', (id) => definition(id, { tags: 'one' }), /\/tags\b/],
    ['dataset_config lacks keys_config', (id) => ({ ...definition(id), dataset_config: { indexing_config: { olap_store_enabled: true } } }), /keys_config/],
    ['dataset_id is missing', (id) => { const { dataset_id: _, ...rest } = definition(id); return rest; }, /dataset_id/],
  ])('returns DATASET_IMPORT_INVALID_CONFIGS naming the path when %s, and stores nothing', async (label, build, message) => {
    const id = `bad-${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`.replace(/-$/, '');
    expectFailure(await importDef(build(id)), 'DATASET_IMPORT_INVALID_CONFIGS', message);
    expect(await storedVersions(gw, id)).toEqual([]);
  });

  it.each<[string, (id: string) => Json, RegExp]>([
    ['a string value', (id) => definition(id, { name: 'bad\u0000name' }), /NUL.*at \/name\b/],
    ['a nested string value', (id) => definition(id, { sample_data: { deep: { text: 'a\u0000b' } } }), /NUL.*at \/sample_data\/deep\/text\b/],
    ['an object key', (id) => definition(id, { sample_data: { 'k\u0000': 1 } }), /NUL.*at \/sample_data\/k\\u0000/],
  ])('returns DATASET_IMPORT_INVALID_CONFIGS naming the path when %s holds a NUL character, and stores nothing', async (label, build, message) => {
    const id = `nul-${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
    expectFailure(await importDef(build(id)), 'DATASET_IMPORT_INVALID_CONFIGS', message);
    expect(await storedVersions(gw, id)).toEqual([]);
  });

  it.each<[string, string, (id: string) => Json]>([
    ['dataset_config', 'dataset_config|keys_config', (id) => ({ ...definition(id), dataset_config: { ...definition(id).dataset_config, keys_config: nested(200) } })],
    ['data_schema', 'data_schema', (id) => definition(id, { data_schema: { properties: { deep: nested(200) } } })],
    ['sample_data', 'sample_data', (id) => definition(id, { sample_data: nested(200) })],
    ['connector config', 'connector', (id) => definition(id, { connectors_config: [{ ...GOOD_CONNECTOR, connector_config: nested(200) }] })],
  ])('returns a clear DATASET_IMPORT_INVALID_CONFIGS (never an internal error) for a 200-level nested %s, and stores nothing', async (label, part, build) => {
    const id = `deep-${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`;
    expectFailure(await importDef(build(id)), 'DATASET_IMPORT_INVALID_CONFIGS', new RegExp(`${part}|deep|depth|nest`, 'i'));
    expect(await storedVersions(gw, id)).toEqual([]);
  });
});

describe('dataset(id, version, status)', () => {
  it('returns the Live version by default, its definition holding the record of contract 2.1', async () => {
    const def = definition('read-live', { tags: ['alpha', 'beta'], transformations_config: [GOOD_TRANSFORMATION], connectors_config: [GOOD_CONNECTOR] });
    await importDataset(gw, def);
    await transition(gw, 'read-live', 'ReadyToPublish');
    await transition(gw, 'read-live', 'Live');
    const dataset = await readOk('read-live');
    expect(dataset).toMatchObject({ id: 'read-live', name: def.name, type: 'EVENT', status: 'LIVE', stage: 'LIVE', tags: ['alpha', 'beta'], version: 1, apiVersion: 'v2', datasetConfig: def.dataset_config });
    expect(dataset.definition).toMatchObject({
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
    expect(Object.keys((await readOk('read-live', { fields: RECORD_FIELDS })).definition)).toEqual(RECORD_FIELDS);
  });

  it('narrows definition to fields', async () => {
    await seedDataset(gw, 'read-narrow', 'Live');
    expect((await readOk('read-narrow', { fields: ['name', 'version'] })).definition).toEqual({ name: 'Dataset read-narrow', version: 1 });
    expect((await readOk('read-narrow', { fields: ['router_config'] })).definition).toEqual({ router_config: { topic: 'read-narrow' } });
  });

  it('returns DATASET_INVALID_FIELDS naming a requested field the dataset does not have', async () => {
    await seedDataset(gw, 'read-bad-field', 'Live');
    const response = await readDataset('read-bad-field', { fields: ['name', 'colour'] });
    expectFailure(response, 'DATASET_INVALID_FIELDS', /colour/);
    expect(response.errors![0]!.message).not.toMatch(/\bname\b/);
    expect(response.errors![0]!.path).toEqual(['dataset', 'definition']);
  });

  it('picks the version with version: DRAFT or status:, the Live one by default', async () => {
    await seedDataset(gw, 'read-by-status', 'LiveWithDraft');
    expect(await readOk('read-by-status', { version: 'DRAFT' })).toMatchObject({ status: 'DRAFT', stage: 'DRAFT', version: 2 });
    expect(await readOk('read-by-status', { status: 'DRAFT' })).toMatchObject({ status: 'DRAFT', version: 2 });
    expect(await readOk('read-by-status', { status: 'LIVE' })).toMatchObject({ status: 'LIVE', version: 1 });
    expect(await readOk('read-by-status', { version: 'LIVE' })).toMatchObject({ status: 'LIVE', version: 1 });
    expect(await readOk('read-by-status')).toMatchObject({ status: 'LIVE', stage: 'LIVE', version: 1 });
    expectFailure(await readDataset('read-by-status', { status: 'RETIRED' }), 'DATASET_NOT_FOUND', /read-by-status/);
  });

  it('refuses a status that is not a dataset status at the type level (DatasetStatus enum)', async () => {
    expectRefusedByGraphQL(await readDataset('read-odd-status', { status: 'PUBLISHED' }), /PUBLISHED/);
  });

  it('returns DATASET_NOT_FOUND (NOT_FOUND) naming an id that does not exist, and for a dataset that has no Live version, with dataset null', async () => {
    const missing = await readDataset('read-missing');
    expectFailure(missing, 'DATASET_NOT_FOUND', /read-missing/);
    expect(missing.data).toEqual({ dataset: null });
    await seedDataset(gw, 'read-draft-only', 'Draft');
    expectFailure(await readDataset('read-draft-only'), 'DATASET_NOT_FOUND', /read-draft-only/);
  });

  it.each<[string, 'v1' | null]>([
    ['v1', 'v1'],
    ['null', null],
  ])('returns the flat dataset_config of an api_version %s Live record byte for byte, with the cache_db_* names', async (label, apiVersion) => {
    const id = `read-v1-${label}`;
    const configText = await insertV1Live(gw, id, { apiVersion });
    const response = await gw.http
      .post('/graphql')
      .send({ query: 'query($id: ID!) { dataset(id: $id) { id status version apiVersion datasetConfig definition(fields: ["dataset_config"]) } }', variables: { id } });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.text).toContain(`"datasetConfig":${configText}`);
    expect(response.text).toContain(`"definition":{"dataset_config":${configText}}`);
    expect(response.body.data.dataset).toMatchObject({ id, status: 'LIVE', version: 3, apiVersion });
    expect(Object.keys(response.body.data.dataset.datasetConfig)).toEqual(Object.keys(flatConfig()));
  });

  it('returns the original redis_db_* names of an old record as cache_db_*, in the same places', async () => {
    const stored = { data_key: '', timestamp_key: 'ts', redis_db_host: 'old.cache', redis_db_port: 6379, index_data: true, redis_db: 2 };
    await insertV1Live(gw, 'read-v1-redis', { datasetConfig: stored });
    const dataset = await readOk('read-v1-redis', { fields: ['dataset_config'] });
    const expected = JSON.stringify({ data_key: '', timestamp_key: 'ts', cache_db_host: 'old.cache', cache_db_port: 6379, index_data: true, cache_db: 2 });
    expect(JSON.stringify(dataset.definition.dataset_config)).toBe(expected);
    expect(JSON.stringify(dataset.datasetConfig)).toBe(expected);
  });
});

describe('editDataset(id)', () => {
  it('on a Live dataset without a draft, creates a Draft of version + 1 and returns it, leaving Live untouched', async () => {
    await seedDataset(gw, 'read-edit', 'Live');
    const live = await storedVersion(gw, 'read-edit', 'live');
    const draft = await editOk('read-edit');
    expect(draft).toMatchObject({ id: 'read-edit', status: 'DRAFT', stage: 'DRAFT', version: 2, apiVersion: 'v2', datasetConfig: definition('read-edit').dataset_config });
    expect(draft.versionKey).toMatch(NUMERIC_TEXT);
    expect(await storedStatuses(gw, 'read-edit')).toEqual([['live', 'Live'], ['draft', 'Draft']]);
    expect(await storedVersion(gw, 'read-edit', 'live')).toEqual(live);
  });

  it('twice returns the same draft (same versionKey), creating only one', async () => {
    await seedDataset(gw, 'read-edit-twice', 'Live');
    const first = await editOk('read-edit-twice');
    const second = await editOk('read-edit-twice');
    expect(second.versionKey).toBe(first.versionKey);
    expect(second).toEqual(first);
    expect(await countRows('dataset_id = $1', ['read-edit-twice'])).toBe(2);
  });

  it('returns an existing draft as it is, its definition narrowed by fields', async () => {
    const imported = await importDataset(gw, definition('read-edit-existing', { name: 'Existing Draft' }));
    expect((await editOk('read-edit-existing', ['name', 'version_key', 'status'])).definition).toEqual({
      name: 'Existing Draft',
      version_key: imported.data.version_key,
      status: 'Draft',
    });
  });

  it('returns DATASET_NOT_FOUND for an id that does not exist, creating nothing', async () => {
    expectFailure(await edit('read-edit-missing'), 'DATASET_NOT_FOUND', /read-edit-missing/);
    expect(await storedVersions(gw, 'read-edit-missing')).toEqual([]);
  });

  it('on a v1 Live record creates a v2 Draft (nested config, version + 1) and leaves the v1 record as stored', async () => {
    const configText = await insertV1Live(gw, 'read-v1-edit', { type: 'master' });
    const draft = await editOk('read-v1-edit');
    expect(draft).toMatchObject({ id: 'read-v1-edit', status: 'DRAFT', version: 4, apiVersion: 'v2', type: 'MASTER', entryTopic: 'local.ingest' });
    expect(draft.datasetConfig).toEqual({
      keys_config: { data_key: 'userid', partition_key: '', timestamp_key: 'obsrv_meta.syncts' },
      indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: true },
      cache_config: { cache_db_host: 'cache.internal', cache_db_port: 6380, cache_db: 7 },
      file_upload_path: ['uploads/old'],
    });
    expect(JSON.stringify(draft.definition.denorm_config)).not.toMatch(/redis_db/);
    expect((await storedVersion(gw, 'read-v1-edit', 'live')).dataset_config).toBe(configText);
    expect(JSON.stringify((await readOk('read-v1-edit')).datasetConfig)).toBe(configText);
    await transition(gw, 'read-v1-edit', 'ReadyToPublish');
    await transition(gw, 'read-v1-edit', 'Live');
    expect(await readOk('read-v1-edit')).toMatchObject({ version: 4, apiVersion: 'v2', status: 'LIVE' });
  });

  it('on a Retired dataset creates a Draft from it', async () => {
    await seedDataset(gw, 'read-edit-retired', 'Retired');
    expect(await editOk('read-edit-retired')).toMatchObject({ status: 'DRAFT', version: 2 });
  });
});

describe('datasets(filter, first, after)', () => {
  beforeAll(async () => {
    await seedDataset(gw, 'list-draft', 'Draft');
    await seedDataset(gw, 'list-ready', 'ReadyToPublish');
    await seedDataset(gw, 'list-live', 'Live');
    await seedDataset(gw, 'list-retired', 'Retired');
    await seedDataset(gw, 'list-both', 'LiveWithDraft');
    await seedMaster(gw, 'list-master');
    await seedMaster(gw, 'list-master-draft', 'Draft');
  });

  const pairs = (nodes: { id: string; status: string }[]) => nodes.map((node) => `${node.id}:${node.status}`);

  async function storedPairs(where = 'TRUE', values: unknown[] = []): Promise<string[]> {
    const rows = await gw.sql<{ dataset_id: string; status: string }>(`SELECT dataset_id, status FROM datasets WHERE ${where}`, values);
    return rows.rows.map((row) => `${row.dataset_id}:${STATUS[row.status]}`);
  }

  function expectLiveFirst(nodes: Dataset[]): void {
    const live = nodes.map((node, index) => (LIVE_STATUSES.includes(node.status) ? index : -1)).filter((index) => index >= 0);
    const drafts = nodes.map((node, index) => (LIVE_STATUSES.includes(node.status) ? -1 : index)).filter((index) => index >= 0);
    if (live.length > 0 && drafts.length > 0) expect(Math.max(...live)).toBeLessThan(Math.min(...drafts));
  }

  it('lists every version in every status without a filter, Live versions before drafts, with totalCount', async () => {
    const page = await listOk();
    expect(pairs(page.nodes).sort()).toEqual((await storedPairs()).sort());
    expect(page.totalCount).toBe(await countRows());
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(pairs(page.nodes)).toEqual(expect.arrayContaining(['list-both:LIVE', 'list-both:DRAFT', 'list-retired:RETIRED', 'list-ready:READY_TO_PUBLISH']));
    expect(page.edges.map((edge) => edge.node.id)).toEqual(page.nodes.map((node) => node.id));
    expectLiveFirst(page.nodes);
  });

  it('gives each node the fields of contract 2.1', async () => {
    const page = await listOk({ filter: { status: ['LIVE'] } });
    const node = page.nodes.find((item) => item.id === 'list-live')!;
    expect(node).toMatchObject({ id: 'list-live', name: 'Dataset list-live', type: 'EVENT', status: 'LIVE', stage: 'LIVE', tags: ['test'], version: 1, apiVersion: 'v2' });
    expect(node.datasetConfig).toEqual(definition('list-live').dataset_config);
  });

  it('filters on a list of statuses', async () => {
    const page = await listOk({ filter: { status: ['DRAFT', 'READY_TO_PUBLISH'] } });
    expect(pairs(page.nodes).sort()).toEqual((await storedPairs("status IN ('Draft', 'ReadyToPublish')")).sort());
    expect(page.totalCount).toBe(page.nodes.length);
    expect(pairs(page.nodes)).toEqual(expect.arrayContaining(['list-draft:DRAFT', 'list-ready:READY_TO_PUBLISH', 'list-both:DRAFT']));
  });

  it('filters on a single status (GraphQL coerces one value to a list)', async () => {
    const page = await listOk({ filter: { status: 'RETIRED' } });
    expect(pairs(page.nodes).sort()).toEqual((await storedPairs("status = 'Retired'")).sort());
    expect(pairs(page.nodes)).toContain('list-retired:RETIRED');
  });

  it('filters on type, alone and with status', async () => {
    const masters = await listOk({ filter: { type: 'MASTER' } });
    expect(pairs(masters.nodes).sort()).toEqual((await storedPairs("type = 'master'")).sort());
    expect(pairs(masters.nodes)).toEqual(expect.arrayContaining(['list-master:LIVE', 'list-master-draft:DRAFT']));
    expectLiveFirst(masters.nodes);
    const liveMasters = await listOk({ filter: { type: 'MASTER', status: ['LIVE'] } });
    expect(pairs(liveMasters.nodes).sort()).toEqual((await storedPairs("type = 'master' AND status = 'Live'")).sort());
    expect(liveMasters.totalCount).toBe(liveMasters.nodes.length);
  });

  it('pages with first and after: the pages together are the whole list in order, totalCount on every page', async () => {
    const whole = await listOk();
    const seen: string[] = [];
    let after: string | null = null;
    for (let pageNumber = 0; pageNumber < 100; pageNumber += 1) {
      const page: Connection = await listOk({ first: 3, after });
      expect(page.totalCount).toBe(whole.totalCount);
      expect(page.nodes.length).toBeLessThanOrEqual(3);
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      seen.push(...pairs(page.nodes));
      if (!page.pageInfo.hasNextPage) break;
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)!.cursor);
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(pairs(whole.nodes));
  });

  it('refuses a status or type outside the enums at the type level', async () => {
    expectRefusedByGraphQL(await listDatasets({ filter: { status: ['LIVE', 'PUBLISHED'] } }), /PUBLISHED/);
    expectRefusedByGraphQL(await listDatasets({ filter: { type: 'STREAM' } }), /STREAM/);
  });

  it.each<[string, Json]>([
    ['a negative page size', { first: -1 }],
    ['a cursor this list did not give', { after: 'not-a-cursor' }],
  ])('returns DATASET_LIST_INPUT_INVALID for %s', async (_, variables) => {
    expectFailure(await listDatasets(variables), 'DATASET_LIST_INPUT_INVALID', /first|after|cursor|page/);
  });
});

describe('nested live, draft and denormSources', () => {
  it('resolves live and draft from either version of a dataset', async () => {
    await seedDataset(gw, 'nested-both', 'LiveWithDraft');
    const query = `query($id: ID!, $version: DatasetVersion) {
      dataset(id: $id, version: $version) { stage version live { stage status version } draft { stage status version } }
    }`;
    const fromLive = await graphql(gw, query, { id: 'nested-both', version: 'LIVE' });
    expect(fromLive.errors).toBeUndefined();
    expect(fromLive.data!.dataset).toEqual({
      stage: 'LIVE',
      version: 1,
      live: { stage: 'LIVE', status: 'LIVE', version: 1 },
      draft: { stage: 'DRAFT', status: 'DRAFT', version: 2 },
    });
    const fromDraft = await graphql(gw, query, { id: 'nested-both', version: 'DRAFT' });
    expect(fromDraft.data!.dataset).toEqual({
      stage: 'DRAFT',
      version: 2,
      live: { stage: 'LIVE', status: 'LIVE', version: 1 },
      draft: { stage: 'DRAFT', status: 'DRAFT', version: 2 },
    });
  });

  it('gives null for the version a dataset does not have', async () => {
    await seedDataset(gw, 'nested-draft-only', 'Draft');
    const response = await graphql(gw, 'query($id: ID!) { dataset(id: $id, version: DRAFT) { live { version } draft { version } } }', { id: 'nested-draft-only' });
    expect(response.data!.dataset).toEqual({ live: null, draft: { version: 1 } });
  });

  it('resolves denormSources to the Live masters a dataset denormalises from, on every node of a list', async () => {
    await seedMaster(gw, 'nested-users');
    await seedMaster(gw, 'nested-shops');
    await seedDataset(gw, 'nested-orders', 'Live', {
      denorm_config: { denorm_fields: [denormField('nested-users', 'user'), denormField('nested-shops', 'shop')] },
    });
    await seedDataset(gw, 'nested-plain', 'Live');
    const single = await graphql(gw, 'query { dataset(id: "nested-orders") { denormSources { id type status stage } } }');
    expect(single.errors).toBeUndefined();
    const sources = (single.data!.dataset.denormSources as Json[]).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(sources).toEqual([
      { id: 'nested-shops', type: 'MASTER', status: 'LIVE', stage: 'LIVE' },
      { id: 'nested-users', type: 'MASTER', status: 'LIVE', stage: 'LIVE' },
    ]);

    const listed = await graphql(gw, 'query { datasets(filter: { status: [LIVE] }) { nodes { id denormSources { id } live { id } draft { id } } } }');
    expect(listed.errors).toBeUndefined();
    const byId = new Map((listed.data!.datasets.nodes as Json[]).map((node) => [node.id, node]));
    expect((byId.get('nested-orders')!.denormSources as Json[]).map((s) => s.id).sort()).toEqual(['nested-shops', 'nested-users']);
    expect(byId.get('nested-plain')).toEqual({ id: 'nested-plain', denormSources: [], live: { id: 'nested-plain' }, draft: null });
    expect(byId.get('nested-users')!.denormSources).toEqual([]);
  });
});

describe('copyDataset(input)', () => {
  it('copies the Live version into a new Draft of version 1 routed to the destination', async () => {
    await seedDataset(gw, 'copy-live-src', 'Live', { name: 'Copy Source', tags: ['copied'] });
    const before = await storedVersions(gw, 'copy-live-src');
    const response = await copy('copy-live-src', 'LIVE', 'copy-live-dst');
    expect(response.errors).toBeUndefined();
    const copied = response.data!.copyDataset as { message: string; dataset: Dataset & { definition: Json } };
    expect(copied.message).toBe('Dataset clone successful');
    const source = definition('copy-live-src');
    expect(copied.dataset).toMatchObject({ id: 'copy-live-dst', name: 'Copy Source', tags: ['copied'], status: 'DRAFT', stage: 'DRAFT', version: 1, apiVersion: 'v2', datasetConfig: source.dataset_config });
    expect(copied.dataset.definition).toMatchObject({ router_config: { topic: 'copy-live-dst' }, data_schema: source.data_schema });
    expect(await storedStatuses(gw, 'copy-live-dst')).toEqual([['draft', 'Draft']]);
    expect(await storedVersions(gw, 'copy-live-src')).toEqual(before);
  });

  it('copies the Draft (sourceVersion DRAFT) rather than the Live version', async () => {
    await seedDataset(gw, 'copy-draft-src', 'Live', { name: 'Live Name' });
    await importDataset(gw, definition('copy-draft-src', { name: 'Draft Name' }));
    const response = await copy('copy-draft-src', 'DRAFT', 'copy-draft-dst');
    expect(response.errors).toBeUndefined();
    expect(response.data!.copyDataset.dataset).toMatchObject({ id: 'copy-draft-dst', name: 'Draft Name', status: 'DRAFT', version: 1 });
    expect(response.data!.copyDataset.dataset.definition.router_config).toEqual({ topic: 'copy-draft-dst' });
  });

  it('copies a v1 Live record into a v2 Draft with the nested config', async () => {
    await insertV1Live(gw, 'copy-v1-src');
    const response = await copy('copy-v1-src', 'LIVE', 'copy-v1-dst');
    expect(response.errors).toBeUndefined();
    const clone = response.data!.copyDataset.dataset as Dataset;
    expect(clone).toMatchObject({ apiVersion: 'v2', version: 1, status: 'DRAFT' });
    expect(clone.datasetConfig.keys_config).toEqual({ data_key: '', partition_key: '', timestamp_key: 'obsrv_meta.syncts' });
  });

  it('returns DATASET_NOT_EXISTS (NOT_FOUND) when the source does not exist, or has no version of the kind asked for, and stores nothing', async () => {
    expectFailure(await copy('copy-missing-src', 'LIVE', 'copy-missing-dst'), 'DATASET_NOT_EXISTS', /copy-missing-src/);
    expectFailure(await copy('copy-missing-src', 'DRAFT', 'copy-missing-dst'), 'DATASET_NOT_EXISTS', /copy-missing-src/);
    await seedDataset(gw, 'copy-draft-only', 'Draft');
    expectFailure(await copy('copy-draft-only', 'LIVE', 'copy-missing-dst'), 'DATASET_NOT_EXISTS', /copy-draft-only/);
    expect(await storedVersions(gw, 'copy-missing-dst')).toEqual([]);
  });

  it.each<[string, SeedState]>([
    ['a Draft', 'Draft'],
    ['a Live dataset', 'Live'],
  ])('returns DATASET_ALREADY_EXISTS (CONFLICT) naming the destination when it is %s, and leaves it as it was', async (_, state) => {
    const source = `copy-taken-src-${state.toLowerCase()}`;
    const destination = `copy-taken-${state.toLowerCase()}`;
    await seedDataset(gw, source, 'Live');
    await seedDataset(gw, destination, state, { name: 'Already Here' });
    const before = await storedVersions(gw, destination);
    expectFailure(await copy(source, 'LIVE', destination), 'DATASET_ALREADY_EXISTS', new RegExp(destination));
    expect(await storedVersions(gw, destination)).toEqual(before);
  });

  it.each([
    ['empty', ''],
    ['holding a space', 'has space'],
    ['starting with a dot', '.hidden'],
    ['holding a slash', 'a/b'],
    ['longer than 200 characters', 'x'.repeat(201)],
  ])('returns DATASET_COPY_INVALID_INPUT (BAD_REQUEST) when the destination id is %s, as REST does, and stores nothing', async (_, destination) => {
    await seedDataset(gw, 'copy-bad-dst-src', 'Live');
    expectFailure(await copy('copy-bad-dst-src', 'LIVE', destination), 'DATASET_COPY_INVALID_INPUT', /destinationId/);
    expect(await storedVersions(gw, destination)).toEqual([]);
  });

  it('refuses a copy without a destination at the type level', async () => {
    const response = await graphql(gw, 'mutation { copyDataset(input: { sourceId: "x-src", sourceVersion: LIVE }) { message } }');
    expectRefusedByGraphQL(response, /destinationId/);
  });
});

describe('a dataset through its whole lifecycle', () => {
  it('goes Draft, ReadyToPublish, Live, edited, Live again (version 2), Retired, edited, Deleted', async () => {
    await seedDataset(gw, 'life', 'Draft');
    expect((await move('life', 'READY_TO_PUBLISH')).errors).toBeUndefined();
    expect((await move('life', 'LIVE')).errors).toBeUndefined();
    expect((await editOk('life')).version).toBe(2);
    expect((await move('life', 'READY_TO_PUBLISH')).errors).toBeUndefined();
    expect((await move('life', 'LIVE')).errors).toBeUndefined();
    expect(await readOk('life')).toMatchObject({ status: 'LIVE', version: 2 });
    expect((await move('life', 'RETIRED')).errors).toBeUndefined();
    expect((await editOk('life')).version).toBe(3);
    expect(await storedStatuses(gw, 'life')).toEqual([['live', 'Retired'], ['draft', 'Draft']]);
    expect((await move('life', 'DELETE')).errors).toBeUndefined();
    expect(await storedVersions(gw, 'life')).toEqual([]);
  });
});
