// Publishing edge cases the original's clients rely on, written once for both transports.
import { describe, expect, it } from '@jest/globals';
import { definition, seedDataset } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface PublishingDriver {
  /** The import's ignoredFields (null when nothing was ignored). */
  importDataset(definition: Record<string, unknown>): Promise<Outcome<unknown>>;
  transition(datasetId: string, to: 'ReadyToPublish' | 'Live'): Promise<Outcome<unknown>>;
  ingest(datasetId: string, events: Record<string, unknown>[]): Promise<Outcome<unknown>>;
  /** The exported definition (contract field names). */
  exportDataset(datasetId: string, status?: 'Live' | 'ReadyToPublish' | 'Draft'): Promise<Outcome<Record<string, unknown>>>;
}

/** What an export says about a dataset besides who and when: what must survive a round trip. */
function substance(definition: Record<string, unknown>): Record<string, unknown> {
  const {
    id: _id,
    dataset_id: _datasetId,
    status: _status,
    version: _version,
    version_key: _key,
    created_by: _cb,
    updated_by: _ub,
    created_date: _cd,
    updated_date: _ud,
    published_date: _pd,
    ...rest
  } = definition;
  return rest;
}

export function datasetPublishingScenarios(ctx: SuiteContext<PublishingDriver>): void {
  describe('importing', () => {
    it('lists nothing as ignored for a clean definition that carries the fields the gateway sets (as an export does)', async () => {
      const exported = { ...definition(`clean-import-${ctx.transport}`), status: 'Live', version: 3, version_key: '1700000000000', created_by: 'someone', created_date: '2026-01-01T00:00:00Z' };
      expect(expectOk(await ctx.driver.importDataset(exported)) ?? null).toBeNull();
    });
  });

  describe('exporting', () => {
    it('gives a definition that import takes back unchanged under a new id (nothing ignored)', async () => {
      const id = `export-src-${ctx.transport}`;
      const copy = `export-copy-${ctx.transport}`;
      await seedDataset(ctx.gw, id, 'Live', { tags: ['exported'], transformations_config: [] });
      const exported = expectOk(await ctx.driver.exportDataset(id));
      expect(exported).toMatchObject({ dataset_id: id, status: 'Live' });
      expect(expectOk(await ctx.driver.importDataset({ ...exported, id: copy, dataset_id: copy })) ?? null).toBeNull();
      expectOk(await ctx.driver.transition(copy, 'ReadyToPublish'));
      const reexported = expectOk(await ctx.driver.exportDataset(copy, 'ReadyToPublish'));
      expect(substance(reexported)).toEqual(substance(exported));
    });

    it('refuses a Draft (incomplete) and names a dataset that does not exist', async () => {
      const id = `export-draft-${ctx.transport}`;
      await seedDataset(ctx.gw, id, 'Draft');
      expectFailure(await ctx.driver.exportDataset(id, 'Draft'), 'DATASET_EXPORT_FAILURE', /status:Draft cannot be exported/);
      expectFailure(await ctx.driver.exportDataset(`export-none-${ctx.transport}`), 'DATASET_NOT_FOUND', /export-none/);
    });
  });

  describe('a dataset without a timestamp key (the contract allows an empty one)', () => {
    it('reaches ReadyToPublish as an event dataset too', async () => {
      const id = `no-ts-event-${ctx.transport}`;
      expectOk(await ctx.driver.importDataset(definition(id, { dataset_config: { keys_config: { timestamp_key: '' } } })));
      expectOk(await ctx.driver.transition(id, 'ReadyToPublish'));
    });

    it('reaches Live as a master dataset, and its events take their arrival time as event time', async () => {
      const id = `no-ts-master-${ctx.transport}`;
      expectOk(await ctx.driver.importDataset(definition(id, { type: 'master', dataset_config: { keys_config: { data_key: 'userid', timestamp_key: '' } } })));
      expectOk(await ctx.driver.transition(id, 'ReadyToPublish'));
      expectOk(await ctx.driver.transition(id, 'Live'));
      const before = Date.now();
      expectOk(await ctx.driver.ingest(id, [{ id: 'm1', userid: 'u1', amount: 3 }]));
      const rows = await ctx.gw.sql<{ event_ms: number; arrival_ms: number }>(
        `SELECT extract(epoch FROM event_time) * 1000 AS event_ms, extract(epoch FROM arrival_time) * 1000 AS arrival_ms FROM events WHERE dataset_id = $1`,
        [id],
      );
      expect(rows.rows).toHaveLength(1);
      expect(Number(rows.rows[0]!.event_ms)).toBe(Number(rows.rows[0]!.arrival_ms));
      expect(Number(rows.rows[0]!.event_ms)).toBeGreaterThanOrEqual(before - 1000);
    });
  });
}
