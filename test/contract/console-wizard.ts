// The original console's dataset wizard and list page, replayed call by call as it sends them
// (web-console-v2: Ingestion, ConnectorConfiguration, Processing, Storage, Preview, DatasetList),
// written once for both transports: a team that keeps its console must be able to take a dataset
// from sample events to Live, feed it, watch it and carry it to another gateway.
import { describe, expect, it } from '@jest/globals';
import type { Json } from '../support/datasets.js';
import type { AuthoringDriver } from './dataset-authoring.js';
import type { HealthDriver } from './dataset-health.js';
import type { PublishingDriver } from './dataset-publishing.js';
import { expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface WizardDriver extends AuthoringDriver, PublishingDriver, HealthDriver {
  /** The schema inferred from sample events (POST /v2/datasets/dataschema). */
  inferSchema(samples: Json[], datasetId: string): Promise<Outcome<Json>>;
  /** The list page: dataset_id and status of each dataset in `statuses`. */
  list(statuses: string[]): Promise<Outcome<{ dataset_id: string; status: string }[]>>;
}

const SAMPLES = [
  { id: 'r1', device: 'pump-1', site: 'north', reading: { celsius: 21.5 }, observed: '2026-11-24T10:00:00Z' },
  { id: 'r2', device: 'pump-2', site: 'south', reading: { celsius: 19.0 }, observed: '2026-11-24T10:05:00Z' },
];

export function consoleWizardScenarios(ctx: SuiteContext<WizardDriver>): void {
  describe('the dataset wizard', () => {
    it('takes sample events to a Live dataset that ingests, reports health, lists, exports and imports elsewhere', async () => {
      const id = `wizard-${ctx.transport}`;
      const d = ctx.driver;
      // Ingestion step: infer the schema from the uploaded samples, then create the draft with it.
      const inferred = expectOk(await d.inferSchema(SAMPLES, id));
      const schema = inferred.schema as Json;
      expect(Object.keys(schema.properties as Json)).toEqual(['device', 'id', 'observed', 'reading', 'site']);
      let key = expectOk(
        await d.create({
          name: 'Pump readings',
          dataset_id: id,
          type: 'event',
          data_schema: schema,
          dataset_config: { keys_config: {}, indexing_config: {}, file_upload_path: ['wizard/samples.json'] },
          connectors_config: [],
          sample_data: { mergedEvent: SAMPLES[0] },
        }),
      ).version_key;
      const step = async (changes: Json) => {
        key = expectOk(await d.update({ dataset_id: id, version_key: key, ...changes })).version_key;
      };
      // Schema details: the reviewer drops `site` from the schema.
      const { site: _site, ...kept } = schema.properties as Json;
      await step({ name: 'Pump readings', type: 'event', data_schema: { ...schema, properties: kept } });
      // Connector step.
      await step({
        connectors_config: [
          {
            value: {
              id: `${id}-kafka-connector-1.0.0`,
              connector_id: 'kafka-connector-1.0.0',
              connector_config: { source_kafka_broker_servers: 'kafka:9092', source_kafka_topic: 'pumps' },
              operations_config: {},
              version: 'v2',
            },
            action: 'upsert',
          },
        ],
      });
      // Processing step: a transformation, validation, dedup.
      await step({
        transformations_config: [
          { value: { field_key: 'device', transformation_function: { type: 'jsonata', expr: '$uppercase(device)', category: 'transform', datatype: 'string' }, mode: 'Strict' }, action: 'upsert' },
        ],
      });
      // (The validation section sends back the draft's schema as it read it.)
      const current = expectOk(await d.draft(id));
      await step({ validation_config: { validate: true, mode: 'Strict' }, data_schema: current.data_schema });
      await step({ dedup_config: { drop_duplicates: true, dedup_key: 'id', dedup_period: 604800 } });
      // Storage step.
      await step({
        dataset_config: {
          file_upload_path: ['wizard/samples.json'],
          indexing_config: { olap_store_enabled: true, lakehouse_enabled: false, cache_enabled: false },
          keys_config: { data_key: 'id', partition_key: '', timestamp_key: 'observed' },
        },
        dataset_id: id,
      });
      // Tags, then publish.
      await step({ tags: [{ value: 'pumps', action: 'upsert' }] });
      expectOk(await d.transition(id, 'ReadyToPublish'));
      expectOk(await d.transition(id, 'Live'));

      expectOk(await d.ingest(id, [{ id: 'e1', device: 'pump-1', reading: { celsius: 20 }, observed: '2026-11-25T08:00:00Z' }]));
      const health = expectOk(await d.check(id, ['processing', 'query']));
      expect(health).toMatchObject({ status: 'Healthy' });
      // The list page: every Live dataset, then health for each of them.
      const live = expectOk(await d.list(['Live']));
      expect(live).toContainEqual({ dataset_id: id, status: 'Live' });
      for (const dataset of live) expectOk(await d.check(dataset.dataset_id, ['processing', 'query']));

      // Export, and import the export under a new id: nothing is ignored, and it publishes too.
      const exported = expectOk(await d.exportDataset(id));
      expect(exported).toMatchObject({ name: 'Pump readings', tags: ['pumps'], dataset_config: { keys_config: { data_key: 'id', timestamp_key: 'observed' } } });
      expect(Object.keys((exported.data_schema as Json).properties as Json)).not.toContain('site');
      const copy = `${id}-copy`;
      expect(expectOk(await d.importDataset({ ...exported, id: copy, dataset_id: copy })) ?? null).toBeNull();
      expectOk(await d.transition(copy, 'ReadyToPublish'));
      expectOk(await d.transition(copy, 'Live'));
    });
  });
}
