// Dataset health checks (POST /v2/datasets/health, `datasetHealth`), written once for both
// transports: what the console's dataset list asks of every Live dataset.
import { describe, expect, it } from '@jest/globals';
import { seedDataset } from '../support/datasets.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export type HealthCategory = 'infra' | 'processing' | 'query';

/** A health answer in the REST contract's spelling (statuses Healthy / UnHealthy). */
export interface HealthAnswer {
  status: string;
  details: { category: HealthCategory; status: string; components: { type: string; status: string; message?: string }[] }[];
}

export interface HealthDriver {
  check(datasetId: string, categories: HealthCategory[]): Promise<Outcome<HealthAnswer>>;
}

export function datasetHealthScenarios(ctx: SuiteContext<HealthDriver>): void {
  describe('the platform (dataset_id *)', () => {
    it('probes the database, the event bus and the query engine, all healthy on the embedded defaults', async () => {
      const health = expectOk(await ctx.driver.check('*', ['infra']));
      expect(health.status).toBe('Healthy');
      expect(health.details).toEqual([
        {
          category: 'infra',
          status: 'Healthy',
          components: [
            { type: 'database', status: 'Healthy' },
            { type: 'event_bus', status: 'Healthy' },
            { type: 'query_engine', status: 'Healthy' },
          ],
        },
      ]);
    });

    it('refuses another category for *, naming the rule', async () => {
      expectFailure(await ctx.driver.check('*', ['infra', 'processing']), 'DATASET_HEALTH_INVALID_INPUT', /checks the infra category only/);
    });
  });

  describe('a Live dataset', () => {
    it('answers each category asked for, in that order, healthy once it is queryable', async () => {
      await seedDataset(ctx.gw, 'health-live', 'Live');
      const health = expectOk(await ctx.driver.check('health-live', ['query', 'processing', 'infra']));
      expect(health.details.map((detail) => [detail.category, detail.status])).toEqual([
        ['query', 'Healthy'],
        ['processing', 'Healthy'],
        ['infra', 'Healthy'],
      ]);
      expect(health.details[0]!.components).toEqual([{ type: 'datasource', status: 'Healthy' }]);
      expect(health.details[1]!.components.map((component) => component.type)).toEqual(['pipeline', 'failure_rate']);
    });

    it('is unhealthy in query, saying why, when its datasource is gone', async () => {
      await seedDataset(ctx.gw, 'health-no-view', 'Live');
      await ctx.gw.sql('DROP VIEW datasources."health-no-view"');
      const health = expectOk(await ctx.driver.check('health-no-view', ['query']));
      expect(health.status).toBe('UnHealthy');
      expect(health.details[0]!.components[0]).toMatchObject({ type: 'datasource', status: 'UnHealthy', message: expect.stringMatching(/no datasource/) });
    });
  });

  describe('datasets that cannot be checked', () => {
    it('answers DATASET_NOT_FOUND for a dataset without a Live version (a draft, or none at all)', async () => {
      await seedDataset(ctx.gw, 'health-draft', 'Draft');
      expectFailure(await ctx.driver.check('health-draft', ['query']), 'DATASET_NOT_FOUND', /health-draft/);
      expectFailure(await ctx.driver.check('health-nowhere', ['infra']), 'DATASET_NOT_FOUND', /health-nowhere/);
    });
  });
}
