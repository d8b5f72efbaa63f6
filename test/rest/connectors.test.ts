// Connectors over the REST compatibility layer (contract 2.4, 4.4, 7, 8; reference §4). Mirrors
// test/graphql/connectors.test.ts rule by rule. Hostile archives: test/rest/connector-archives.test.ts.
// Tests share one database: each registers connectors of its own ids.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { distributionTarGz, distributionZip, garbage, tarGz, uiSpec } from '../support/archives.js';
import { envelope } from '../support/api.js';
import { filesUnder, registerOverRest, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const RESPONSE_CODE: Record<number, string> = { 400: 'BAD_REQUEST', 404: 'NOT_FOUND', 500: 'INTERNAL_SERVER_ERROR' };
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const COMMON_KEYS = [
  'category',
  'connector_id',
  'created_by',
  'created_date',
  'description',
  'iconurl',
  'id',
  'licence',
  'live_date',
  'name',
  'owner',
  'status',
  'type',
  'updated_by',
  'updated_date',
  'version',
];
const LIST_KEYS = [...COMMON_KEYS, 'runtime', 'technology'].sort();
const READ_KEYS = [...COMMON_KEYS, 'ui_spec'].sort();
const BUILT_INS = ['kafka-connector-1.0.0', 'mysql-connector-1.0.0', 'object-store-connector-1.0.0', 'postgres-connector-1.0.0'];

type ConnectorRecord = Record<string, any>;

function list(request?: Record<string, unknown>): Promise<Response> {
  return gw.http.post('/v2/connectors/list').send(envelope('api.connectors.list', request));
}

async function listOk(request?: Record<string, unknown>): Promise<{ data: ConnectorRecord[]; count: number }> {
  const response = await list(request);
  expect(response.status).toBe(200);
  return response.body.result as { data: ConnectorRecord[]; count: number };
}

function read(id: string, mode?: string): Promise<Response> {
  return gw.http.get(`/v2/connectors/read/${encodeURIComponent(id)}${mode === undefined ? '' : `?mode=${encodeURIComponent(mode)}`}`);
}

async function readOk(id: string): Promise<ConnectorRecord> {
  const response = await read(id);
  expect(response.status).toBe(200);
  return response.body.result as ConnectorRecord;
}

async function registerOk(bytes: Buffer, filename: string): Promise<void> {
  const response = await registerOverRest(gw, bytes, filename);
  expect({ status: response.status, error: response.body.error }).toEqual({ status: 200, error: undefined });
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

async function statusOf(id: string): Promise<string | undefined> {
  const rows = await gw.sql<{ status: string }>('SELECT status FROM connector_registry WHERE id = $1', [id]);
  return rows.rows[0]?.status;
}

async function insertDraft(id: string, connectorId: string, version: string): Promise<void> {
  await gw.sql(
    `INSERT INTO connector_registry (id, connector_id, name, type, category, version, technology, runtime, status, ui_spec, created_by, updated_by)
     VALUES ($1, $2, 'Draft One', 'source', 'File', $3, 'python', 'spark', 'Draft', $4, 'SYSTEM', 'SYSTEM')`,
    [id, connectorId, version, JSON.stringify(uiSpec('Draft One'))],
  );
}

// ---------------------------------------------------------------------------------------------

describe('POST /v2/connectors/list', () => {
  it('lists every connector without filters as {data, count}, the built-in ones included', async () => {
    const result = await listOk();
    const total = await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM connector_registry');
    expect(result.count).toBe(total.rows[0]!.n);
    expect(result.data).toHaveLength(result.count);
    expect(result.data.map((connector) => connector.id)).toEqual(expect.arrayContaining(BUILT_INS));
  });

  it('gives technology and runtime but no ui_spec in list results, dates in ISO 8601 UTC', async () => {
    const { data } = await listOk();
    for (const connector of data) expect(Object.keys(connector).sort()).toEqual(LIST_KEYS);
    const postgres = data.find((connector) => connector.id === 'postgres-connector-1.0.0')!;
    expect(postgres).toMatchObject({ connector_id: 'postgres-connector', version: '1.0.0', category: 'Database', type: 'source', status: 'Live', technology: 'scala', runtime: 'spark' });
    expect(postgres.created_date).toMatch(ISO_UTC);
    expect(postgres.live_date).toMatch(ISO_UTC);
  });

  it('seeds at least a PostgreSQL, a MySQL, a Kafka and an object-store connector, each Live', async () => {
    const { data } = await listOk({ filters: { status: ['Live'] } });
    const byId = new Map(data.map((connector) => [connector.id, connector]));
    expect(byId.get('postgres-connector-1.0.0')?.category).toBe('Database');
    expect(byId.get('mysql-connector-1.0.0')?.category).toBe('Database');
    expect(byId.get('kafka-connector-1.0.0')?.category).toBe('Stream');
    expect(byId.get('object-store-connector-1.0.0')?.category).toBe('File');
  });

  it('lists only connectors with a status in filters.status', async () => {
    await insertDraft('list-draft-0.1.0', 'list-draft', '0.1.0');
    const drafts = await listOk({ filters: { status: ['Draft'] } });
    expect(drafts.data.map((connector) => connector.id)).toContain('list-draft-0.1.0');
    for (const connector of drafts.data) expect(connector.status).toBe('Draft');
    const live = await listOk({ filters: { status: ['Live'] } });
    expect(live.data.map((connector) => connector.id)).not.toContain('list-draft-0.1.0');
    const both = await listOk({ filters: { status: ['Live', 'Draft'] } });
    expect(both.count).toBe(live.count + drafts.count);
  });

  it('lists only connectors of a category in filters.category, and combines it with status', async () => {
    const files = await listOk({ filters: { category: ['File'] } });
    expect(files.data.length).toBeGreaterThan(0);
    for (const connector of files.data) expect(connector.category).toBe('File');
    const liveFiles = await listOk({ filters: { category: ['File'], status: ['Live'] } });
    expect(liveFiles.data.map((connector) => connector.id)).toContain('object-store-connector-1.0.0');
    for (const connector of liveFiles.data) expect(connector).toMatchObject({ category: 'File', status: 'Live' });
  });

  it('pages with limit and offset while count stays the total', async () => {
    const all = await listOk();
    const page = await listOk({ limit: 2, offset: 1 });
    expect(page.count).toBe(all.count);
    expect(page.data.map((connector) => connector.id)).toEqual(all.data.slice(1, 3).map((connector) => connector.id));
  });

  it('returns 400 CONNECTORS_LIST_INPUT_INVALID when filters.status is empty, naming the path', async () => {
    const response = await list({ filters: { status: [] } });
    expectFailure(response, 400, 'CONNECTORS_LIST_INPUT_INVALID', /#properties\/request\/properties\/filters\/properties\/status\/minItems must NOT have fewer than 1 items/);
  });

  it('returns 400 CONNECTORS_LIST_INPUT_INVALID for an unknown status, category or filter key', async () => {
    expectFailure(await list({ filters: { status: ['Published'] } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /status.*enum/);
    expectFailure(await list({ filters: { category: ['Spreadsheet'] } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /category.*enum/);
    expectFailure(await list({ filters: { owner: 'me' } }), 400, 'CONNECTORS_LIST_INPUT_INVALID', /'owner'/);
  });
});

describe('GET /v2/connectors/read/:id', () => {
  it('returns the Live record with ui_spec and without technology or runtime', async () => {
    const response = await read('postgres-connector-1.0.0');
    expect(response.status).toBe(200);
    expect(response.body.responseCode).toBe('OK');
    const record = response.body.result as ConnectorRecord;
    expect(Object.keys(record).sort()).toEqual(READ_KEYS);
    expect(record).toMatchObject({ id: 'postgres-connector-1.0.0', status: 'Live', category: 'Database' });
  });

  it('gives a built-in connector the full form of contract 2.4 and 8', async () => {
    const spec = (await readOk('postgres-connector-1.0.0')).ui_spec;
    const config = spec.schema.properties.connector_config;
    const operations = spec.schema.properties.operations_config;
    expect(config.properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535 });
    expect(config.properties.name.pattern).toBe('^[A-Za-z0-9_]{1,64}$');
    expect(config.encrypt).toBe(true);
    expect(config.properties.password.encrypt).toBe(true);
    expect(config.dependencies.ssl_mode.oneOf).toHaveLength(2);
    expect(operations.properties.batch_size.default).toBe(100);
    expect(operations.properties.max_batches.default).toBe(10);
    expect(spec.properties.connector_config.database_type['ui:readonly']).toBe(true);
    for (const id of BUILT_INS) {
      const each = (await readOk(id)).ui_spec.schema.properties;
      expect(each.operations_config.properties).toMatchObject({ batch_size: { default: 100 }, max_batches: { default: 10 } });
      expect(each.connector_config.encrypt).toBe(true);
    }
  });

  it('reads the Draft version with mode=edit (any case), and the Live one with an empty mode', async () => {
    await insertDraft('read-draft-0.2.0', 'read-draft', '0.2.0');
    expect((await readOk('postgres-connector-1.0.0')).status).toBe('Live');
    const edit = await read('read-draft-0.2.0', 'EDIT');
    expect(edit.status).toBe(200);
    expect(edit.body.result.status).toBe('Draft');
    expect((await read('postgres-connector-1.0.0', '')).status).toBe(200);
  });

  it('returns 404 CONNECTOR_NOT_FOUND for mode=edit on a connector that is only Live, and for a Draft read without it', async () => {
    expectFailure(await read('postgres-connector-1.0.0', 'edit'), 404, 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-connector-1\.0\.0$/);
    await insertDraft('only-draft-0.3.0', 'only-draft', '0.3.0');
    expectFailure(await read('only-draft-0.3.0'), 404, 'CONNECTOR_NOT_FOUND', /only-draft-0\.3\.0/);
  });

  it('returns 404 CONNECTOR_NOT_FOUND naming an id that does not exist', async () => {
    expectFailure(await read('postgres-conn'), 404, 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-conn$/);
  });
});

describe('POST /v2/connector/register', () => {
  it('registers a .tar.gz distribution: answers {message}, stores the archive and makes the version Live', async () => {
    const response = await registerOverRest(gw, distributionTarGz({ id: 'rest-pg', version: '1.0.0', name: 'Rest Pg' }), 'rest-pg-1.0.0.tar.gz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 'api.connector.register', ver: 'v2', responseCode: 'OK', params: { status: 'SUCCESS' } });
    expect(response.body.params.msgid).toBeUndefined();
    expect(response.body.result).toEqual({ message: 'connector registered successfully.' });

    const record = await readOk('rest-pg-1.0.0');
    expect(record).toMatchObject({ connector_id: 'rest-pg', version: '1.0.0', name: 'Rest Pg', status: 'Live', type: 'source', category: 'Database', licence: 'MIT', owner: 'Tests' });
    expect(record.ui_spec).toEqual(uiSpec('Rest Pg'));
    expect(record.live_date).toMatch(ISO_UTC);
    const stored = await gw.sql<{ source_url: string; source: unknown }>('SELECT source_url, source FROM connector_registry WHERE id = $1', ['rest-pg-1.0.0']);
    expect(stored.rows[0]!.source_url).toMatch(/^connectors\/rest-pg-1\.0\.0_[0-9a-f]{6}\.tar\.gz$/);
    expect(stored.rows[0]!.source).toEqual({ source: 'rest-pg-1.0.0', main_class: null, main_program: 'rest_pg/__main__.py' });
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(stored.rows[0]!.source_url);
    // The work folder is cleaned up after each registration.
    expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);
  });

  it('registers a .zip distribution laid out in one top folder (a Python sdist), with its icon as a data URI', async () => {
    const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const bytes = distributionZip({ id: 'rest-zip', version: '0.1.0', layout: 'folder', metadata: { icon: 'icon.svg' }, extra: [{ path: 'rest-zip-0.1.0/icon.svg', body: icon }] });
    await registerOk(bytes, 'rest-zip-0.1.0.zip');
    const record = await readOk('rest-zip-0.1.0');
    expect(record.iconurl).toBe(`data:image/svg+xml;base64,${icon.toString('base64')}`);
    expect(record.status).toBe('Live');
  });

  it('accepts the distribution in any part name and as .tgz', async () => {
    const response = await registerOverRest(gw, distributionTarGz({ id: 'rest-any-part' }), 'dist.tgz', 'distribution');
    expect(response.status).toBe(200);
    expect((await readOk('rest-any-part-1.0.0')).status).toBe('Live');
  });

  it('makes a newer version Live and retires the Live version before it', async () => {
    await registerOk(distributionTarGz({ id: 'rest-versions', version: '1.0.0' }), 'v1.tar.gz');
    await registerOk(distributionTarGz({ id: 'rest-versions', version: '2.0.0' }), 'v2.tar.gz');
    expect(await statusOf('rest-versions-1.0.0')).toBe('Retired');
    expect(await statusOf('rest-versions-2.0.0')).toBe('Live');
    expectFailure(await read('rest-versions-1.0.0'), 404, 'CONNECTOR_NOT_FOUND', /rest-versions-1\.0\.0/);
    const { data } = await listOk({ filters: { status: ['Retired'] } });
    expect(data.map((connector) => connector.id)).toContain('rest-versions-1.0.0');
  });

  it('registers the same version again in place: one row, still the only Live one, with the new ui spec', async () => {
    await registerOk(distributionTarGz({ id: 'rest-again', name: 'First' }), 'a.tar.gz');
    const first = await readOk('rest-again-1.0.0');
    await registerOk(distributionTarGz({ id: 'rest-again', name: 'Second' }), 'b.tar.gz');
    const second = await readOk('rest-again-1.0.0');
    expect(second.name).toBe('Second');
    expect(second.ui_spec).toEqual(uiSpec('Second'));
    expect(second.created_date).toBe(first.created_date);
    const rows = await gw.sql('SELECT id FROM connector_registry WHERE connector_id = $1', ['rest-again']);
    expect(rows.rows).toHaveLength(1);
  });

  it('retires a built-in connector when a newer version of it is registered', async () => {
    await registerOk(distributionTarGz({ id: 'mysql-connector', version: '1.1.0', name: 'MySQL' }), 'mysql.tar.gz');
    expect(await statusOf('mysql-connector-1.0.0')).toBe('Retired');
    expect((await readOk('mysql-connector-1.1.0')).name).toBe('MySQL');
  });

  it('registers every connector of a multi-tenant distribution, each with its own ui spec', async () => {
    const uiConfig = { 'rest-s3': uiSpec('S3'), 'rest-gcs': uiSpec('GCS') };
    const bytes = distributionTarGz({ id: 'rest-object-store', version: '0.2.0', category: 'File', metadata: { tenant: 'multiple' }, uiConfig });
    const withConnectors = distributionTarGz({
      id: 'rest-object-store',
      version: '0.2.0',
      category: 'File',
      uiConfig,
      metadataText: JSON.stringify({
        metadata: { id: 'rest-object-store', version: '0.2.0', name: 'Object Store', category: 'File', technology: 'python', runtime: 'spark', tenant: 'multiple' },
        connectors: [
          { id: 'rest-s3', name: 'AWS S3', description: 'S3 buckets' },
          { id: 'rest-gcs', name: 'Google Cloud Storage' },
        ],
      }),
    });
    // tenant "multiple" without a connectors list is invalid metadata.
    expectFailure(await registerOverRest(gw, bytes, 'os.tar.gz'), 500, 'FAILED_TO_REGISTER_CONNECTOR', /required property 'connectors'/);
    await registerOk(withConnectors, 'os.tar.gz');
    expect(await readOk('rest-s3-0.2.0')).toMatchObject({ name: 'AWS S3', description: 'S3 buckets', category: 'File', ui_spec: uiSpec('S3') });
    expect(await readOk('rest-gcs-0.2.0')).toMatchObject({ name: 'Google Cloud Storage', ui_spec: uiSpec('GCS') });
  });

  describe('an archive that cannot be registered: 500 FAILED_TO_REGISTER_CONNECTOR and nothing changes', () => {
    it.each([
      ['garbage bytes named .tgz', () => garbage(), 'junk.tgz', /Failed to extract the file: the archive could not be read/],
      ['garbage bytes named .zip', () => garbage(), 'junk.zip', /Failed to extract the file: the archive could not be read/],
      ['a file that is not a .tar.gz, .tgz or .zip', () => distributionTarGz({ id: 'rest-bad-ext' }), 'dist.rar', /is not a \.tar\.gz, \.tgz or \.zip archive/],
      [
        'an archive without metadata.json',
        () =>
          tarGz([
            { path: 'rest-no-meta-1.0.0/main.py', body: 'x' },
            { path: 'ui-config.json', body: '{}' },
          ]),
        'nometa.tar.gz',
        /unable to locate the metadata file/,
      ],
      ['an empty archive', () => tarGz([]), 'empty.tar.gz', /the archive could not be read: TAR_BAD_ARCHIVE: Unrecognized archive format/],
      ['metadata.json that is not JSON', () => distributionTarGz({ id: 'rest-bad-json', metadataText: '{"metadata": ' }), 'bad.tar.gz', /metadata\.json is not valid JSON/],
      [
        'metadata without a version',
        () => distributionTarGz({ id: 'rest-no-version', metadata: { version: undefined } }),
        'nov.tar.gz',
        /metadata\.json is invalid: #properties\/metadata\/required must have required property 'version'/,
      ],
      ['metadata with an unknown category', () => distributionTarGz({ id: 'rest-bad-category', category: 'Spreadsheet' }), 'cat.tar.gz', /metadata\.json is invalid: .*category/],
      [
        'no <id>-<version> source folder',
        () => distributionTarGz({ id: 'rest-no-folder', withoutSourceFolder: true }),
        'nofolder.tar.gz',
        /connector source folder not found; expecting rest-no-folder-1\.0\.0 folder inside the archive/,
      ],
      ['no ui-config.json', () => distributionTarGz({ id: 'rest-no-ui', uiConfig: null }), 'noui.tar.gz', /unable to locate the ui configuration file/],
      ['a ui spec without a schema', () => distributionTarGz({ id: 'rest-ui-no-schema', uiConfig: { properties: {} } }), 'noschema.tar.gz', /"schema" object/],
      ['an icon file missing from the archive', () => distributionTarGz({ id: 'rest-no-icon', metadata: { icon: 'missing.png' } }), 'noicon.tar.gz', /icon file "missing\.png" is not in the archive/],
    ])('refuses %s', async (_, bytes, filename, message) => {
      const registry = await registrySnapshot(gw);
      const objects = await filesUnder(`${gw.dataDir}/objects`);
      const response = await registerOverRest(gw, bytes(), filename);
      expectFailure(response, 500, 'FAILED_TO_REGISTER_CONNECTOR', message);
      expect(await registrySnapshot(gw)).toEqual(registry);
      expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual(objects);
      expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);
    });
  });

  describe('a request that is not one file: 400 FAILED_TO_UPLOAD and nothing changes', () => {
    it('refuses a multipart body without a file part', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http.post('/v2/connector/register').field('note', 'no file here');
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /one file part/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('refuses a JSON body', async () => {
      const response = await gw.http.post('/v2/connector/register').send({ request: {} });
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /multipart\/form-data/);
    });

    it('refuses two files, as the original does', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http
        .post('/v2/connector/register')
        .attach('file3', distributionTarGz({ id: 'rest-two-a' }), 'a.tar.gz')
        .attach('file4', distributionTarGz({ id: 'rest-two-b' }), 'b.tar.gz');
      expectFailure(response, 400, 'FAILED_TO_UPLOAD', /^Uploading multiple files are not allowed$/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });
  });
});
