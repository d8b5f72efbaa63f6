// Publishing edge cases the original's clients rely on, written once for both transports.
import { describe, expect, it } from '@jest/globals';
import { definition } from '../support/datasets.js';
import { expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface PublishingDriver {
  importDataset(definition: Record<string, unknown>): Promise<Outcome<unknown>>;
  transition(datasetId: string, to: 'ReadyToPublish' | 'Live'): Promise<Outcome<unknown>>;
  ingest(datasetId: string, events: Record<string, unknown>[]): Promise<Outcome<unknown>>;
}

export function datasetPublishingScenarios(ctx: SuiteContext<PublishingDriver>): void {
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
