// Metric aliases (contract 4.6, reference §7), written once for both transports: named PromQL
// expressions, created, read, listed, changed and deleted, with what the PromQL check and the store
// refuse. The scenarios of one transport share a database: every scenario uses aliases of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { UUID_PATTERN } from '../support/api.js';
import { aliasBody, aliasesNamed, type AlertingGateway, type AliasBody } from '../support/alerting.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** A metric alias as the REST contract spells it. */
export interface MetricAlias {
  id: string;
  alias: string;
  component: string;
  subComponent: string | null;
  metric: string;
  context: Record<string, unknown> | null;
  created_by: string;
  updated_by: string;
  createdAt: string;
  updatedAt: string;
}

export interface MetricAliasesDriver {
  createAlias(alias: AliasBody): Promise<Outcome<{ id: string }>>;
  readAlias(id: string): Promise<Outcome<MetricAlias>>;
  /** The aliases of the filter (the first `limit` of them, when given) and how many match. */
  listAliases(search: { filters?: { component?: string; subComponent?: string }; limit?: number }): Promise<Outcome<{ metrics: MetricAlias[]; count: number }>>;
  updateAlias(id: string, changes: Partial<AliasBody>): Promise<Outcome<{ id: string }>>;
  deleteAlias(id: string): Promise<Outcome<{ id: string }>>;
}

