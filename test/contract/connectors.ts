// Connectors (contract 2.4, 4.4, 7, 8; reference §4), written once for both transports: the list
// and its filters, reads of the Live and the Draft version with the connector's form, and
// registration of distributions (tar.gz, tgz, zip; new versions, the same version again, built-in
// and multi-tenant connectors) with every archive it refuses. Hostile archives:
// test/contract/connector-archives.ts. The scenarios of one transport share a database: each
// registers connectors of its own ids.
import { describe, expect, it } from '@jest/globals';
import { distributionTarGz, distributionZip, garbage, tarGz, uiSpec } from '../support/archives.js';
import { filesUnder, insertConnector, MULTI_TENANT_UI, multiTenantDistribution, registrySnapshot, registryStatus, type StoreGateway } from '../support/connectors.js';
import type { ArchivesDriver } from './connector-archives.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export type ConnectorStatus = 'Draft' | 'InValidation' | 'Live' | 'Retired';
export type ConnectorCategory = 'Database' | 'File' | 'Stream';

/** A connector version as contract 2.4 spells it. */
export interface ConnectorRecord {
  id: string;
  connector_id: string;
  name: string;
  type: string;
  category: ConnectorCategory;
  version: string;
  description: string | null;
  licence: string | null;
  owner: string | null;
  iconurl: string | null;
  status: ConnectorStatus;
  created_by: string;
  updated_by: string;
  created_date: string;
  updated_date: string;
  live_date: string | null;
  /** List results only. */
  technology?: string;
  runtime?: string;
  /** Reads only: the connector's form. */
  ui_spec?: Record<string, any>;
}

export interface ConnectorFilters {
  status?: ConnectorStatus[];
  category?: ConnectorCategory[];
}

