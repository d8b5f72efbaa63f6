// What a Live dataset is queried through and checked against, written once for both transports:
// aliases, the datasource list, reset of the query side, and the schema check of single events.
import { describe, expect, it } from '@jest/globals';
import { seedDataset, type Json } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface DatasourceEntry {
  datasource: string;
  dataset_id: string;
  status: string;
  type: string;
  alias: string | null;
}

export interface DatasourcesDriver {
  setAlias(datasetId: string, alias: string, table?: string): Promise<Outcome<unknown>>;
  /** The alias a dataset's Live read shows. */
  aliasOf(datasetId: string): Promise<Outcome<string | null>>;
  datasources(statuses?: string[], type?: string): Promise<Outcome<DatasourceEntry[]>>;
  reset(datasetId: string, category: 'processing' | 'query'): Promise<Outcome<{ status: string }>>;
  checkEvent(datasetId: string, isLive: boolean, event: unknown): Promise<Outcome<{ isValid: boolean; message: string }>>;
  retire(datasetId: string): Promise<Outcome<unknown>>;
}

export function datasourceScenarios(ctx: SuiteContext<DatasourcesDriver>): void {
  describe('aliases', () => {
    it('names a Live dataset, shows in its read and its datasource, and is given up on retire', async () => {
      await seedDataset(ctx.gw, 'alias-one', 'Live');
      expectOk(await ctx.driver.setAlias('alias-one', 'first.alias'));
      expect(expectOk(await ctx.driver.aliasOf('alias-one'))).toBe('first.alias');
      expect(expectOk(await ctx.driver.datasources())).toContainEqual(
        expect.objectContaining({ datasource: 'first.alias', dataset_id: 'alias-one', alias: 'first.alias', status: 'Live', type: 'embedded' }),
      );
      // Retiring gives the alias up: the retired dataset shows none, and another may take it.
      expectOk(await ctx.driver.retire('alias-one'));
      expect(expectOk(await ctx.driver.aliasOf('alias-one'))).toBeNull();
      await seedDataset(ctx.gw, 'alias-heir', 'Live');
      expectOk(await ctx.driver.setAlias('alias-heir', 'first.alias'));
      expect(expectOk(await ctx.driver.aliasOf('alias-heir'))).toBe('first.alias');
    });

    it("refuses a name outside the rule, one already taken, another dataset's id, a table it lacks, a dataset without a Live version", async () => {
      await seedDataset(ctx.gw, 'alias-two', 'Live');
      await seedDataset(ctx.gw, 'alias-three', 'Live');
      await seedDataset(ctx.gw, 'alias-draft', 'Draft');
      expectFailure(await ctx.driver.setAlias('alias-two', 'Upper_Case'), 'ALIAS_NAME_INVALID', /lowercase letters, numbers, periods, and dashes/);
      expectOk(await ctx.driver.setAlias('alias-two', 'taken'));
      expectFailure(await ctx.driver.setAlias('alias-three', 'taken'), 'ALIAS_NOT_UNIQUE', /taken/);
      expectFailure(await ctx.driver.setAlias('alias-three', 'alias-two'), 'ALIAS_NOT_UNIQUE', /alias-two/);
      expectFailure(await ctx.driver.setAlias('alias-three', 'fresh', 'no_such_table'), 'TABLE_NOT_EXISTS', /no_such_table/);
      expectFailure(await ctx.driver.setAlias('alias-draft', 'fresh'), 'DATASET_NOT_EXISTS', /alias-draft/);
      expect(expectOk(await ctx.driver.aliasOf('alias-three'))).toBeNull();
    });

    // The service's rules (issue 34; REST's schema held the lengths before): one message on both transports.
    it('refuses an empty alias, one over 200 characters and a dataset id no dataset can have, naming what is wrong', async () => {
      await seedDataset(ctx.gw, 'alias-four', 'Live');
      expectFailure(await ctx.driver.setAlias('alias-four', ''), 'ALIAS_NAME_INVALID', /^Alias name must only contain lowercase letters, numbers, periods, and dashes\.$/);
      expectFailure(await ctx.driver.setAlias('alias-four', 'a'.repeat(201)), 'ALIAS_NAME_INVALID', /^Alias name is 201 characters long; at most 200 are allowed\.$/);
      expectFailure(await ctx.driver.setAlias('d'.repeat(201), 'fresh'), 'DATASET_ALIAS_INPUT_INVALID', /^dataset_id is 201 characters long; at most 200 are allowed$/);
      expectFailure(await ctx.driver.setAlias('', 'fresh'), 'DATASET_ALIAS_INPUT_INVALID', /^dataset_id must not be empty$/);
      expect(expectOk(await ctx.driver.aliasOf('alias-four'))).toBeNull();
    });
  });

  describe('datasources', () => {
    it('lists Live datasets only, and nothing for draft statuses', async () => {
      await seedDataset(ctx.gw, 'ds-live', 'Live');
      await seedDataset(ctx.gw, 'ds-draft', 'Draft');
      await seedDataset(ctx.gw, 'ds-retired', 'Retired');
      const ids = expectOk(await ctx.driver.datasources()).map((entry) => entry.dataset_id);
      expect(ids).toContain('ds-live');
      expect(ids).not.toContain('ds-draft');
      expect(ids).not.toContain('ds-retired');
      expect(expectOk(await ctx.driver.datasources(['Draft']))).toEqual([]);
    });

    // The service's rules (issue 34; REST's schema held them before): one message on both transports.
    it("narrows to an engine (this gateway's is embedded; the original's datalake lists none), and refuses any other engine or over 10 statuses", async () => {
      await seedDataset(ctx.gw, 'ds-engine', 'Live');
      expect(expectOk(await ctx.driver.datasources(undefined, 'embedded')).map((entry) => entry.dataset_id)).toContain('ds-engine');
      expect(expectOk(await ctx.driver.datasources(undefined, 'datalake'))).toEqual([]);
      expect(expectOk(await ctx.driver.datasources(undefined, 'druid'))).toEqual([]);
      expectFailure(await ctx.driver.datasources(undefined, 'hudi'), 'DATASOURCE_LIST_INPUT_INVALID', /^the type filter must be one of druid, datalake, embedded \(got "hudi"\)$/);
      expect(expectOk(await ctx.driver.datasources(Array<string>(10).fill('Live'))).map((entry) => entry.dataset_id)).toContain('ds-engine');
      expectFailure(await ctx.driver.datasources(Array<string>(11).fill('Live')), 'DATASOURCE_LIST_INPUT_INVALID', /^the status filter lists 11 values; at most 10 are allowed$/);
    });
  });

  describe('reset', () => {
    it('remakes a datasource that went missing (query) and completes processing', async () => {
      await seedDataset(ctx.gw, 'reset-me', 'Live');
      await ctx.gw.sql('DROP VIEW datasources."reset-me"');
      expect(expectOk(await ctx.driver.datasources()).map((entry) => entry.dataset_id)).not.toContain('reset-me');
      expect(expectOk(await ctx.driver.reset('reset-me', 'query'))).toEqual({ status: 'Completed' });
      expect(expectOk(await ctx.driver.datasources()).map((entry) => entry.dataset_id)).toContain('reset-me');
      expect(expectOk(await ctx.driver.reset('reset-me', 'processing'))).toEqual({ status: 'Completed' });
      expectFailure(await ctx.driver.reset('reset-nowhere', 'query'), 'DATASET_NOT_FOUND', /reset-nowhere/);
    });
  });

  describe('schema check', () => {
    it("judges an event against the Live schema or the draft's, naming the first problem", async () => {
      await seedDataset(ctx.gw, 'check-me', 'LiveWithDraft');
      const good: Json = { id: 'e1', ts: '2026-11-25T00:00:00Z', userid: 'u1', amount: 3 };
      expect(expectOk(await ctx.driver.checkEvent('check-me', true, good))).toEqual({ isValid: true, message: 'The event is valid' });
      const bad = expectOk(await ctx.driver.checkEvent('check-me', false, { ...good, amount: 'three' }));
      expect(bad).toEqual({ isValid: false, message: expect.stringMatching(/amount/) });
      expectFailure(await ctx.driver.checkEvent('check-nowhere', true, good), 'DATASET_NOT_EXISTS', /check-nowhere/);
    });

    // The service's rule (issue 34; REST's schema held the type before): one message on both transports.
    it('refuses an event that is not an object (a list of events, JSON text), naming it', async () => {
      for (const event of [[{ id: 'e1' }], '{"id": "e1"}']) {
        expectFailure(await ctx.driver.checkEvent('check-shape', true, event), 'SCHEMA_VALIDATOR_INVALID_INPUT', /^event must be a JSON object$/);
      }
    });

    it('takes any dataset id a dataset may have (1 to 200 characters), and names one that no dataset can have', async () => {
      // The original wanted 3 characters here, though a dataset's id may have 1 (issue 34: one rule for an id).
      expectFailure(await ctx.driver.checkEvent('ab', true, { id: 'e1' }), 'DATASET_NOT_EXISTS', /^Dataset does not exists with id:ab /);
      expectFailure(await ctx.driver.checkEvent('', true, { id: 'e1' }), 'SCHEMA_VALIDATOR_INVALID_INPUT', /^datasetId must not be empty$/);
      expectFailure(await ctx.driver.checkEvent('d'.repeat(201), true, { id: 'e1' }), 'SCHEMA_VALIDATOR_INVALID_INPUT', /^datasetId is 201 characters long; at most 200 are allowed$/);
    });
  });
}
