// Alert rules (reference §7 "Alerting"), written once for both transports, in the shape the
// original's console sends (transformRulePayload) and reads (ListAlerts, ViewRule): create from the
// console's body, what a rule must hold, search with filters, order and pages, the lifecycle
// draft → live → draft/retired → deleted, bulk delete, and the silence of a rule. How the embedded
// evaluator fires and notifies is test/modules/alert-rule-evaluation.test.ts. Channels, metric
// aliases and silences a rule needs are arranged over REST. The scenarios of one transport share a
// database: every scenario uses names and categories of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { UUID_PATTERN } from '../support/api.js';
import { aliasBody, emailChannel, hoursFromNow, silenceBody } from '../support/alerting.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

/** The console's `metadata.queryBuilderContext`: the condition, and whatever else its form keeps. */
export interface QueryBuilderContext {
  metric?: string;
  metricAlias?: string;
  operator?: string;
  threshold?: number | string | (number | string)[];
  [kept: string]: unknown;
}

/** A rule as the original's routes take it (create: the whole rule; update: what changes). */
export interface RuleBody {
  name?: string;
  manager?: string;
  description?: string;
  category?: string;
  severity?: string;
  frequency?: string;
  interval?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  metadata?: { queryBuilderContext?: QueryBuilderContext; [kept: string]: unknown };
  notification?: { channels?: (string | null)[] };
  context?: Record<string, unknown>;
  [unknown: string]: unknown;
}

/** The evaluator's state of a Live rule, as the console reads it (`alertData.state`, `alertData.alerts`). */
export interface AlertData {
  state: string;
  activeAt: string | null;
  firingSince: string | null;
  lastEvaluation: string | null;
  nextEvaluation: string;
  lastError?: string;
  alerts: { labels: Record<string, string>; value: number; state: string; activeAt: string | null }[];
}

export interface SilenceState {
  state: string;
  silenceId: string;
  endTime?: number;
}

/** A rule as the original answers it. */
export interface AlertRule {
  id: string;
  name: string;
  manager: string;
  status: string;
  description: string;
  metric: string;
  operator: string;
  threshold: number[];
  expression: string;
  severity: string;
  category: string;
  frequency: string;
  interval: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  metadata: Record<string, unknown>;
  notification: { channels: string[] };
  context: Record<string, unknown>;
  alertData?: AlertData;
  silenceState: SilenceState;
  created_by: string;
  updated_by: string;
  createdAt: string;
  updatedAt: string;
}

export interface RuleSearch {
  filters?: Record<string, unknown>;
  /** `[field, direction]` pairs; the direction may be left out. */
  options?: { order?: string[][] };
  limit?: number;
  offset?: number;
}

export interface AlertRulesDriver {
  /**
   * The code with which this transport refuses a body its types do not allow (a field missing, an
   * unknown field, a value outside an enum): REST's request schema answers ALERT_RULE_INVALID_INPUT,
   * GraphQL's typed input BAD_USER_INPUT. Either names the field.
   */
  readonly typeRefusal: string;
  createRule(body: RuleBody): Promise<Outcome<{ id: string }>>;
  readRule(id: string): Promise<Outcome<AlertRule>>;
  searchRules(search: RuleSearch): Promise<Outcome<{ alerts: AlertRule[]; count: number }>>;
  updateRule(id: string, changes: RuleBody): Promise<Outcome<{ id: string }>>;
  publishRule(id: string): Promise<Outcome<{ id: string }>>;
  /** Retires the rule, or deletes it with `hardDelete` (the query parameter left out when undefined; text is sent as it is). */
  deleteRule(id: string, hardDelete?: boolean | string): Promise<Outcome<{ id: string }>>;
  deleteRules(filters: Record<string, unknown>): Promise<Outcome<{ ids: string[]; count: number }>>;
}

const METRIC = 'sum(increase(gateway_ingestion_events_total{stage="failed"}[5m]))';

const unique = (prefix: string) => `${prefix} ${randomUUID()}`;

/** A rule the embedded manager holds: the failed events over 5 minutes above 5. */
function ruleBody(overrides: RuleBody = {}, condition: QueryBuilderContext = {}): RuleBody {
  return {
    name: unique('Failed events'),
    manager: 'embedded',
    description: 'Too many events fail validation',
    category: 'processing',
    severity: 'warning',
    frequency: '1m',
    interval: '5m',
    labels: { team: 'data' },
    metadata: { queryBuilderContext: { metric: METRIC, operator: 'gt', threshold: [5], ...condition } },
    notification: { channels: [] },
    context: { alertType: 'CUSTOM' },
    ...overrides,
  };
}

/**
 * What the console's transformRulePayload sends for a rule written in its form: frequency and
 * interval in minutes, its labels, the form's query builder (the metric's PromQL, its alias, its id,
 * the threshold as typed) and the channel chosen. The console always writes `manager: "grafana"`.
 */
