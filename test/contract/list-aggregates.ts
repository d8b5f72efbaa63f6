// Aggregates of the list contract, written once and run over POST /graphql and, as a live query,
// over graphql-ws and graphql-sse: count, sum, avg, min and max over what a `where` matches,
// groupBy several fields with a time cut into buckets, the older one-field groupBy as before, only
// what the caller may read, and bad arguments refused naming what is wrong. The records are
// written with SQL, with known figures and times, so every figure is checked to the unit.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { token } from '../support/auth.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

type Figures = Record<string, number | string | null>;

export interface RuleFiguresSeen {
  totalCount: number;
  aggregate: { count: number; sum: Figures; avg: Figures; min: Figures; max: Figures };
  groups: { key: string | null; keys: (string | null)[]; count: number }[];
  older: { key: string | null; count: number }[];
}

export interface AuditFiguresSeen {
  totalCount: number;
  aggregate: { count: number; min: { at: string | null }; max: { at: string | null } };
  groupBy: { keys: (string | null)[]; count: number }[];
}

export interface AggregatesDriver {
  ruleFigures(variables: Record<string, unknown>, bearer: string): Promise<Outcome<RuleFiguresSeen>>;
  auditFigures(variables: Record<string, unknown>, bearer: string): Promise<Outcome<AuditFiguresSeen>>;
}

// Five rules: when each was made (and last changed), its severity, category, evaluation interval and pending time.
const RULES = [
  ['Lag A', '2026-03-02T09:15:00Z', 'critical', 'ingest', 60_000, 0],
  ['Lag B', '2026-03-02T09:45:00Z', 'warning', 'ingest', 120_000, 0],
  ['Lag C', '2026-03-02T14:05:00Z', 'critical', 'ingest', 300_000, 60_000],
  ['Disk D', '2026-03-04T08:00:00Z', 'warning', 'storage', 600_000, 60_000],
  ['Disk E', '2026-03-10T10:00:00Z', 'warning', 'storage', 60_000, 30_000],
] as const;