export interface ConnectorsDriver extends ArchivesDriver {
  /** Every connector version the filters let through, and how many there are. */
  list(filters?: ConnectorFilters): Promise<Outcome<{ data: ConnectorRecord[]; count: number }>>;
  /** The Live version `id`, or its Draft version when `draft` is set. */
  read(id: string, options?: { draft?: boolean }): Promise<Outcome<ConnectorRecord>>;
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const BUILT_INS = ['kafka-connector-1.0.0', 'mysql-connector-1.0.0', 'object-store-connector-1.0.0', 'postgres-connector-1.0.0'];
const REGISTERED = { message: 'connector registered successfully.' };

export function connectorScenarios(ctx: SuiteContext<ConnectorsDriver, StoreGateway>): void {
  const listOk = async (filters?: ConnectorFilters) => expectOk(await ctx.driver.list(filters));
  const readOk = async (id: string, options?: { draft?: boolean }) => expectOk(await ctx.driver.read(id, options));
  const registerOk = async (bytes: Buffer, filename: string) => expect(expectOk(await ctx.driver.register(bytes, filename))).toEqual(REGISTERED);
  const idsOf = (records: ConnectorRecord[]) => records.map((connector) => connector.id);
  const objects = () => filesUnder(`${ctx.gw.dataDir}/objects`);

  describe('list', () => {
    it('lists every connector without filters, with the count, the built-in ones included', async () => {
      const result = await listOk();
      const total = await ctx.gw.sql<{ n: number }>('SELECT count(*)::int AS n FROM connector_registry');
      expect(result.count).toBe(total.rows[0]!.n);
      expect(result.data).toHaveLength(result.count);
      expect(idsOf(result.data)).toEqual(expect.arrayContaining(BUILT_INS));
    });

    it('gives technology and runtime in list results, and dates in ISO 8601 UTC', async () => {
      const { data } = await listOk();
      const postgres = data.find((connector) => connector.id === 'postgres-connector-1.0.0')!;
      expect(postgres).toMatchObject({ connector_id: 'postgres-connector', version: '1.0.0', category: 'Database', type: 'source', status: 'Live', technology: 'scala', runtime: 'spark' });
      expect(postgres.created_date).toMatch(ISO_UTC);
      expect(postgres.live_date).toMatch(ISO_UTC);
    });

    it('seeds at least a PostgreSQL, a MySQL, a Kafka and an object-store connector, each Live', async () => {
      const { data } = await listOk({ status: ['Live'] });
      const byId = new Map(data.map((connector) => [connector.id, connector]));
      expect(byId.get('postgres-connector-1.0.0')?.category).toBe('Database');
      expect(byId.get('mysql-connector-1.0.0')?.category).toBe('Database');
      expect(byId.get('kafka-connector-1.0.0')?.category).toBe('Stream');
      expect(byId.get('object-store-connector-1.0.0')?.category).toBe('File');
    });

    it('lists only connectors with a status in the status filter', async () => {
      const draft = await insertConnector(ctx.gw, 'list-draft', '0.1.0', 'Draft');
      const drafts = await listOk({ status: ['Draft'] });
      expect(idsOf(drafts.data)).toContain(draft);
      for (const connector of drafts.data) expect(connector.status).toBe('Draft');
      const live = await listOk({ status: ['Live'] });
      expect(idsOf(live.data)).not.toContain(draft);
      const both = await listOk({ status: ['Live', 'Draft'] });
      expect(both.count).toBe(live.count + drafts.count);
    });

    it('lists only connectors of a category in the category filter, and combines it with status', async () => {
      const files = await listOk({ category: ['File'] });
      expect(files.data.length).toBeGreaterThan(0);
      for (const connector of files.data) expect(connector.category).toBe('File');
      const liveFiles = await listOk({ category: ['File'], status: ['Live'] });
      expect(idsOf(liveFiles.data)).toContain('object-store-connector-1.0.0');
      for (const connector of liveFiles.data) expect(connector).toMatchObject({ category: 'File', status: 'Live' });
    });

    // The service's rules (issue 34; REST's schema held them before), one message on both transports.
    it('refuses an empty status or category filter with CONNECTORS_LIST_INPUT_INVALID, as the original does', async () => {
      expectFailure(await ctx.driver.list({ status: [] }), 'CONNECTORS_LIST_INPUT_INVALID', /^filters\.status must have at least one item$/);
      expectFailure(await ctx.driver.list({ category: [] }), 'CONNECTORS_LIST_INPUT_INVALID', /^filters\.category must have at least one item$/);
    });

    it('refuses a status or category filter of more than 10 values with CONNECTORS_LIST_INPUT_INVALID', async () => {
      expectFailure(await ctx.driver.list({ status: Array<ConnectorStatus>(11).fill('Live') }), 'CONNECTORS_LIST_INPUT_INVALID', /^the status filter lists 11 values; at most 10 are allowed$/);
      expectFailure(await ctx.driver.list({ category: Array<ConnectorCategory>(11).fill('File') }), 'CONNECTORS_LIST_INPUT_INVALID', /^the category filter lists 11 values; at most 10 are allowed$/);
    });
  });

  describe('read', () => {
    it('returns the Live version with its form', async () => {
      const record = await readOk('postgres-connector-1.0.0');
      expect(record).toMatchObject({ id: 'postgres-connector-1.0.0', status: 'Live', category: 'Database' });
      expect(record.ui_spec!.schema.properties.connector_config).toBeDefined();
    });

    it('gives a built-in connector the full form of contract 2.4 and 8', async () => {
      for (const [id, port] of [
        ['postgres-connector-1.0.0', {}],
        ['mysql-connector-1.0.0', { default: 3306 }],
      ] as const) {
        const spec = (await readOk(id)).ui_spec!;
        const config = spec.schema.properties.connector_config;
        const operations = spec.schema.properties.operations_config;
        expect(config.properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535, ...port });
        expect(config.properties.name.pattern).toBe('^[A-Za-z0-9_]{1,64}$');
        expect(config.encrypt).toBe(true);
        expect(config.properties.password.encrypt).toBe(true);
        expect(operations.properties.batch_size.default).toBe(100);
        expect(operations.properties.max_batches.default).toBe(10);
      }
      const postgres = (await readOk('postgres-connector-1.0.0')).ui_spec!;
      expect(postgres.schema.properties.connector_config.dependencies.ssl_mode.oneOf).toHaveLength(2);
      expect(postgres.properties.connector_config.database_type['ui:readonly']).toBe(true);
      for (const id of BUILT_INS) {
        const each = (await readOk(id)).ui_spec!.schema.properties;
        expect(each.operations_config.properties).toMatchObject({ batch_size: { default: 100 }, max_batches: { default: 10 } });
        expect(each.connector_config.encrypt).toBe(true);
      }
    });

    it('reads the Draft version when asked for it, and the Live one otherwise', async () => {
      const draft = await insertConnector(ctx.gw, 'read-draft', '0.2.0', 'Draft');
      expect((await readOk(draft, { draft: true })).status).toBe('Draft');
      expect((await readOk('postgres-connector-1.0.0')).status).toBe('Live');
    });

    // The service's rule (issue 34; REST's path schema held it before): one message on both transports.
    it('refuses an id longer than any version id (200 characters) with CONNECTOR_READ_INVALID_INPUT, not as missing', async () => {
      expectFailure(await ctx.driver.read('c'.repeat(201)), 'CONNECTOR_READ_INVALID_INPUT', /^connector_id is 201 characters long; at most 200 are allowed$/);
    });

    it('answers CONNECTOR_NOT_FOUND for the Draft of a connector that is only Live, and for a Draft read as Live', async () => {
      expectFailure(await ctx.driver.read('postgres-connector-1.0.0', { draft: true }), 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-connector-1\.0\.0$/);
      const draft = await insertConnector(ctx.gw, 'only-draft', '0.3.0', 'Draft');
      expectFailure(await ctx.driver.read(draft), 'CONNECTOR_NOT_FOUND', /only-draft-0\.3\.0/);
    });

    it('answers CONNECTOR_NOT_FOUND naming an id that does not exist', async () => {
      expectFailure(await ctx.driver.read('postgres-conn'), 'CONNECTOR_NOT_FOUND', /^Connector not found: postgres-conn$/);
    });
  });