function consoleBody(channelId: string, aliasId: string): RuleBody {
  return {
    name: unique('Failed events of d1'),
    manager: 'grafana',
    description: 'Events of d1 fail validation',
    category: 'processing',
    frequency: '5m',
    interval: '2m',
    severity: 'critical',
    labels: { component: 'obsrv', type: 'processing' },
    metadata: {
      queryBuilderContext: { category: 'processing', subComponent: 'd1', metric: METRIC, metricAlias: 'Failed events', operator: 'gt', threshold: ['5'], id: aliasId },
    },
    context: { alertType: 'CUSTOM' },
    notification: { channels: [channelId] },
  };
}

/** Refusals that name a missing field: REST's schema or GraphQL's required input field. */
const missing = (restPath: string, graphqlField: string) => new RegExp(`must have required property '${restPath}'|Field "${graphqlField}" of required type`);

export function alertRuleScenarios(ctx: SuiteContext<AlertRulesDriver>): void {
  const createOk = async (body: RuleBody) => expectOk(await ctx.driver.createRule(body)).id;
  const readOk = async (id: string) => expectOk(await ctx.driver.readRule(id));
  const searchOk = async (search: RuleSearch) => expectOk(await ctx.driver.searchRules(search));
  const names = async (search: RuleSearch) => (await searchOk(search)).alerts.map((rule) => rule.name);
  const stored = async (name: string) => (await ctx.gw.sql('SELECT id, status FROM alert_rules WHERE name = $1', [name])).rows;
  const evaluate = () => ctx.gw.gateway.alertEvaluator.cycle(Date.now());

  /** Arranged over REST, whatever the transport under test. */
  async function rest(method: 'post' | 'get', path: string, body?: unknown): Promise<Record<string, any>> {
    const response = body === undefined ? await ctx.gw.http[method](path) : await ctx.gw.http[method](path).send(body as object);
    expect([response.status, response.body.error]).toEqual([200, undefined]);
    return response.body.result as Record<string, any>;
  }
  /** An e-mail channel as a draft (created, not published). */
  const draftChannel = async () => (await rest('post', '/alerts/v1/notifications/create', emailChannel())).id as string;
  /** A Live e-mail channel: what a rule may be published with. */
  const channel = async () => {
    const id = await draftChannel();
    await rest('get', `/alerts/v1/notifications/publish/${id}`);
    return id;
  };
  const metricAlias = async (metric: string) => {
    const body = aliasBody({ metric });
    return { alias: body.alias, id: (await rest('post', '/alerts/v1/metric/alias/create', body)).id as string };
  };

  describe('create and read', () => {
    // The console always writes `manager: "grafana"`; with no Grafana configured, that name is served
    // by the platform's own manager (embedded here), so its exact body works as it is.
    it("takes the console's exact body on a gateway without Grafana: the rule is held by the embedded manager", async () => {
      const body = consoleBody(await channel(), randomUUID());
      const created = expectOk(await ctx.driver.createRule(body));
      expect(await stored(body.name!)).toEqual([{ id: created.id, status: 'draft' }]);
      expect(await readOk(created.id)).toMatchObject({ id: created.id, manager: 'embedded', status: 'draft' });
    });

    it("creates the console's body held by the embedded manager: answers {id} and reads back a draft in the original's shape", async () => {
      const channelId = await channel();
      const body = { ...consoleBody(channelId, randomUUID()), manager: 'embedded' };
      const created = expectOk(await ctx.driver.createRule(body));
      expect(created).toEqual({ id: expect.stringMatching(UUID_PATTERN) });
      expect(await stored(body.name!)).toEqual([{ id: created.id, status: 'draft' }]);
      const rule = await readOk(created.id);
      expect(rule).toEqual({
        id: created.id,
        name: body.name,
        manager: 'embedded',
        status: 'draft',
        description: 'Events of d1 fail validation',
        metric: METRIC,
        operator: 'gt',
        threshold: [5],
        expression: `(${METRIC}) > 5`,
        severity: 'critical',
        category: 'processing',
        frequency: '5m',
        interval: '2m',
        labels: { component: 'obsrv', type: 'processing' },
        annotations: {},
        // As the console wrote it: ViewRule and EditRule read the form back from here.
        metadata: body.metadata,
        notification: { channels: [channelId] },
        context: { alertType: 'CUSTOM' },
        silenceState: { state: 'unmuted', silenceId: '' },
        created_by: 'SYSTEM',
        updated_by: 'SYSTEM',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      // A draft is not evaluated: no alertData at all.
      expect(rule).not.toHaveProperty('alertData');
    });

    it('fills what a body leaves out: the embedded manager, severity warning, frequency and interval 1m, no channels', async () => {
      const name = unique('Minimal');
      const id = await createOk({ name, category: 'storage', metadata: { queryBuilderContext: { metric: 'up', operator: 'lt', threshold: 1 } } });
      expect(await readOk(id)).toMatchObject({
        name,
        manager: 'embedded',
        severity: 'warning',
        frequency: '1m',
        interval: '1m',
        expression: '(up) < 1',
        description: '',
        labels: {},
        notification: { channels: [] },
        context: {},
      });
    });

    it('accepts thresholds written as text ("80", " 0.5") and keeps them as numbers', async () => {
      const gt = await createOk(ruleBody({}, { threshold: '80' }));
      expect(await readOk(gt)).toMatchObject({ threshold: [80], expression: `(${METRIC}) > 80` });
      const range = await createOk(ruleBody({}, { operator: 'within_range', threshold: [' 0.5', '2'] }));
      expect(await readOk(range)).toMatchObject({ threshold: [0.5, 2] });
    });

    it.each([
      ['within_range', [10, 20], `((${METRIC}) > 10) < 20`],
      ['outside_range', ['10', '20'], `(${METRIC}) < 10 or (${METRIC}) > 20`],
    ])('takes two thresholds (low, high) for %s', async (operator, threshold, expression) => {
      const id = await createOk(ruleBody({}, { operator, threshold }));
      expect(await readOk(id)).toMatchObject({ operator, threshold: [10, 20], expression });
    });

    it('compares the metric of the metric alias named in metricAlias, keeping the alias name in metadata', async () => {
      const metric = 'sum(rate(flink_failed_events_total{dataset="d1"}[5m]))';
      const { alias } = await metricAlias(metric);
      const id = await createOk(ruleBody({}, { metric: undefined, metricAlias: alias, operator: 'lt', threshold: 1 }));
      const rule = await readOk(id);
      expect(rule).toMatchObject({ metric, expression: `(${metric}) < 1`, threshold: [1] });
      expect(rule.metadata).toEqual({ queryBuilderContext: { metricAlias: alias, operator: 'lt', threshold: 1 } });
    });
  });

  describe('what a rule must hold', () => {
    const withCondition = (condition: QueryBuilderContext) => (body: RuleBody) => ({ ...body, metadata: { queryBuilderContext: { ...body.metadata!.queryBuilderContext, ...condition } } });
    const without =
      (...path: string[]) =>
      (body: RuleBody) => {
        const copy = structuredClone(body);
        let at: Record<string, unknown> = copy;
        for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
        delete at[path.at(-1)!];
        return copy;
      };

    // Refused by the transport's types (REST's schema, GraphQL's input types), naming the field.
    it.each([
      ['no name', without('name'), missing('name', 'name')],
      ['no category', without('category'), missing('category', 'category')],
      // GraphQL's input has no queryBuilderContext: without it, the operator it holds is missing.
      ['no queryBuilderContext', without('metadata', 'queryBuilderContext'), missing('queryBuilderContext', 'operator')],
      ['no operator', without('metadata', 'queryBuilderContext', 'operator'), missing('operator', 'operator')],
      ['no threshold', without('metadata', 'queryBuilderContext', 'threshold'), missing('threshold', 'thresholds')],
      [
        'an unknown operator',
        withCondition({ operator: 'above' }),
        /allowed values \(gt, lt, within_range, outside_range\) at \/metadata\/queryBuilderContext\/operator|"ABOVE" does not exist in "AlertRuleOperator"/,
      ],
      ['a field the original does not know', (body: RuleBody) => ({ ...body, owner: 'me' }), /must NOT have additional properties.*owner|Field "owner" is not defined/],
      // Text the console's form holds is sent as its number; other text meets GraphQL's Float on both transports.
      [
        'a threshold that is not a number',
        withCondition({ threshold: ['eighty'] }),
        /^Variable "\$input" got invalid value "eighty" at "input\.thresholds\[0\]"; Float cannot represent non numeric value: "eighty"$/,
      ],
      ['an unknown severity', (body: RuleBody) => ({ ...body, severity: 'info' }), /allowed values \(warning, critical\) at \/severity|"INFO" does not exist in "AlertRuleSeverity"/],
    ])('refuses a rule with %s, naming the field, and stores nothing', async (_, change, message) => {
      const body = change(ruleBody());
      expectFailure(await ctx.driver.createRule(body), ctx.driver.typeRefusal, message);
      expect(await stored(body.name as string)).toEqual([]);
    });

    it.each([
      ['one threshold for within_range', withCondition({ operator: 'within_range', threshold: [10] }), /operator within_range takes two thresholds \(low, high\); got 1/],
      ['a low threshold above the high one', withCondition({ operator: 'within_range', threshold: [20, 10] }), /the low threshold \(20\) must be below the high one \(10\)/],
      ['a low threshold equal to the high one', withCondition({ operator: 'outside_range', threshold: ['10', '10'] }), /the low threshold \(10\) must be below the high one \(10\)/],
      ['a metric that is not PromQL', withCondition({ metric: 'sum(rate(x[5m])' }), /metric expression is not valid PromQL/],
      ['a metric that is a range vector', withCondition({ metric: 'up[5m]' }), /not a range vector/],
      ['a metric alias that does not exist', withCondition({ metric: undefined, metricAlias: 'no such alias' }), /metric alias "no such alias" does not exist/],
      ['a frequency that is not a duration', (body: RuleBody) => ({ ...body, frequency: 'soon' }), /frequency must be a duration such as 30s, 1m or 1h30m \(got "soon"\)/],
      ['a frequency below 10s', (body: RuleBody) => ({ ...body, frequency: '1s' }), /frequency must be at least 10s \(got 1s\)/],
      ['an interval above 24h', (body: RuleBody) => ({ ...body, interval: '48h' }), /interval must be at most 24h \(got 48h\)/],
      ['a label name starting with a digit', (body: RuleBody) => ({ ...body, labels: { '1team': 'data' } }), /labels: "1team" is not a label name/],
      ['a label name reserved by Prometheus', (body: RuleBody) => ({ ...body, labels: { __name__: 'x' } }), /labels: "__name__" is not a label name/],
      ['an annotation name with a dash', (body: RuleBody) => ({ ...body, annotations: { 'run-book': 'x' } }), /annotations: "run-book" is not a label name/],
      [
        'a channel that does not exist',
        (body: RuleBody) => ({ ...body, notification: { channels: ['9b2f4c3e-0a51-4c57-b0c1-6f1f7cf0e0a1'] } }),
        /notification channel 9b2f4c3e-0a51-4c57-b0c1-6f1f7cf0e0a1 does not exist/,
      ],
      ['a channel id that is not a UUID', (body: RuleBody) => ({ ...body, notification: { channels: ['oncall'] } }), /notification channel ids must be UUIDs \(got "oncall"\)/],
      ['no threshold in the list', withCondition({ threshold: [] }), /^operator gt takes one threshold; got 0$/],
      ['three thresholds for a range', withCondition({ operator: 'outside_range', threshold: [1, 2, 3] }), /^operator outside_range takes two thresholds \(low, high\); got 3$/],
      ['an empty frequency', (body: RuleBody) => ({ ...body, frequency: '' }), /^frequency must be a duration such as 30s, 1m or 1h30m \(got ""\)$/],
      ['labels that are not an object', (body: RuleBody) => ({ ...body, labels: ['team'] as unknown as Record<string, unknown> }), /^labels must be an object of names to text values$/],
      ['more than 50 labels', (body: RuleBody) => ({ ...body, labels: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`l${i}`, 'x'])) }), /^labels may hold at most 50 entries$/],
      ['a label value that is not text', (body: RuleBody) => ({ ...body, annotations: { summary: { text: 'x' } } }), /^annotations\.summary must be text$/],
      ['a context that is not an object', (body: RuleBody) => ({ ...body, context: 'CUSTOM' as unknown as Record<string, unknown> }), /^context must be a JSON object$/],
    ])('refuses a rule with %s with ALERT_RULE_INVALID_INPUT naming the field, and stores nothing', async (_, change, message) => {
      const body = change(ruleBody());
      expectFailure(await ctx.driver.createRule(body), 'ALERT_RULE_INVALID_INPUT', message);
      expect(await stored(body.name as string)).toEqual([]);
    });

    it.each([
      ['read', (id: string) => ctx.driver.readRule(id)],
      ['updated', (id: string) => ctx.driver.updateRule(id, { description: 'x' })],
      ['published', (id: string) => ctx.driver.publishRule(id)],
      ['retired', (id: string) => ctx.driver.deleteRule(id)],
      ['deleted', (id: string) => ctx.driver.deleteRule(id, true)],
    ])('answers ALERT_RULE_NOT_FOUND when a rule that does not exist is %s (an id that is no UUID, or one no rule has)', async (_, call) => {
      expectFailure(await call('not-a-uuid'), 'ALERT_RULE_NOT_FOUND', /Alert rule not-a-uuid does not exist/);
      const id = randomUUID();
      expectFailure(await call(id), 'ALERT_RULE_NOT_FOUND', new RegExp(`Alert rule ${id} does not exist`));
    });

    it('refuses a rule id over 64 characters with ALERT_RULE_INVALID_INPUT, naming its length, whatever the call', async () => {
      const id = 'x'.repeat(65);
      const message = /^the alert rule id must be at most 64 characters \(got 65\)$/;
      expectFailure(await ctx.driver.readRule(id), 'ALERT_RULE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.updateRule(id, { description: 'x' }), 'ALERT_RULE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.publishRule(id), 'ALERT_RULE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.deleteRule(id, true), 'ALERT_RULE_INVALID_INPUT', message);
    });

    it('refuses a taken name with ALERT_RULE_ALREADY_EXISTS, on create and on rename, changing nothing', async () => {
      const taken = ruleBody();
      const first = await createOk(taken);
      expectFailure(await ctx.driver.createRule(ruleBody({ name: taken.name, category: 'other' })), 'ALERT_RULE_ALREADY_EXISTS', new RegExp(`Alert rule "${taken.name}" already exists`));
      expect(await stored(taken.name!)).toEqual([{ id: first, status: 'draft' }]);
      const second = ruleBody();
      const id = await createOk(second);
      expectFailure(await ctx.driver.updateRule(id, { name: taken.name }), 'ALERT_RULE_ALREADY_EXISTS', /already exists/);
      expect((await readOk(id)).name).toBe(second.name);
      expect((await readOk(first)).category).toBe('processing');
    });

    it('checks a change against the rule it makes: a range operator without a second threshold is refused, and nothing changes', async () => {
      const id = await createOk(ruleBody());
      expectFailure(await ctx.driver.updateRule(id, { metadata: { queryBuilderContext: { operator: 'within_range' } } }), 'ALERT_RULE_INVALID_INPUT', /within_range takes two thresholds/);
      expectFailure(await ctx.driver.updateRule(id, { frequency: '1s' }), 'ALERT_RULE_INVALID_INPUT', /frequency must be at least 10s/);
      expectFailure(
        await ctx.driver.updateRule(id, { metadata: { queryBuilderContext: { threshold: 'ten' } } }),
        ctx.driver.typeRefusal,
        /^Variable "\$input" got invalid value "ten" at "input\.thresholds\[0\]"; Float cannot represent non numeric value: "ten"$/,
      );
      expect(await readOk(id)).toMatchObject({ operator: 'gt', threshold: [5], frequency: '1m' });
    });

    it('refuses an update that gives nothing to change', async () => {
      const id = await createOk(ruleBody());
      expectFailure(await ctx.driver.updateRule(id, {}), 'ALERT_RULE_INVALID_INPUT', /^nothing to update: give at least one field of the rule$/);
    });
  });

  describe('search', () => {
    /** Three rules of a category of their own, created in the order b, a, c. */
    async function threeRules() {
      const category = unique('cat');
      const prefix = randomUUID();
      const ids: Record<string, string> = {};
      for (const [letter, severity, alertType] of [
        ['b', 'critical', 'CUSTOM'],
        ['a', 'warning', 'SYSTEM'],
        ['c', 'warning', 'CUSTOM'],
      ] as const) {
        ids[letter] = await createOk(ruleBody({ name: `${prefix} ${letter}`, category, severity, context: { alertType } }));
      }
      return { category, name: (letter: string) => `${prefix} ${letter}`, ids };
    }

    it('filters by status, given as one name or as a list', async () => {
      const { category, ids } = await threeRules();
      expectOk(await ctx.driver.publishRule(ids.a!));
      expectOk(await ctx.driver.deleteRule(ids.c!));
      expect(await searchOk({ filters: { category, status: 'live' } })).toEqual({ alerts: [expect.objectContaining({ id: ids.a, status: 'live' })], count: 1 });
      const found = await searchOk({ filters: { category, status: ['draft', 'retired'] }, options: { order: [['name', 'asc']] } });
      expect(found.alerts.map((rule) => [rule.id, rule.status])).toEqual([
        [ids.b, 'draft'],
        [ids.c, 'retired'],
      ]);
      expect(found.count).toBe(2);
    });

    it('filters by id, name, category, severity and context.alertType', async () => {
      const { category, name, ids } = await threeRules();
      const idsOf = async (filters: Record<string, unknown>) => (await searchOk({ filters, options: { order: [['name', 'asc']] } })).alerts.map((rule) => rule.id);
      expect(await idsOf({ id: ids.b })).toEqual([ids.b]);
      expect(await idsOf({ name: name('c') })).toEqual([ids.c]);
      expect(await idsOf({ category })).toEqual([ids.a, ids.b, ids.c]);
      expect(await idsOf({ category, severity: 'warning' })).toEqual([ids.a, ids.c]);
      expect(await idsOf({ category, 'context.alertType': 'SYSTEM' })).toEqual([ids.a]);
      expect(await idsOf({ category, severity: 'critical', 'context.alertType': 'SYSTEM' })).toEqual([]);
      expect(await searchOk({ filters: { id: 'not-a-uuid' } })).toEqual({ alerts: [], count: 0 });
    });

    it("answers the console's list of custom rules: only CUSTOM ones, the last updated first", async () => {
      const { ids } = await threeRules();
      expectOk(await ctx.driver.updateRule(ids.b!, { description: 'changed last' }));
      const { alerts, count } = await searchOk({ filters: { 'context.alertType': 'CUSTOM' }, options: { order: [['updatedAt', 'DESC']] } });
      expect(alerts.every((rule) => rule.context.alertType === 'CUSTOM')).toBe(true);
      expect(alerts.map((rule) => rule.id)).not.toContain(ids.a);
      expect(alerts[0]!.id).toBe(ids.b);
      expect(alerts.map((rule) => rule.id)).toContain(ids.c);
      const updated = alerts.map((rule) => Date.parse(rule.updatedAt));
      expect(updated).toEqual([...updated].sort((x, y) => y - x));
      expect(count).toBe(alerts.length);
    });

    it('orders by name, ascending and descending (in any case)', async () => {
      const { category, name } = await threeRules();
      expect(await names({ filters: { category }, options: { order: [['name', 'ASC']] } })).toEqual(['a', 'b', 'c'].map(name));
      expect(await names({ filters: { category }, options: { order: [['name', 'desc']] } })).toEqual(['c', 'b', 'a'].map(name));
      expect(
        await names({
          filters: { category },
          options: {
            order: [
              ['severity', 'asc'],
              ['name', 'DESC'],
            ],
          },
        }),
      ).toEqual(['b', 'c', 'a'].map(name));
    });

    it('answers a page at a time (limit, offset), with count the number of every match', async () => {
      const { category, name } = await threeRules();
      const byName = { options: { order: [['name', 'asc']] } };
      const page = await searchOk({ filters: { category }, ...byName, limit: 2, offset: 1 });
      expect([page.alerts.map((rule) => rule.name), page.count]).toEqual([['b', 'c'].map(name), 3]);
      const first = await searchOk({ filters: { category }, ...byName, limit: 1 });
      expect([first.alerts.map((rule) => rule.name), first.count]).toEqual([[name('a')], 3]);
      const past = await searchOk({ filters: { category }, ...byName, limit: 2, offset: 3 });
      expect(past).toEqual({ alerts: [], count: 3 });
    });

    it('takes an order key without a direction as ascending', async () => {
      const { category, name } = await threeRules();
      expect(await names({ filters: { category }, options: { order: [['name']] } })).toEqual(['a', 'b', 'c'].map(name));
    });

    // GraphQL's enums judge an order on both transports (REST sends a field it does not spell as given, the direction in capitals).
    it.each([
      ['a field it cannot order by', [['owner', 'asc']], /^Variable "\$orderBy" got invalid value "owner" at "orderBy\[0\]\.field"; Value "owner" does not exist in "AlertRuleOrderField" enum\./],
      [
        'a direction that is neither asc nor desc',
        [['name', 'sideways']],
        /^Variable "\$orderBy" got invalid value "SIDEWAYS" at "orderBy\[0\]\.order"; Value "SIDEWAYS" does not exist in "SortOrder" enum\./,
      ],
    ])('refuses an order by %s, naming it', async (_, order, message) => {
      expectFailure(await ctx.driver.searchRules({ options: { order } }), ctx.driver.typeRefusal, message);
    });

    it("refuses an order of more keys than rules have fields to order by (the list contract's rule)", async () => {
      const order = ['name', 'status', 'severity', 'category', 'createdAt', 'updatedAt', 'name'].map((field) => [field, 'asc']);
      expectFailure(await ctx.driver.searchRules({ options: { order } }), 'ALERT_RULE_INVALID_INPUT', /^the order has 7 keys; alert rules can be ordered by at most 6 fields$/);
    });

    it("refuses a negative page size with the list contract's message", async () => {
      expectFailure(await ctx.driver.searchRules({ limit: -1 }), 'ALERT_RULE_INVALID_INPUT', /^the page size must be an integer from 0 to \d+ \(got -1\)$/);
    });

    it.each([
      ['11 statuses', { status: Array.from({ length: 11 }, () => 'live') }, /^the status filter lists 11 values; at most 10 are allowed$/],
      ['an id over 64 characters', { id: 'x'.repeat(65) }, /^filters\.id must be at most 64 characters \(got 65\)$/],
      ['an alert type over 100 characters', { 'context.alertType': 'x'.repeat(101) }, /^filters\.alertType must be at most 100 characters \(got 101\)$/],
    ])('refuses a search and a bulk delete whose filters hold %s, deleting nothing', async (_, filters, message) => {
      const id = await createOk(ruleBody());
      expectFailure(await ctx.driver.searchRules({ filters }), 'ALERT_RULE_INVALID_INPUT', message);
      expectFailure(await ctx.driver.deleteRules(filters), 'ALERT_RULE_INVALID_INPUT', message);
      expect((await readOk(id)).status).toBe('draft');
    });

    it('refuses a status filter naming no status', async () => {
      expectFailure(
        await ctx.driver.searchRules({ filters: { status: 'paused' } }),
        ctx.driver.typeRefusal,
        /allowed values \(draft, live, retired\) at \/request\/filters\/status|"PAUSED" does not exist in "AlertRuleStatus"/,
      );
    });
  });

  describe('lifecycle', () => {
    it('refuses to publish a rule whose channel is still a draft, naming the channel; it stays a draft', async () => {
      const channelId = await draftChannel();
      const id = await createOk(ruleBody({ notification: { channels: [channelId] } }));
      expectFailure(await ctx.driver.publishRule(id), 'ALERT_RULE_INVALID_INPUT', new RegExp(`is draft: publish it first \\(GET /alerts/v1/notifications/publish/${channelId}\\)`));
      expect((await readOk(id)).status).toBe('draft');
    });

    it("publishes a draft: live, with the evaluator's state as alertData (inactive, its next evaluation), then evaluated", async () => {
      const id = await createOk(ruleBody({ notification: { channels: [await channel()] } }));
      expect(expectOk(await ctx.driver.publishRule(id))).toEqual({ id });
      const live = await readOk(id);
      expect(live).toMatchObject({ status: 'live', alertData: { state: 'inactive', lastEvaluation: null, alerts: [] } });
      expect(Number.isNaN(Date.parse(live.alertData!.nextEvaluation))).toBe(false);

      await evaluate();
      const [found] = (await searchOk({ filters: { id } })).alerts;
      expect(found).toMatchObject({ id, status: 'live', alertData: { state: 'inactive', alerts: [] } });
      const { lastEvaluation, nextEvaluation } = found!.alertData!;
      expect(lastEvaluation).not.toBeNull();
      expect(found!.alertData).not.toHaveProperty('lastError');
      // Every minute (its frequency) from the evaluation on.
      expect(Date.parse(nextEvaluation) - Date.parse(lastEvaluation!)).toBe(60_000);
    });

    it.each([
      ['pending while the condition has held for less than the interval', '5m', 'pending', 'Pending'],
      ['alerting once the rule fires (interval 0s: at once)', '0s', 'firing', 'Alerting'],
    ])('shows each series the condition holds for in alertData.alerts, %s, active since the rule is', async (_, interval, state, alertState) => {
      const id = await createOk(ruleBody({ interval }, { metric: 'vector(3)', operator: 'gt', threshold: [1] }));
      expectOk(await ctx.driver.publishRule(id));
      await evaluate();
      const { alertData } = await readOk(id);
      expect(alertData).toMatchObject({ state, alerts: [{ labels: {}, value: 3, state: alertState, activeAt: alertData!.activeAt }] });
      expect(Number.isNaN(Date.parse(alertData!.activeAt!))).toBe(false);
      expect((await searchOk({ filters: { id } })).alerts[0]!.alertData).toEqual(alertData);
    });

    it('makes a Live rule a draft again when it is changed: the change is kept and it is no longer evaluated', async () => {
      const id = await createOk(ruleBody());
      expectOk(await ctx.driver.publishRule(id));
      expect(expectOk(await ctx.driver.updateRule(id, { metadata: { queryBuilderContext: { metric: METRIC, operator: 'gt', threshold: [10] } } }))).toEqual({ id });
      const draft = await readOk(id);
      expect(draft).toMatchObject({ status: 'draft', threshold: [10], expression: `(${METRIC}) > 10` });
      expect(draft).not.toHaveProperty('alertData');
    });

    it('retires a rule on delete: still readable, not evaluated; publishing it is refused until it is updated back to a draft', async () => {
      const id = await createOk(ruleBody());
      expectOk(await ctx.driver.publishRule(id));
      expect(expectOk(await ctx.driver.deleteRule(id))).toEqual({ id });
      const retired = await readOk(id);
      expect(retired.status).toBe('retired');
      expect(retired).not.toHaveProperty('alertData');

      expectFailure(await ctx.driver.publishRule(id), 'ALERT_RULE_INVALID_INPUT', /is retired; update it to bring it back as a draft, then publish it/);
      expect((await readOk(id)).status).toBe('retired');

      expectOk(await ctx.driver.updateRule(id, { description: 'back again' }));
      expect(await readOk(id)).toMatchObject({ status: 'draft', description: 'back again' });
      expectOk(await ctx.driver.publishRule(id));
      expect((await readOk(id)).status).toBe('live');
    });

    it('retires with hardDelete=false too', async () => {
      const id = await createOk(ruleBody());
      expectOk(await ctx.driver.deleteRule(id, false));
      expect((await readOk(id)).status).toBe('retired');
    });

    it("refuses a hardDelete that is neither true nor false with GraphQL's Boolean message, deleting nothing", async () => {
      const id = await createOk(ruleBody());
      expectFailure(await ctx.driver.deleteRule(id, 'yes'), ctx.driver.typeRefusal, /^Variable "\$hardDelete" got invalid value "yes"; Boolean cannot represent a non boolean value: "yes"$/);
      expect((await readOk(id)).status).toBe('draft');
    });

    it('deletes a rule with hardDelete=true: it is gone, and every call on it answers ALERT_RULE_NOT_FOUND', async () => {
      const body = ruleBody();
      const id = await createOk(body);
      expectOk(await ctx.driver.publishRule(id));
      expect(expectOk(await ctx.driver.deleteRule(id, true))).toEqual({ id });
      expect(await stored(body.name!)).toEqual([]);
      expectFailure(await ctx.driver.readRule(id), 'ALERT_RULE_NOT_FOUND', /does not exist/);
      expectFailure(await ctx.driver.publishRule(id), 'ALERT_RULE_NOT_FOUND', /does not exist/);
      expectFailure(await ctx.driver.deleteRule(id, true), 'ALERT_RULE_NOT_FOUND', /does not exist/);
      expect(await searchOk({ filters: { id } })).toEqual({ alerts: [], count: 0 });
    });

    it('refuses a bulk delete with an empty filter (the original deleted every rule), deleting nothing', async () => {
      const first = await createOk(ruleBody());
      const second = await createOk(ruleBody());
      const before = (await searchOk({})).count;
      expectFailure(await ctx.driver.deleteRules({}), 'ALERT_RULE_INVALID_INPUT', /filters must select something: an empty filter would delete every rule/);
      expect((await searchOk({})).count).toBe(before);
      expect((await readOk(first)).status).toBe('draft');
      expect((await readOk(second)).status).toBe('draft');
    });

    it('deletes in bulk exactly the rules the filter selects, Live ones too, and answers their ids and count', async () => {
      const category = unique('doomed');
      const live = await createOk(ruleBody({ category }));
      const draft = await createOk(ruleBody({ category }));
      const kept = await createOk(ruleBody({ category, severity: 'critical' }));
      const elsewhere = await createOk(ruleBody());
      expectOk(await ctx.driver.publishRule(live));

      const deleted = expectOk(await ctx.driver.deleteRules({ category, severity: 'warning' }));
      expect({ ids: [...deleted.ids].sort(), count: deleted.count }).toEqual({ ids: [live, draft].sort(), count: 2 });
      expectFailure(await ctx.driver.readRule(live), 'ALERT_RULE_NOT_FOUND');
      expectFailure(await ctx.driver.readRule(draft), 'ALERT_RULE_NOT_FOUND');
      expect((await readOk(kept)).category).toBe(category);
      expect((await readOk(elsewhere)).status).toBe('draft');

      expect(expectOk(await ctx.driver.deleteRules({ category, status: 'live' }))).toEqual({ ids: [], count: 0 });
      expect((await readOk(kept)).status).toBe('draft');
    });

    it('deletes nothing in bulk for an id that is no UUID (no rule has one)', async () => {
      const id = await createOk(ruleBody());
      expect(expectOk(await ctx.driver.deleteRules({ id: 'not-a-uuid' }))).toEqual({ ids: [], count: 0 });
      expect((await readOk(id)).status).toBe('draft');
      expect(expectOk(await ctx.driver.deleteRules({ id }))).toEqual({ ids: [id], count: 1 });
    });
  });

  describe('silence state', () => {
    it('shows a silence of the rule as muted, with its id and end time', async () => {
      const id = await createOk(ruleBody());
      expectOk(await ctx.driver.publishRule(id));
      const silence = silenceBody({ alertId: id });
      const silenceId = (await rest('post', '/alerts/v1/silence/create', silence)).id as string;
      const expected = { state: 'muted', silenceId, endTime: Date.parse(silence.endDate) };
      expect((await readOk(id)).silenceState).toEqual(expected);
      expect((await searchOk({ filters: { id } })).alerts[0]!.silenceState).toEqual(expected);
    });

    it('shows a rule whose silence starts later as unmuted, naming the silence', async () => {
      const id = await createOk(ruleBody());
      const silenceId = (await rest('post', '/alerts/v1/silence/create', silenceBody({ alertId: id, startDate: hoursFromNow(1), endDate: hoursFromNow(3) }))).id as string;
      expect((await readOk(id)).silenceState).toEqual({ state: 'unmuted', silenceId });
    });

    it('shows a rule whose silence was ended and deleted as unmuted, with no silence', async () => {
      const id = await createOk(ruleBody());
      const silenceId = (await rest('post', '/alerts/v1/silence/create', silenceBody({ alertId: id }))).id as string;
      expect((await readOk(id)).silenceState.state).toBe('muted');
      const ended = await ctx.gw.http.delete(`/alerts/v1/silence/delete/${silenceId}`);
      expect(ended.status).toBe(200);
      expect((await readOk(id)).silenceState).toEqual({ state: 'unmuted', silenceId: '' });
    });
  });
}