export function aggregateScenarios(ctx: SuiteContext<AggregatesDriver>): void {
  let admin: string;
  let viewer: string;
  const rules = async (variables: Record<string, unknown>) => expectOk(await ctx.driver.ruleFigures({ fields: ['SEVERITY'], ...variables }, admin));

  beforeAll(async () => {
    admin = await token({ roles: ['admin'] });
    viewer = await token({ roles: ['viewer'] });
    for (const [name, at, severity, category, interval, pending] of RULES) {
      await ctx.gw.sql(
        `INSERT INTO alert_rules (id, name, manager, description, metric, operator, thresholds, expression, category, severity, evaluation_interval_ms, pending_for_ms, labels, created_by, updated_by, created_date, updated_date)
         VALUES (gen_random_uuid(), $1, 'embedded', 'A rule', 'up', 'gt', ARRAY[1]::float8[], 'up > 1', $2, $3, $4, $5, '{}', 'alice', 'alice', $6, $6)`,
        [name, category, severity, interval, pending, at],
      );
    }
    await ctx.gw.sql(`
      INSERT INTO audit_records (at, request_id, actor, transport, operation, outcome) VALUES
        ('2026-03-02T09:10:00Z', 'r1', 'alice', 'graphql', 'createAlertRule', 'success'),
        ('2026-03-02T09:20:00Z', 'r2', 'alice', 'graphql', 'createAlertRule', 'success'),
        ('2026-03-02T11:30:00Z', 'r3', 'bob', 'rest', 'deleteAlertRule', 'failure')`);
  });

  describe('aggregate', () => {
    it('sums, averages and bounds every figure and time of the list, and counts as totalCount does', async () => {
      const { totalCount, aggregate } = await rules({});
      expect(totalCount).toBe(5);
      expect(aggregate).toEqual({
        count: 5,
        sum: { evaluationIntervalMs: 1_140_000, pendingForMs: 150_000 },
        avg: { evaluationIntervalMs: 228_000, pendingForMs: 30_000 },
        min: { evaluationIntervalMs: 60_000, pendingForMs: 0, createdAt: '2026-03-02T09:15:00.000Z', updatedAt: '2026-03-02T09:15:00.000Z' },
        max: { evaluationIntervalMs: 600_000, pendingForMs: 60_000, createdAt: '2026-03-10T10:00:00.000Z', updatedAt: '2026-03-10T10:00:00.000Z' },
      });
    });

    it("counts only what the connection's where matches", async () => {
      const { totalCount, aggregate } = await rules({ where: { severity: { eq: 'CRITICAL' }, createdAt: { lt: '2026-03-03T00:00:00Z' } } });
      expect(totalCount).toBe(2);
      expect(aggregate).toEqual({
        count: 2,
        sum: { evaluationIntervalMs: 360_000, pendingForMs: 60_000 },
        avg: { evaluationIntervalMs: 180_000, pendingForMs: 30_000 },
        min: { evaluationIntervalMs: 60_000, pendingForMs: 0, createdAt: '2026-03-02T09:15:00.000Z', updatedAt: '2026-03-02T09:15:00.000Z' },
        max: { evaluationIntervalMs: 300_000, pendingForMs: 60_000, createdAt: '2026-03-02T14:05:00.000Z', updatedAt: '2026-03-02T14:05:00.000Z' },
      });
    });

    it('answers a count of 0 and no figures when nothing matches', async () => {
      const { aggregate } = await rules({ where: { name: { eq: 'No such rule' } } });
      expect(aggregate).toEqual({
        count: 0,
        sum: { evaluationIntervalMs: null, pendingForMs: null },
        avg: { evaluationIntervalMs: null, pendingForMs: null },
        min: { evaluationIntervalMs: null, pendingForMs: null, createdAt: null, updatedAt: null },
        max: { evaluationIntervalMs: null, pendingForMs: null, createdAt: null, updatedAt: null },
      });
    });
  });

  describe('groupBy', () => {
    it('counts by a time cut into days and a second field, the most frequent first, each key in its place', async () => {
      const { groups } = await rules({ fields: ['CREATED_AT', 'SEVERITY'], bucket: 'DAY' });
      expect(groups).toEqual([
        { key: '2026-03-02T00:00:00.000Z', keys: ['2026-03-02T00:00:00.000Z', 'CRITICAL'], count: 2 },
        { key: '2026-03-02T00:00:00.000Z', keys: ['2026-03-02T00:00:00.000Z', 'WARNING'], count: 1 },
        { key: '2026-03-04T00:00:00.000Z', keys: ['2026-03-04T00:00:00.000Z', 'WARNING'], count: 1 },
        { key: '2026-03-10T00:00:00.000Z', keys: ['2026-03-10T00:00:00.000Z', 'WARNING'], count: 1 },
      ]);
    });

    it('cuts a time into hours, or into weeks that start on Monday (UTC)', async () => {
      const hours = (await rules({ fields: ['CREATED_AT'], bucket: 'HOUR' })).groups.map((group) => [group.key, group.count]);
      expect(hours).toEqual([
        ['2026-03-02T09:00:00.000Z', 2],
        ['2026-03-02T14:00:00.000Z', 1],
        ['2026-03-04T08:00:00.000Z', 1],
        ['2026-03-10T10:00:00.000Z', 1],
      ]);
      const weeks = (await rules({ fields: ['CREATED_AT'], bucket: 'WEEK' })).groups.map((group) => [group.key, group.count]);
      expect(weeks).toEqual([
        ['2026-03-02T00:00:00.000Z', 4],
        ['2026-03-09T00:00:00.000Z', 1],
      ]);
    });

    it('counts by two fields that are not times, within the where, and still answers the older one-field form', async () => {
      const { groups, older } = await rules({ fields: ['SEVERITY', 'CATEGORY'] });
      expect(groups).toEqual([
        { key: 'CRITICAL', keys: ['CRITICAL', 'ingest'], count: 2 },
        { key: 'WARNING', keys: ['WARNING', 'storage'], count: 2 },
        { key: 'WARNING', keys: ['WARNING', 'ingest'], count: 1 },
      ]);
      expect(older).toEqual([
        { key: 'WARNING', count: 3 },
        { key: 'CRITICAL', count: 2 },
      ]);
      const within = await rules({ fields: ['SEVERITY', 'CATEGORY'], where: { category: { eq: 'storage' } } });
      expect(within.groups).toEqual([{ key: 'WARNING', keys: ['WARNING', 'storage'], count: 2 }]);
      expect(within.older).toEqual([{ key: 'WARNING', count: 2 }]);
    });
  });

  describe('access', () => {
    it('gives figures of a list only to a caller who may read the list: the viewer, who may not read the audit trail, gets none of its figures', async () => {
      const seen = expectOk(await ctx.driver.auditFigures({ where: { at: { gte: '2026-03-02T00:00:00Z' } } }, admin));
      expect(seen).toEqual({
        totalCount: 3,
        aggregate: { count: 3, min: { at: '2026-03-02T09:10:00.000Z' }, max: { at: '2026-03-02T11:30:00.000Z' } },
        groupBy: [
          { keys: ['2026-03-02T09:00:00.000Z', 'SUCCESS'], count: 2 },
          { keys: ['2026-03-02T11:00:00.000Z', 'FAILURE'], count: 1 },
        ],
      });
      expectFailure(await ctx.driver.auditFigures({ where: { at: { gte: '2026-03-02T00:00:00Z' } } }, viewer), 'FORBIDDEN');
    });

    it('gives the viewer, who may read alert rules, the same figures as the admin', async () => {
      const asViewer = expectOk(await ctx.driver.ruleFigures({ fields: ['SEVERITY'] }, viewer));
      expect(asViewer.aggregate).toEqual((await rules({})).aggregate);
    });
  });

  describe('bad input', () => {
    it('refuses a bucket when no field given is a time, naming the fields and the times there are', async () => {
      expectFailure(
        await ctx.driver.ruleFigures({ fields: ['SEVERITY'], bucket: 'DAY' }, admin),
        'ALERT_RULE_INVALID_INPUT',
        /groupBy\(fields: \[SEVERITY\], bucket: DAY\): bucket cuts a time field, and SEVERITY is not one \(alert rules have CREATED_AT, UPDATED_AT\)/,
      );
    });

    it('refuses a time field without a bucket, naming it', async () => {
      expectFailure(await ctx.driver.ruleFigures({ fields: ['CREATED_AT'] }, admin), 'ALERT_RULE_INVALID_INPUT', /CREATED_AT is a time; give a bucket \(MINUTE, HOUR, DAY, WEEK\)/);
    });

    it('refuses the same field twice, and more than four fields', async () => {
      expectFailure(await ctx.driver.ruleFigures({ fields: ['SEVERITY', 'SEVERITY'] }, admin), 'ALERT_RULE_INVALID_INPUT', /SEVERITY is given twice/);
      expectFailure(await ctx.driver.ruleFigures({ fields: ['SEVERITY', 'CATEGORY', 'STATUS', 'MANAGER', 'ALERT_TYPE'] }, admin), 'ALERT_RULE_INVALID_INPUT', /give from 1 to 4 fields \(got 5\)/);
    });

    it('refuses a field the list does not have, naming it', async () => {
      // GraphQL refuses the variable before anything runs (POST /graphql: 400 BAD_USER_INPUT; the live
      // transports answer the same message without a code, as for any refused variable).
      const outcome = await ctx.driver.ruleFigures({ fields: ['SEVERITY', 'COLOUR'] }, admin);
      expect(outcome).toMatchObject({ ok: false, message: expect.stringMatching(/Value "COLOUR" does not exist in "AlertRuleGroupField" enum/) });
      if (ctx.transport === 'graphql') expectFailure(outcome, 'BAD_USER_INPUT');
    });
  });
}
