// Connectors over GraphQL (POST /graphql; uploads as GraphQL multipart requests). Mirrors
// test/rest/connectors.test.ts rule by rule. Hostile archives: test/graphql/connector-archives.test.ts.
// Tests share one database: each registers connectors of its own ids.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { distributionTarGz, distributionZip, garbage, tarGz, uiSpec } from '../support/archives.js';
import { errorCode, graphql, type GraphQLResponse } from '../support/api.js';
import { filesUnder, registerOverGraphQL, registrySnapshot, startStoreGateway, type StoreGateway } from '../support/connectors.js';

let gw: StoreGateway;
beforeAll(async () => {
  gw = await startStoreGateway();
});
afterAll(async () => {
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Helpers (local to this file)

const RESPONSE_CODE: Record<string, string> = {
  CONNECTORS_LIST_INPUT_INVALID: 'BAD_REQUEST',
  CONNECTOR_NOT_FOUND: 'NOT_FOUND',
  FAILED_TO_REGISTER_CONNECTOR: 'INTERNAL_SERVER_ERROR',
  FAILED_TO_UPLOAD: 'BAD_REQUEST',
};
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FIELDS = 'id connectorId name type category version description technology runtime licence owner iconUrl status uiSpec sourceUrl createdBy updatedBy createdAt updatedAt liveAt';
const BUILT_INS = ['kafka-connector-1.0.0', 'mysql-connector-1.0.0', 'object-store-connector-1.0.0', 'postgres-connector-1.0.0'];

type Connector = Record<string, any>;

function listConnectors(variables: Record<string, unknown> = {}): Promise<GraphQLResponse<Record<string, any>>> {
  return graphql(
    gw,
    `query List($filter: ConnectorFilter, $first: Int, $after: String) {
      connectors(filter: $filter, first: $first, after: $after) {
        totalCount
        nodes { ${FIELDS} }
        edges { cursor node { id } }
        pageInfo { hasNextPage hasPreviousPage endCursor }
      }
    }`,
    variables,
  );
}

async function listOk(
  variables: Record<string, unknown> = {},
): Promise<{ totalCount: number; nodes: Connector[]; edges: { cursor: string; node: { id: string } }[]; pageInfo: Record<string, unknown> }> {
  const response = await listConnectors({ first: 1000, ...variables });
  expect(response.errors).toBeUndefined();
  return response.data!.connectors;
}

function readConnector(id: string, status?: string | null): Promise<GraphQLResponse<Record<string, any>>> {
  return status === undefined
    ? graphql(gw, `query Read($id: ID!) { connector(id: $id) { ${FIELDS} } }`, { id })
    : graphql(gw, `query Read($id: ID!, $status: ConnectorStatus) { connector(id: $id, status: $status) { ${FIELDS} } }`, { id, status });
}

async function readOk(id: string, status?: string | null): Promise<Connector> {
  const response = await readConnector(id, status);
  expect(response.errors).toBeUndefined();
  return response.data!.connector;
}

async function registerOk(bytes: Buffer, filename: string): Promise<Connector[]> {
  const response = await registerOverGraphQL(gw, bytes, filename);
  expect(response.errors).toBeUndefined();
  expect(response.data!.registerConnector.message).toBe('connector registered successfully.');
  return response.data!.registerConnector.connectors;
}

/** An error with this contract code and kind, and a message matching `message`. */
function expectError(response: { errors?: GraphQLResponse['errors'] }, code: string, message: RegExp): void {
  expect({ code: response.errors?.[0]?.extensions?.code, responseCode: response.errors?.[0]?.extensions?.responseCode }).toEqual({ code, responseCode: RESPONSE_CODE[code] });
  expect(response.errors![0]!.message).toMatch(message);
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

describe('connectors(filter, first, after)', () => {
  it('lists every connector without a filter, with totalCount, the built-in ones included', async () => {
    const page = await listOk();
    const total = await gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM connector_registry');
    expect(page.totalCount).toBe(total.rows[0]!.n);
    expect(page.nodes).toHaveLength(page.totalCount);
    expect(page.nodes.map((connector) => connector.id)).toEqual(expect.arrayContaining(BUILT_INS));
  });

  it('gives every field with enums in GraphQL spelling and dates in ISO 8601 UTC', async () => {
    const { nodes } = await listOk();
    const postgres = nodes.find((connector) => connector.id === 'postgres-connector-1.0.0')!;
    expect(postgres).toMatchObject({
      connectorId: 'postgres-connector',
      version: '1.0.0',
      category: 'DATABASE',
      type: 'source',
      status: 'LIVE',
      technology: 'scala',
      runtime: 'spark',
      sourceUrl: null,
    });
    expect(postgres.createdAt).toMatch(ISO_UTC);
    expect(postgres.liveAt).toMatch(ISO_UTC);
  });

  it('seeds at least a PostgreSQL, a MySQL, a Kafka and an object-store connector, each Live', async () => {
    const { nodes } = await listOk({ filter: { status: ['LIVE'] } });
    const byId = new Map(nodes.map((connector) => [connector.id, connector]));
    expect(byId.get('postgres-connector-1.0.0')?.category).toBe('DATABASE');
    expect(byId.get('mysql-connector-1.0.0')?.category).toBe('DATABASE');
    expect(byId.get('kafka-connector-1.0.0')?.category).toBe('STREAM');
    expect(byId.get('object-store-connector-1.0.0')?.category).toBe('FILE');
  });

  it('lists only connectors with a status in filter.status', async () => {
    await insertDraft('gql-list-draft-0.1.0', 'gql-list-draft', '0.1.0');
    const drafts = await listOk({ filter: { status: ['DRAFT'] } });
    expect(drafts.nodes.map((connector) => connector.id)).toContain('gql-list-draft-0.1.0');
    for (const connector of drafts.nodes) expect(connector.status).toBe('DRAFT');
    const live = await listOk({ filter: { status: ['LIVE'] } });
    expect(live.nodes.map((connector) => connector.id)).not.toContain('gql-list-draft-0.1.0');
    const both = await listOk({ filter: { status: ['LIVE', 'DRAFT'] } });
    expect(both.totalCount).toBe(live.totalCount + drafts.totalCount);
  });

  it('lists only connectors of a category in filter.category, and combines it with status', async () => {
    const files = await listOk({ filter: { category: ['FILE'] } });
    expect(files.nodes.length).toBeGreaterThan(0);
    for (const connector of files.nodes) expect(connector.category).toBe('FILE');
    const liveFiles = await listOk({ filter: { category: ['FILE'], status: ['LIVE'] } });
    expect(liveFiles.nodes.map((connector) => connector.id)).toContain('object-store-connector-1.0.0');
    for (const connector of liveFiles.nodes) expect(connector).toMatchObject({ category: 'FILE', status: 'LIVE' });
  });

  it('pages with first and after while totalCount stays the total', async () => {
    const all = await listOk();
    const first = await listOk({ first: 1 });
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const page = await listOk({ first: 2, after: first.edges[0]!.cursor });
    expect(page.totalCount).toBe(all.totalCount);
    expect(page.nodes.map((connector) => connector.id)).toEqual(all.nodes.slice(1, 3).map((connector) => connector.id));
  });

  it('returns CONNECTORS_LIST_INPUT_INVALID when filter.status is empty', async () => {
    expectError(await listConnectors({ filter: { status: [] } }), 'CONNECTORS_LIST_INPUT_INVALID', /filters\.status must have at least one item/);
    expectError(await listConnectors({ filter: { category: [] } }), 'CONNECTORS_LIST_INPUT_INVALID', /filters\.category must have at least one item/);
  });

  it('refuses an unknown status or category value', async () => {
    const status = await listConnectors({ filter: { status: ['PUBLISHED'] } });
    expect(status.errors?.[0]?.message).toMatch(/PUBLISHED/);
    expect(status.data).toBeUndefined();
    const category = await listConnectors({ filter: { category: ['SPREADSHEET'] } });
    expect(category.errors?.[0]?.message).toMatch(/SPREADSHEET/);
  });
});

describe('connector(id, status)', () => {
  it('returns the Live version with its uiSpec', async () => {
    const record = await readOk('postgres-connector-1.0.0');
    expect(record).toMatchObject({ id: 'postgres-connector-1.0.0', status: 'LIVE', category: 'DATABASE' });
    expect(record.uiSpec.schema.properties.connector_config).toBeDefined();
  });

  it('gives a built-in connector the full form of contract 2.4 and 8', async () => {
    const spec = (await readOk('mysql-connector-1.0.0')).uiSpec;
    const config = spec.schema.properties.connector_config;
    const operations = spec.schema.properties.operations_config;
    expect(config.properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535, default: 3306 });
    expect(config.properties.name.pattern).toBe('^[A-Za-z0-9_]{1,64}$');
    expect(config.encrypt).toBe(true);
    expect(config.properties.password.encrypt).toBe(true);
    expect(operations.properties.batch_size.default).toBe(100);
    expect(operations.properties.max_batches.default).toBe(10);
    for (const id of BUILT_INS) {
      const each = (await readOk(id)).uiSpec.schema.properties;
      expect(each.operations_config.properties).toMatchObject({ batch_size: { default: 100 }, max_batches: { default: 10 } });
      expect(each.connector_config.encrypt).toBe(true);
    }
  });

  it('reads the Draft version with status DRAFT, and any version with status null', async () => {
    await insertDraft('gql-read-draft-0.2.0', 'gql-read-draft', '0.2.0');
    expect((await readOk('gql-read-draft-0.2.0', 'DRAFT')).status).toBe('DRAFT');
    expect((await readOk('gql-read-draft-0.2.0', null)).status).toBe('DRAFT');
    expect((await readOk('postgres-connector-1.0.0', null)).status).toBe('LIVE');
  });

  it('returns CONNECTOR_NOT_FOUND for status DRAFT on a connector that is only Live, and for a Draft read without it', async () => {
    expectError(await readConnector('postgres-connector-1.0.0', 'DRAFT'), 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-connector-1\.0\.0$/);
    await insertDraft('gql-only-draft-0.3.0', 'gql-only-draft', '0.3.0');
    expectError(await readConnector('gql-only-draft-0.3.0'), 'CONNECTOR_NOT_FOUND', /gql-only-draft-0\.3\.0/);
  });

  it('returns CONNECTOR_NOT_FOUND naming an id that does not exist', async () => {
    const response = await readConnector('postgres-conn');
    expectError(response, 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-conn$/);
    expect(errorCode(response)).toBe('CONNECTOR_NOT_FOUND');
  });
});

describe('registerConnector(file)', () => {
  it('registers a .tar.gz distribution: stores the archive and makes the version Live', async () => {
    const [connector] = await registerOk(distributionTarGz({ id: 'gql-pg', version: '1.0.0', name: 'Gql Pg' }), 'gql-pg-1.0.0.tar.gz');
    expect(connector).toMatchObject({ id: 'gql-pg-1.0.0', connectorId: 'gql-pg', version: '1.0.0', status: 'LIVE', category: 'DATABASE', uiSpec: uiSpec('Gql Pg') });
    expect(connector!.sourceUrl).toMatch(/^connectors\/gql-pg-1\.0\.0_[0-9a-f]{6}\.tar\.gz$/);
    expect(connector!.liveAt).toMatch(ISO_UTC);
    const record = await readOk('gql-pg-1.0.0');
    expect(record).toMatchObject({ name: 'Gql Pg', type: 'source', licence: 'MIT', owner: 'Tests', technology: 'python', runtime: 'spark' });
    expect(await filesUnder(`${gw.dataDir}/objects`)).toContain(connector!.sourceUrl);
    expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);
  });

  it('registers a .zip distribution laid out in one top folder (a Python sdist), with its icon as a data URI', async () => {
    const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const bytes = distributionZip({ id: 'gql-zip', version: '0.1.0', layout: 'folder', metadata: { icon: 'icon.svg' }, extra: [{ path: 'gql-zip-0.1.0/icon.svg', body: icon }] });
    const [connector] = await registerOk(bytes, 'gql-zip-0.1.0.zip');
    expect(connector!.iconUrl).toBe(`data:image/svg+xml;base64,${icon.toString('base64')}`);
    expect(connector!.status).toBe('LIVE');
  });

  it('accepts a .tgz distribution', async () => {
    const [connector] = await registerOk(distributionTarGz({ id: 'gql-tgz' }), 'dist.tgz');
    expect(connector!.id).toBe('gql-tgz-1.0.0');
  });

  it('makes a newer version Live and retires the Live version before it', async () => {
    await registerOk(distributionTarGz({ id: 'gql-versions', version: '1.0.0' }), 'v1.tar.gz');
    await registerOk(distributionTarGz({ id: 'gql-versions', version: '2.0.0' }), 'v2.tar.gz');
    expect(await statusOf('gql-versions-1.0.0')).toBe('Retired');
    expect(await statusOf('gql-versions-2.0.0')).toBe('Live');
    expectError(await readConnector('gql-versions-1.0.0'), 'CONNECTOR_NOT_FOUND', /gql-versions-1\.0\.0/);
    expect((await readOk('gql-versions-1.0.0', 'RETIRED')).status).toBe('RETIRED');
  });

  it('registers the same version again in place: one row, still the only Live one, with the new ui spec', async () => {
    await registerOk(distributionTarGz({ id: 'gql-again', name: 'First' }), 'a.tar.gz');
    const first = await readOk('gql-again-1.0.0');
    await registerOk(distributionTarGz({ id: 'gql-again', name: 'Second' }), 'b.tar.gz');
    const second = await readOk('gql-again-1.0.0');
    expect(second.name).toBe('Second');
    expect(second.uiSpec).toEqual(uiSpec('Second'));
    expect(second.createdAt).toBe(first.createdAt);
    const rows = await gw.sql('SELECT id FROM connector_registry WHERE connector_id = $1', ['gql-again']);
    expect(rows.rows).toHaveLength(1);
  });

  it('retires a built-in connector when a newer version of it is registered', async () => {
    await registerOk(distributionTarGz({ id: 'kafka-connector', version: '1.1.0', name: 'Kafka', category: 'Stream' }), 'kafka.tar.gz');
    expect(await statusOf('kafka-connector-1.0.0')).toBe('Retired');
    expect((await readOk('kafka-connector-1.1.0')).category).toBe('STREAM');
  });

  it('registers every connector of a multi-tenant distribution, each with its own ui spec', async () => {
    const uiConfig = { 'gql-s3': uiSpec('S3'), 'gql-gcs': uiSpec('GCS') };
    const missingList = distributionTarGz({ id: 'gql-object-store', version: '0.2.0', category: 'File', metadata: { tenant: 'multiple' }, uiConfig });
    expectError(await registerOverGraphQL(gw, missingList, 'os.tar.gz'), 'FAILED_TO_REGISTER_CONNECTOR', /required property 'connectors'/);
    const connectors = await registerOk(
      distributionTarGz({
        id: 'gql-object-store',
        version: '0.2.0',
        uiConfig,
        metadataText: JSON.stringify({
          metadata: { id: 'gql-object-store', version: '0.2.0', name: 'Object Store', category: 'File', technology: 'python', runtime: 'spark', tenant: 'multiple' },
          connectors: [
            { id: 'gql-s3', name: 'AWS S3', description: 'S3 buckets' },
            { id: 'gql-gcs', name: 'Google Cloud Storage' },
          ],
        }),
      }),
      'os.tar.gz',
    );
    expect(connectors.map((connector) => connector.id)).toEqual(['gql-s3-0.2.0', 'gql-gcs-0.2.0']);
    expect(await readOk('gql-s3-0.2.0')).toMatchObject({ name: 'AWS S3', description: 'S3 buckets', category: 'FILE', uiSpec: uiSpec('S3') });
    expect(await readOk('gql-gcs-0.2.0')).toMatchObject({ name: 'Google Cloud Storage', uiSpec: uiSpec('GCS') });
  });

  describe('an archive that cannot be registered: FAILED_TO_REGISTER_CONNECTOR and nothing changes', () => {
    it.each([
      ['garbage bytes named .tgz', () => garbage(), 'junk.tgz', /Failed to extract the file: the archive could not be read/],
      ['garbage bytes named .zip', () => garbage(), 'junk.zip', /Failed to extract the file: the archive could not be read/],
      ['a file that is not a .tar.gz, .tgz or .zip', () => distributionTarGz({ id: 'gql-bad-ext' }), 'dist.rar', /is not a \.tar\.gz, \.tgz or \.zip archive/],
      [
        'an archive without metadata.json',
        () =>
          tarGz([
            { path: 'gql-no-meta-1.0.0/main.py', body: 'x' },
            { path: 'ui-config.json', body: '{}' },
          ]),
        'nometa.tar.gz',
        /unable to locate the metadata file/,
      ],
      ['an empty archive', () => tarGz([]), 'empty.tar.gz', /the archive could not be read: TAR_BAD_ARCHIVE: Unrecognized archive format/],
      ['metadata.json that is not JSON', () => distributionTarGz({ id: 'gql-bad-json', metadataText: '{"metadata": ' }), 'bad.tar.gz', /metadata\.json is not valid JSON/],
      [
        'metadata without a version',
        () => distributionTarGz({ id: 'gql-no-version', metadata: { version: undefined } }),
        'nov.tar.gz',
        /metadata\.json is invalid: #properties\/metadata\/required must have required property 'version'/,
      ],
      ['metadata with an unknown category', () => distributionTarGz({ id: 'gql-bad-category', category: 'Spreadsheet' }), 'cat.tar.gz', /metadata\.json is invalid: .*category/],
      [
        'no <id>-<version> source folder',
        () => distributionTarGz({ id: 'gql-no-folder', withoutSourceFolder: true }),
        'nofolder.tar.gz',
        /connector source folder not found; expecting gql-no-folder-1\.0\.0 folder inside the archive/,
      ],
      ['no ui-config.json', () => distributionTarGz({ id: 'gql-no-ui', uiConfig: null }), 'noui.tar.gz', /unable to locate the ui configuration file/],
      ['a ui spec without a schema', () => distributionTarGz({ id: 'gql-ui-no-schema', uiConfig: { properties: {} } }), 'noschema.tar.gz', /"schema" object/],
      ['an icon file missing from the archive', () => distributionTarGz({ id: 'gql-no-icon', metadata: { icon: 'missing.png' } }), 'noicon.tar.gz', /icon file "missing\.png" is not in the archive/],
    ])('refuses %s', async (_, bytes, filename, message) => {
      const registry = await registrySnapshot(gw);
      const objects = await filesUnder(`${gw.dataDir}/objects`);
      const response = await registerOverGraphQL(gw, bytes(), filename);
      expectError(response, 'FAILED_TO_REGISTER_CONNECTOR', message);
      expect(await registrySnapshot(gw)).toEqual(registry);
      expect(await filesUnder(`${gw.dataDir}/objects`)).toEqual(objects);
      expect(await filesUnder(`${gw.dataDir}/tmp`)).toEqual([]);
    });
  });

  describe('a request that is not one file: 400 and nothing changes', () => {
    it('refuses a multipart request whose map names no file', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http
        .post('/graphql')
        .set('apollo-require-preflight', 'true')
        .field('operations', JSON.stringify({ query: 'mutation($file: Upload!) { registerConnector(file: $file) { message } }', variables: { file: null } }))
        .field('map', JSON.stringify({ 0: ['variables.file'] }));
      expect(response.status).toBe(200);
      expect(response.body.errors[0].extensions.code).toBe('FAILED_TO_UPLOAD');
      expect(response.body.errors[0].message).toMatch(/File missing in the request/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('refuses an Upload given as JSON instead of a file', async () => {
      const response = await graphql(gw, 'mutation($file: Upload!) { registerConnector(file: $file) { message } }', { file: 'not a file' });
      expect(response.errors?.[0]?.message).toMatch(/Upload value invalid/);
    });

    it('refuses two files, naming the limit', async () => {
      const registry = await registrySnapshot(gw);
      const response = await gw.http
        .post('/graphql')
        .set('apollo-require-preflight', 'true')
        .field('operations', JSON.stringify({ query: 'mutation($file: Upload!) { registerConnector(file: $file) { message } }', variables: { file: null } }))
        .field('map', JSON.stringify({ 0: ['variables.file'], 1: ['variables.other'] }))
        .attach('0', distributionTarGz({ id: 'gql-two-a' }), 'a.tar.gz')
        .attach('1', distributionTarGz({ id: 'gql-two-b' }), 'b.tar.gz');
      expect(response.status).toBe(413);
      expect(response.body.errors[0].message).toMatch(/1 max file uploads exceeded/);
      expect(await registrySnapshot(gw)).toEqual(registry);
    });

    it('needs the CSRF preflight header that multipart requests must carry', async () => {
      const response = await gw.http
        .post('/graphql')
        .field('operations', JSON.stringify({ query: 'mutation($file: Upload!) { registerConnector(file: $file) { message } }', variables: { file: null } }))
        .field('map', JSON.stringify({ 0: ['variables.file'] }))
        .attach('0', distributionTarGz({ id: 'gql-csrf' }), 'csrf.tar.gz');
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/Cross-Site Request Forgery/);
      expect(await statusOf('gql-csrf-1.0.0')).toBeUndefined();
    });
  });
});
