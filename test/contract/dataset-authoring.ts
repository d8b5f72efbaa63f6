// Authoring a draft as the original's console does (create, then one update per wizard step),
// written once for both transports: defaults, the optimistic lock, change lists, the cascade of
// removed schema fields, sealed connector credentials, and every refusal with its code.
import { describe, expect, it } from '@jest/globals';
import { createConnectorSecrets } from '../../src/modules/datasets/index.js';
import { seedDataset, type Json } from '../support/datasets.js';
import { expectFailure, expectOk, fieldNameOn, type Outcome, type SuiteContext } from './harness.js';

/** The key the suite's gateways seal connector configurations with (so a test can open them). */
export const CONNECTOR_KEY = 'ab'.repeat(32);

export interface WrittenDraft {
  id: string;
  version_key: string;
}

export interface AuthoringDriver {
  /** POST /v2/datasets/create's request (contract names). */
  create(request: Json): Promise<Outcome<WrittenDraft>>;
  /** PATCH /v2/datasets/update's request (contract names, change lists as the console sends them). */
  update(request: Json): Promise<Outcome<WrittenDraft>>;
  /** The draft's whole definition, as the console reads it (mode=edit). */
  draft(datasetId: string): Promise<Outcome<Json>>;
}

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['id', 'device', 'reading'],
  properties: {
    id: { type: 'string', arrival_format: 'text', data_type: 'string' },
    device: { type: 'string', arrival_format: 'text', data_type: 'string' },
    reading: { type: 'object', properties: { celsius: { type: 'number' }, unit: { type: 'string' } } },
  },
  additionalProperties: true,
};

/** What the console's first wizard step sends (Ingestion.tsx): name, id, schema, a bare dataset_config. */
function wizardCreate(id: string, extra: Json = {}): Json {
  return {
    name: `Wizard ${id}`,
    dataset_id: id,
    type: 'event',
    data_schema: SCHEMA,
    dataset_config: { keys_config: {}, indexing_config: {}, file_upload_path: ['upload/sample.json'] },
    sample_data: { mergedEvent: { id: 'e1', device: 'd1' } },
    ...extra,
  };
}

const transformation = (fieldKey: string, expr = 'device', mode = 'Strict') => ({
  field_key: fieldKey,
  transformation_function: { type: 'jsonata', expr, category: 'transform', datatype: 'string' },
  mode,
});