  describe('register', () => {
    it("keeps the ui spec an archive carries in the console's form (the original's distributions ship it so) as it is", async () => {
      const form = {
        title: 'Kafka Connector Setup Instructions',
        description: 'Configure Kafka Connector',
        type: 'object',
        properties: {
          source_kafka_broker_servers: { title: 'Kafka Brokers', type: 'string', description: 'host:port,host:port', uiIndex: 1 },
          source_data_format: { title: 'Data Format', type: 'string', enum: ['json'], default: 'json', format: 'hidden', uiIndex: 2 },
        },
        required: ['source_kafka_broker_servers'],
      };
      const id = `console-form-${ctx.transport}`;
      await registerOk(distributionTarGz({ id, version: '1.0.0', uiConfig: form }), `${id}-1.0.0.tar.gz`);
      expect((await readOk(`${id}-1.0.0`)).ui_spec).toEqual(form);
    });

    it('registers a .tar.gz distribution: stores the archive and makes the version Live', async () => {
      await registerOk(distributionTarGz({ id: 'dist-pg', version: '1.0.0', name: 'Dist Pg' }), 'dist-pg-1.0.0.tar.gz');

      const record = await readOk('dist-pg-1.0.0');
      expect(record).toMatchObject({ connector_id: 'dist-pg', version: '1.0.0', name: 'Dist Pg', status: 'Live', type: 'source', category: 'Database', licence: 'MIT', owner: 'Tests' });
      expect(record.ui_spec).toEqual(uiSpec('Dist Pg'));
      expect(record.live_date).toMatch(ISO_UTC);
      const listed = (await listOk({ status: ['Live'] })).data.find((connector) => connector.id === 'dist-pg-1.0.0');
      expect(listed).toMatchObject({ technology: 'python', runtime: 'spark' });
      const stored = await ctx.gw.sql<{ source_url: string; source: unknown }>('SELECT source_url, source FROM connector_registry WHERE id = $1', ['dist-pg-1.0.0']);
      expect(stored.rows[0]!.source_url).toMatch(/^connectors\/dist-pg-1\.0\.0_[0-9a-f]{6}\.tar\.gz$/);
      expect(stored.rows[0]!.source).toEqual({ source: 'dist-pg-1.0.0', main_class: null, main_program: 'dist_pg/__main__.py' });
      expect(await objects()).toContain(stored.rows[0]!.source_url);
      // The work folder is cleaned up after each registration.
      expect(await filesUnder(`${ctx.gw.dataDir}/tmp`)).toEqual([]);
    });

    it('registers a .zip distribution laid out in one top folder (a Python sdist), with its icon as a data URI', async () => {
      const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
      await registerOk(
        distributionZip({ id: 'dist-zip', version: '0.1.0', layout: 'folder', metadata: { icon: 'icon.svg' }, extra: [{ path: 'dist-zip-0.1.0/icon.svg', body: icon }] }),
        'dist-zip-0.1.0.zip',
      );
      const record = await readOk('dist-zip-0.1.0');
      expect(record.iconurl).toBe(`data:image/svg+xml;base64,${icon.toString('base64')}`);
      expect(record.status).toBe('Live');
    });

    it('accepts a .tgz distribution', async () => {
      await registerOk(distributionTarGz({ id: 'dist-tgz' }), 'dist.tgz');
      expect((await readOk('dist-tgz-1.0.0')).status).toBe('Live');
    });

    it('makes a newer version Live and retires the Live version before it', async () => {
      await registerOk(distributionTarGz({ id: 'dist-versions', version: '1.0.0' }), 'v1.tar.gz');
      await registerOk(distributionTarGz({ id: 'dist-versions', version: '2.0.0' }), 'v2.tar.gz');
      expect(await registryStatus(ctx.gw, 'dist-versions-1.0.0')).toBe('Retired');
      expect(await registryStatus(ctx.gw, 'dist-versions-2.0.0')).toBe('Live');
      expectFailure(await ctx.driver.read('dist-versions-1.0.0'), 'CONNECTOR_NOT_FOUND', /dist-versions-1\.0\.0/);
      expect(idsOf((await listOk({ status: ['Retired'] })).data)).toContain('dist-versions-1.0.0');
    });

    it('registers the same version again in place: one row, still the only Live one, with the new ui spec', async () => {
      await registerOk(distributionTarGz({ id: 'dist-again', name: 'First' }), 'a.tar.gz');
      const first = await readOk('dist-again-1.0.0');
      await registerOk(distributionTarGz({ id: 'dist-again', name: 'Second' }), 'b.tar.gz');
      const second = await readOk('dist-again-1.0.0');
      expect(second.name).toBe('Second');
      expect(second.ui_spec).toEqual(uiSpec('Second'));
      expect(second.created_date).toBe(first.created_date);
      const rows = await ctx.gw.sql('SELECT id FROM connector_registry WHERE connector_id = $1', ['dist-again']);
      expect(rows.rows).toHaveLength(1);
    });

    it('retires a built-in connector when a newer version of it is registered', async () => {
      await registerOk(distributionTarGz({ id: 'mysql-connector', version: '1.1.0', name: 'MySQL' }), 'mysql.tar.gz');
      await registerOk(distributionTarGz({ id: 'kafka-connector', version: '1.1.0', name: 'Kafka', category: 'Stream' }), 'kafka.tar.gz');
      expect(await registryStatus(ctx.gw, 'mysql-connector-1.0.0')).toBe('Retired');
      expect(await registryStatus(ctx.gw, 'kafka-connector-1.0.0')).toBe('Retired');
      expect((await readOk('mysql-connector-1.1.0')).name).toBe('MySQL');
      expect((await readOk('kafka-connector-1.1.0')).category).toBe('Stream');
    });

    it('registers every connector of a multi-tenant distribution, each with its own ui spec', async () => {
      // tenant "multiple" without a connectors list is invalid metadata.
      expectFailure(await ctx.driver.register(multiTenantDistribution({ withList: false }), 'os.tar.gz'), 'FAILED_TO_UPLOAD', /required property 'connectors'/);
      await registerOk(multiTenantDistribution(), 'os.tar.gz');
      expect(await readOk('ms-s3-0.2.0')).toMatchObject({ name: 'AWS S3', description: 'S3 buckets', category: 'File', ui_spec: MULTI_TENANT_UI['ms-s3'] });
      expect(await readOk('ms-gcs-0.2.0')).toMatchObject({ name: 'Google Cloud Storage', ui_spec: MULTI_TENANT_UI['ms-gcs'] });
    });

    describe("an archive that cannot be registered: 400 FAILED_TO_UPLOAD (the caller's archive, not a server fault) and nothing changes", () => {
      it.each([
        ['garbage bytes named .tgz', () => garbage(), 'junk.tgz', /Failed to extract the file: the archive could not be read/],
        ['garbage bytes named .zip', () => garbage(), 'junk.zip', /Failed to extract the file: the archive could not be read/],
        ['a file that is not a .tar.gz, .tgz or .zip', () => distributionTarGz({ id: 'bad-ext' }), 'dist.rar', /is not a \.tar\.gz, \.tgz or \.zip archive/],
        [
          'an archive without metadata.json',
          () =>
            tarGz([
              { path: 'no-meta-1.0.0/main.py', body: 'x' },
              { path: 'ui-config.json', body: '{}' },
            ]),
          'nometa.tar.gz',
          /unable to locate the metadata file/,
        ],
        ['an empty archive', () => tarGz([]), 'empty.tar.gz', /the archive could not be read: TAR_BAD_ARCHIVE: Unrecognized archive format/],
        ['metadata.json that is not JSON', () => distributionTarGz({ id: 'bad-json', metadataText: '{"metadata": ' }), 'bad.tar.gz', /metadata\.json is not valid JSON/],
        [
          'metadata without a version',
          () => distributionTarGz({ id: 'no-version', metadata: { version: undefined } }),
          'nov.tar.gz',
          /metadata\.json is invalid: #properties\/metadata\/required must have required property 'version'/,
        ],
        ['metadata with an unknown category', () => distributionTarGz({ id: 'bad-category', category: 'Spreadsheet' }), 'cat.tar.gz', /metadata\.json is invalid: .*category/],
        [
          'no <id>-<version> source folder',
          () => distributionTarGz({ id: 'no-folder', withoutSourceFolder: true }),
          'nofolder.tar.gz',
          /connector source folder not found; expecting no-folder-1\.0\.0 folder inside the archive/,
        ],
        ['no ui-config.json', () => distributionTarGz({ id: 'no-ui', uiConfig: null }), 'noui.tar.gz', /unable to locate the ui configuration file/],
        ['a ui spec without a schema', () => distributionTarGz({ id: 'ui-no-schema', uiConfig: { properties: {} } }), 'noschema.tar.gz', /"schema" object/],
        ['an icon file missing from the archive', () => distributionTarGz({ id: 'no-icon', metadata: { icon: 'missing.png' } }), 'noicon.tar.gz', /icon file "missing\.png" is not in the archive/],
      ])('refuses %s', async (_, bytes, filename, message) => {
        const registry = await registrySnapshot(ctx.gw);
        const before = await objects();
        expectFailure(await ctx.driver.register(bytes(), filename), 'FAILED_TO_UPLOAD', message);
        expect(await registrySnapshot(ctx.gw)).toEqual(registry);
        expect(await objects()).toEqual(before);
        expect(await filesUnder(`${ctx.gw.dataDir}/tmp`)).toEqual([]);
      });
    });
  });
}