export function metricAliasScenarios(ctx: SuiteContext<MetricAliasesDriver, AlertingGateway>): void {
  const createOk = async (alias: AliasBody) => expectOk(await ctx.driver.createAlias(alias)).id;
  const stored = (alias: string) => aliasesNamed(ctx.gw, alias);

  describe('create', () => {
    it('creates an alias, answers {id} and stores it with the component in lower case', async () => {
      const body = aliasBody();
      const created = expectOk(await ctx.driver.createAlias(body));
      expect(created).toEqual({ id: expect.stringMatching(UUID_PATTERN) });
      const [row] = await stored(body.alias);
      expect(row).toMatchObject({ id: created.id, component: 'processing', metric: body.metric, sub_component: null, created_by: 'SYSTEM' });
      expect(expectOk(await ctx.driver.readAlias(created.id))).toMatchObject({
        alias: body.alias,
        component: 'processing',
        metric: body.metric,
        subComponent: null,
        context: null,
        created_by: 'SYSTEM',
      });
    });

    it('keeps the optional subComponent and context', async () => {
      const body = aliasBody({ subComponent: 'd1', context: { datasetId: 'd1' } });
      await createOk(body);
      expect((await stored(body.alias))[0]).toMatchObject({ sub_component: 'd1', context: { datasetId: 'd1' } });
    });

    it.each([
      ['a metric that is not PromQL', { metric: 'sum(rate(x[5m])' }, /metric expression is not valid PromQL: expected "\)"/],
      ['a function given the wrong type', { metric: 'rate(http_requests_total)' }, /expected type range vector in call to function "rate", got instant vector/],
      ['an unknown function', { metric: 'summ(x)' }, /unknown function "summ"/],
      ['a metric that is a range vector', { metric: 'http_requests_total[5m]' }, /instant vector or a scalar, not a range vector/],
      // Found by the fuzz suite: the store's JSON recursion limit used to answer this with a 500.
      ['an empty alias', { alias: '' }, /^alias must not be empty$/],
      ['a context that is not an object', { context: ['d1'] }, /^context must be a JSON object$/],
      ['a component longer than 100 characters', { component: 'c'.repeat(101) }, /^component must be at most 100 characters$/],
      ['a context nested 200 levels deep', { context: Array.from({ length: 200 }).reduce<Record<string, unknown>>((inner) => ({ a: inner }), {}) }, /context is nested deeper than 32 levels/],
    ])('refuses %s with METRIC_ALIAS_INVALID_INPUT, and stores nothing', async (_, overrides, message) => {
      const body = aliasBody(overrides);
      expectFailure(await ctx.driver.createAlias(body), 'METRIC_ALIAS_INVALID_INPUT', message);
      expect(await stored(body.alias)).toEqual([]);
    });

    it('fails with METRIC_ALIAS_ALREADY_EXISTS for an alias that is taken, leaving the first as it was', async () => {
      const body = aliasBody();
      await createOk(body);
      expectFailure(await ctx.driver.createAlias({ ...body, metric: 'up' }), 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
      expect((await stored(body.alias)).map((row) => row.metric)).toEqual([body.metric]);
    });
  });

  describe('read and list', () => {
    it('reads an alias', async () => {
      const body = aliasBody({ subComponent: 'd2' });
      const id = await createOk(body);
      expect(expectOk(await ctx.driver.readAlias(id))).toMatchObject({ id, alias: body.alias, component: 'processing', subComponent: 'd2', metric: body.metric, context: null, created_by: 'SYSTEM' });
    });

    it('fails with METRIC_ALIAS_NOT_FOUND for an unknown alias', async () => {
      expectFailure(await ctx.driver.readAlias(randomUUID()), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
    });

    it('lists aliases with a count, filtered by component (in any case) and sub-component, a page at a time', async () => {
      const subComponent = `ds-${randomUUID()}`;
      const id = await createOk(aliasBody({ component: 'Storage', subComponent }));
      await createOk(aliasBody({ component: 'query', subComponent }));
      expect(expectOk(await ctx.driver.listAliases({ filters: { component: 'STORAGE', subComponent } }))).toEqual({ metrics: [expect.objectContaining({ id, component: 'storage' })], count: 1 });
      const page = expectOk(await ctx.driver.listAliases({ filters: { subComponent }, limit: 1 }));
      expect(page.metrics).toHaveLength(1);
      expect(page.count).toBe(2);
    });

    it("refuses a negative page size with the list contract's message", async () => {
      expectFailure(await ctx.driver.listAliases({ limit: -1 }), 'METRIC_ALIAS_INVALID_INPUT', /^the page size must be an integer from 0 to \d+ \(got -1\)$/);
    });

    it('refuses an alias id over 64 characters with METRIC_ALIAS_INVALID_INPUT, naming its length', async () => {
      const message = /^the metric alias id must be at most 64 characters \(got 65\)$/;
      expectFailure(await ctx.driver.readAlias('x'.repeat(65)), 'METRIC_ALIAS_INVALID_INPUT', message);
      expectFailure(await ctx.driver.deleteAlias('x'.repeat(65)), 'METRIC_ALIAS_INVALID_INPUT', message);
    });
  });

  describe('update and delete', () => {
    it('changes the metric and component of an alias', async () => {
      const body = aliasBody();
      const id = await createOk(body);
      expect(expectOk(await ctx.driver.updateAlias(id, { metric: 'avg_over_time(up[10m]) < 1', component: 'API' }))).toEqual({ id });
      expect((await stored(body.alias))[0]).toMatchObject({ metric: 'avg_over_time(up[10m]) < 1', component: 'api' });
      expect(expectOk(await ctx.driver.readAlias(id))).toMatchObject({ id, metric: 'avg_over_time(up[10m]) < 1', component: 'api' });
    });

    it('refuses an update with nothing to change with METRIC_ALIAS_INVALID_INPUT, changing nothing', async () => {
      const body = aliasBody();
      const id = expectOk(await ctx.driver.createAlias(body)).id;
      expectFailure(await ctx.driver.updateAlias(id, {}), 'METRIC_ALIAS_INVALID_INPUT', /^nothing to update: give alias, component, subComponent, metric or context$/);
      expect((await stored(body.alias))[0].metric).toBe(body.metric);
    });

    it('refuses a metric that is not PromQL with METRIC_ALIAS_INVALID_INPUT, changing nothing', async () => {
      const body = aliasBody();
      const id = await createOk(body);
      expectFailure(await ctx.driver.updateAlias(id, { metric: 'up{job=}' }), 'METRIC_ALIAS_INVALID_INPUT', /quoted label value/);
      expect((await stored(body.alias))[0].metric).toBe(body.metric);
    });

    it('fails with METRIC_ALIAS_ALREADY_EXISTS when renamed to a taken alias', async () => {
      const taken = aliasBody();
      await createOk(taken);
      const id = await createOk(aliasBody());
      expectFailure(await ctx.driver.updateAlias(id, { alias: taken.alias }), 'METRIC_ALIAS_ALREADY_EXISTS', /already exists/);
    });

    it('deletes an alias, and fails with METRIC_ALIAS_NOT_FOUND for one that does not exist', async () => {
      const body = aliasBody();
      const id = await createOk(body);
      expect(expectOk(await ctx.driver.deleteAlias(id))).toEqual({ id });
      expect(await stored(body.alias)).toEqual([]);
      expectFailure(await ctx.driver.deleteAlias(id), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
      expectFailure(await ctx.driver.updateAlias(id, { metric: 'up' }), 'METRIC_ALIAS_NOT_FOUND', /does not exist/);
    });
  });
}