export function datasetAuthoringScenarios(ctx: SuiteContext<AuthoringDriver>): void {
  /** A field as this transport's messages name it (dataSchema over GraphQL, data_schema over REST). */
  const named = (name: Parameters<typeof fieldNameOn>[1]) => fieldNameOn(ctx.transport, name);
  /** A created draft and its current version_key, in one line. */
  async function created(id: string, extra: Json = {}): Promise<string> {
    return expectOk(await ctx.driver.create(wizardCreate(id, extra))).version_key;
  }

  describe('create', () => {
    it('stores a Draft with the defaults filled in and answers its id and version_key', async () => {
      const answer = expectOk(await ctx.driver.create(wizardCreate('author-new')));
      expect(answer).toEqual({ id: 'author-new', version_key: expect.stringMatching(/^\d+$/) });
      const draft = expectOk(await ctx.driver.draft('author-new'));
      expect(draft).toMatchObject({
        dataset_id: 'author-new',
        name: 'Wizard author-new',
        status: 'Draft',
        version: 1,
        version_key: answer.version_key,
        api_version: 'v2',
        router_config: { topic: 'author-new' },
        validation_config: { validate: true, mode: 'Strict' },
        dataset_config: {
          keys_config: { data_key: '', partition_key: '', timestamp_key: 'obsrv_meta.syncts' },
          indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
          file_upload_path: ['upload/sample.json'],
        },
        sample_data: { mergedEvent: { id: 'e1', device: 'd1' } },
        tags: [],
      });
    });

    it('refuses an id that already has a draft or a published version (DATASET_EXISTS)', async () => {
      await created('author-twice');
      expectFailure(await ctx.driver.create(wizardCreate('author-twice')), 'DATASET_EXISTS', /author-twice/);
      await seedDataset(ctx.gw, 'author-live', 'Live');
      expectFailure(await ctx.driver.create(wizardCreate('author-live')), 'DATASET_EXISTS', /author-live/);
    });

    // The service's rules (issue 34; REST's schema held the length and pattern before): one message on both transports.
    it('refuses an id no dataset may have (a leading dot, over 200 characters) with DATASET_INVALID_INPUT, naming the rule, and stores nothing', async () => {
      expectFailure(
        await ctx.driver.create(wizardCreate('.author-dot')),
        'DATASET_INVALID_INPUT',
        new RegExp(`^#properties/${named('datasetId')}/pattern must match pattern "\\^\\[A-Za-z0-9\\]\\[A-Za-z0-9._-\\]\\*\\$" at /${named('datasetId')}$`),
      );
      expectFailure(
        await ctx.driver.create(wizardCreate('a'.repeat(201))),
        'DATASET_INVALID_INPUT',
        new RegExp(`^#properties/${named('datasetId')}/maxLength must NOT have more than 200 characters at /${named('datasetId')}$`),
      );
      expectFailure(await ctx.driver.draft('.author-dot'), 'DATASET_NOT_FOUND');
    });

    it('keeps the last transformation of each field and refuses a bad one, naming it', async () => {
      await created('author-dedup', { transformations_config: [transformation('device', 'a'), transformation('device', 'b')] });
      const draft = expectOk(await ctx.driver.draft('author-dedup'));
      expect(draft.transformations_config).toEqual([transformation('device', 'b')]);
      const { mode: _mode, ...modeless } = transformation('device');
      expectFailure(
        await ctx.driver.create(wizardCreate('author-bad-item', { transformations_config: [modeless] })),
        'DATASET_INVALID_INPUT',
        new RegExp(`^${named('transformationsConfig')}\\[0\\].*mode`),
      );
    });

    it('refuses a dataset_config the defaults cannot complete, naming the field', async () => {
      expectFailure(await ctx.driver.create(wizardCreate('author-bad-config', { dataset_config: { indexing_config: { olap_store_enabled: 'yes' } } })), 'DATASET_INVALID_INPUT', /olap_store_enabled/);
      expectFailure(await ctx.driver.draft('author-bad-config'), 'DATASET_NOT_FOUND');
    });

    it('refuses two denorm fields writing one output field (DATASET_DUPLICATE_DENORM_KEY)', async () => {
      const field = { denorm_key: 'device', dataset_id: 'devices', denorm_out_field: 'device_meta' };
      expectFailure(
        await ctx.driver.create(wizardCreate('author-dup-denorm', { denorm_config: { denorm_fields: [field, { ...field, denorm_key: 'id' }] } })),
        'DATASET_DUPLICATE_DENORM_KEY',
        /device_meta/,
      );
    });

    it("accepts the original's redis_db_* names and stores the contract's cache_db_*", async () => {
      await created('author-redis', { denorm_config: { redis_db_host: 'cache.internal', redis_db_port: 6380, denorm_fields: [] } });
      expect(expectOk(await ctx.driver.draft('author-redis')).denorm_config).toEqual({ cache_db_host: 'cache.internal', cache_db_port: 6380, denorm_fields: [] });
    });

    it('seals connector credentials at rest: neither the table nor a read holds them in clear', async () => {
      const config = { source: { brokers: ['kafka:9092'], password: 'hunter2-secret' } };
      await created('author-sealed', { connectors_config: [{ id: 'author-sealed-kafka', connector_id: 'kafka-connector-1.0.0', connector_config: config, version: 'v2' }] });
      const { rows } = await ctx.gw.sql<{ stored: string }>(`SELECT connectors_config::text AS stored FROM datasets WHERE dataset_id = 'author-sealed'`);
      expect(rows[0]!.stored).not.toContain('hunter2');
      const read = expectOk(await ctx.driver.draft('author-sealed'));
      expect(JSON.stringify(read)).not.toContain('hunter2');
      const sealed = (read.connectors_config as Json[])[0]!.connector_config as string;
      expect(sealed).toMatch(/^sealed:v1:/);
      // Authenticated, and bound to its dataset: it opens only with the key and for that dataset.
      const secrets = createConnectorSecrets(async () => Buffer.from(CONNECTOR_KEY, 'hex'));
      expect(await secrets.open('author-sealed', sealed)).toEqual(config);
      await expect(secrets.open('another-dataset', sealed)).rejects.toThrow();
    });
  });

  describe('update', () => {
    it('changes one section at a time, each answer carrying the key the next update must name', async () => {
      let key = await created('author-steps');
      const step = async (changes: Json) => {
        const answer = expectOk(await ctx.driver.update({ dataset_id: 'author-steps', version_key: key, ...changes }));
        expect(answer.version_key).not.toBe(key);
        key = answer.version_key;
      };
      await step({ name: 'Renamed', dataset_config: { keys_config: { data_key: 'id', timestamp_key: 'obsrv_meta.syncts' } } });
      await step({
        tags: [
          { value: 'iot', action: 'upsert' },
          { value: 'raw', action: 'upsert' },
        ],
      });
      await step({ tags: [{ value: 'raw', action: 'remove' }] });
      await step({
        transformations_config: [
          { value: transformation('device'), action: 'upsert' },
          { value: transformation('id', 'id'), action: 'upsert' },
        ],
      });
      await step({
        transformations_config: [
          { value: transformation('device', 'upper(device)', 'Lenient'), action: 'upsert' },
          { value: { field_key: 'id' }, action: 'remove' },
        ],
      });
      await step({ denorm_config: { denorm_fields: [{ value: { denorm_key: 'device', dataset_id: 'devices', denorm_out_field: 'device_meta' }, action: 'upsert' }] } });
      await step({ dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 3600 } });

      const draft = expectOk(await ctx.driver.draft('author-steps'));
      expect(draft).toMatchObject({
        name: 'Renamed',
        version_key: key,
        tags: ['iot'],
        transformations_config: [transformation('device', 'upper(device)', 'Lenient')],
        denorm_config: { denorm_fields: [{ denorm_key: 'device', dataset_id: 'devices', denorm_out_field: 'device_meta' }] },
        dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 3600 },
        // dataset_config merges key by key: what the update did not name stays.
        dataset_config: { keys_config: { data_key: 'id', timestamp_key: 'obsrv_meta.syncts' }, file_upload_path: ['upload/sample.json'] },
      });
    });

    it('refuses a stale version_key (DATASET_OUTDATED) and changes nothing', async () => {
      const first = await created('author-stale');
      expectOk(await ctx.driver.update({ dataset_id: 'author-stale', version_key: first, name: 'Second' }));
      expectFailure(await ctx.driver.update({ dataset_id: 'author-stale', version_key: first, name: 'Lost' }), 'DATASET_OUTDATED', /outdated/);
      expect(expectOk(await ctx.driver.draft('author-stale')).name).toBe('Second');
    });

    it('lets exactly one of two concurrent updates with the same version_key win, and keeps its change', async () => {
      const key = await created('author-race');
      const outcomes = await Promise.all(
        ['Alpha', 'Beta', 'Gamma', 'Delta'].map((name) => ctx.driver.update({ dataset_id: 'author-race', version_key: key, name, tags: [{ value: name, action: 'upsert' }] })),
      );
      const winners = outcomes.flatMap((outcome, index) => (outcome.ok ? [index] : []));
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) if (!outcome.ok) expect(outcome.code).toBe('DATASET_OUTDATED');
      const name = ['Alpha', 'Beta', 'Gamma', 'Delta'][winners[0]!]!;
      expect(expectOk(await ctx.driver.draft('author-race'))).toMatchObject({ name, tags: [name] });
    });

    it('drops what names a field removed from the schema: its transformations, denorm fields and keys', async () => {
      let key = await created('author-cascade', {
        transformations_config: [transformation('device'), transformation('reading.unit', 'unit'), transformation('id', 'id')],
        denorm_config: { denorm_fields: [{ denorm_key: 'device', dataset_id: 'devices', denorm_out_field: 'device_meta' }] },
      });
      key = expectOk(
        await ctx.driver.update({ dataset_id: 'author-cascade', version_key: key, dataset_config: { keys_config: { data_key: 'device', partition_key: 'reading.unit', timestamp_key: '' } } }),
      ).version_key;
      const { device: _device, reading: _reading, ...kept } = SCHEMA.properties;
      expectOk(await ctx.driver.update({ dataset_id: 'author-cascade', version_key: key, data_schema: { ...SCHEMA, properties: kept } }));
      const draft = expectOk(await ctx.driver.draft('author-cascade'));
      expect(draft.transformations_config).toEqual([transformation('id', 'id')]);
      expect((draft.denorm_config as Json).denorm_fields).toEqual([]);
      expect((draft.dataset_config as Json).keys_config).toEqual({ data_key: '', partition_key: '', timestamp_key: '' });
      // ...and from `required`, at every level, so events without them are not refused.
      expect((draft.data_schema as Json).required).toEqual(['id']);
    });

    it('upserts a connector by its id, sealing the new configuration', async () => {
      const key = await created('author-connector', { connectors_config: [{ id: 'c1', connector_id: 'kafka-connector-1.0.0', connector_config: { topic: 'old' } }] });
      expectOk(
        await ctx.driver.update({
          dataset_id: 'author-connector',
          version_key: key,
          connectors_config: [{ value: { id: 'c1', connector_id: 'kafka-connector-1.0.0', connector_config: { topic: 'new' }, version: 'v2' }, action: 'upsert' }],
        }),
      );
      const connectors = expectOk(await ctx.driver.draft('author-connector')).connectors_config as Json[];
      expect(connectors).toHaveLength(1);
      const secrets = createConnectorSecrets(async () => Buffer.from(CONNECTOR_KEY, 'hex'));
      expect(await secrets.open('author-connector', connectors[0]!.connector_config as string)).toEqual({ topic: 'new' });
    });

    it('keeps a ReadyToPublish draft ReadyToPublish', async () => {
      await seedDataset(ctx.gw, 'author-ready', 'ReadyToPublish');
      const draft = expectOk(await ctx.driver.draft('author-ready'));
      expectOk(await ctx.driver.update({ dataset_id: 'author-ready', version_key: draft.version_key, name: 'Still ready' }));
      expect(expectOk(await ctx.driver.draft('author-ready'))).toMatchObject({ name: 'Still ready', status: 'ReadyToPublish' });
    });

    it('answers each refusal with its own code and a message naming what is wrong', async () => {
      const key = await created('author-refusals');
      expectFailure(await ctx.driver.update({ dataset_id: 'author-refusals', version_key: key }), 'DATASET_UPDATE_NO_FIELDS', /at least one field/);
      expectFailure(await ctx.driver.update({ dataset_id: 'author-nowhere', version_key: key, name: 'x' }), 'DATASET_NOT_EXISTS', /author-nowhere/);
      expectFailure(
        await ctx.driver.update({ dataset_id: 'author-refusals', version_key: key, transformations_config: [{ value: { field_key: 'device' }, action: 'upsert' }] }),
        'DATASET_UPDATE_INPUT_INVALID',
        new RegExp(`^${named('transformationsConfig')}\\[0\\]`),
      );
      expectFailure(await ctx.driver.update({ dataset_id: 'author-refusals', version_key: key, validation_config: { validate: true, mode: 'Sometimes' } }), 'DATASET_UPDATE_INPUT_INVALID', /mode/);
      // None of these changed the draft.
      expect(expectOk(await ctx.driver.draft('author-refusals')).version_key).toBe(key);
    });

    it('refuses a published dataset without a draft, saying how to start one', async () => {
      await seedDataset(ctx.gw, 'author-published', 'Live');
      expectFailure(await ctx.driver.update({ dataset_id: 'author-published', version_key: '1', name: 'x' }), 'DATASET_NOT_IN_DRAFT_STATE_TO_UPDATE', /mode=edit/);
    });
  });
}
