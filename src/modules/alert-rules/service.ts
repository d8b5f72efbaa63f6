// Every business rule of alert rules; both transports call these functions.
//
// A rule is written as a draft, published (Live: evaluated by the gateway's embedded evaluator, or
// handed to a manager that evaluates rules itself, Grafana), changed (a Live rule is unpublished and
// goes back to draft, as the original), retired or deleted. As in the alerts module, a manager is
// asked first and our record changes only once it said yes.
import DataLoader from 'dataloader';
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { AlertManagers, RuleSpec } from '../../platform/alert-manager/alert-manager.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { checkLegacyValues, legacyEq, legacyIn, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import type { ListArguments } from '../../platform/lists/list-query.js';
import type { AlertService, ManagerKind } from '../alerts/index.js';
import { checkMetricExpression, checkIdLength, checkName, isUuid } from '../alerts/index.js';
import { EVALUATED_MANAGERS } from './evaluator.js';
import { prometheusRuleFile } from './prometheus-rules.js';
import {
  alertAnnotations,
  alertLabels,
  ALERT_TYPE_MAX_LENGTH,
  CATEGORY_MAX_LENGTH,
  CHANNELS_MAX,
  checkStringMap,
  checkDescription,
  checkThresholds,
  conditionExpression,
  DEFAULT_EVALUATION_INTERVAL,
  DEFAULT_PENDING_PERIOD,
  isRuleOperator,
  isRuleSeverity,
  isRuleStatus,
  MIN_EVALUATION_INTERVAL_MS,
  parseDuration,
  RULE_NAME_MAX_LENGTH,
} from './rules.js';
import { isUniqueViolation, type AlertRuleStore, type RuleRowInput } from './store.js';
import type {
  Actor,
  AlertNotificationPage,
  AlertNotificationRecord,
  AlertRuleChanges,
  AlertRuleFilter,
  AlertRuleInput,
  AlertRulePage,
  AlertRuleQuery,
  AlertRuleRecord,
  AlertRuleView,
  JsonObject,
  RuleEvaluation,
} from './types.js';

const CODE = 'ALERT_RULE_INVALID_INPUT';
const MAX_JSON_DEPTH = 32;

export interface AlertRuleServiceOptions {
  listMax: number;
  /** What a `manager` name (or its absence: the default manager) stands for; an unknown or unconfigured one throws ALERT_RULE_INVALID_INPUT. */
  resolveManager(name: string | null | undefined): ManagerKind;
  now?: () => Date;
}

function invalid(problem: string | undefined): void {
  if (problem !== undefined) throw new GatewayError(CODE, problem);
}

function notFound(id: string): GatewayError {
  return new GatewayError('ALERT_RULE_NOT_FOUND', `Alert rule ${id} does not exist`);
}

function exists(name: string): GatewayError {
  return new GatewayError('ALERT_RULE_ALREADY_EXISTS', `Alert rule "${name}" already exists`);
}

function jsonObject(what: string, value: unknown): JsonObject {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new GatewayError(CODE, `${what} must be a JSON object`);
  const tooDeep = pathDeeperThan(value, MAX_JSON_DEPTH);
  if (tooDeep !== undefined) throw new GatewayError(CODE, `${what} is nested deeper than ${MAX_JSON_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
  return value as JsonObject;
}

function stringMap(what: string, value: unknown) {
  const checked = checkStringMap(what, value);
  if ('problem' in checked) throw new GatewayError(CODE, checked.problem);
  return checked.map;
}

function duration(what: string, text: string, minMs: number): number {
  const parsed = parseDuration(what, text, minMs);
  if ('problem' in parsed) throw new GatewayError(CODE, parsed.problem);
  return parsed.ms;
}

/** The filter of a search or bulk delete, checked: statuses known and not too many, ids and alert types within their lengths. */
function checkFilter(filter: AlertRuleFilter): AlertRuleFilter {
  checkLegacyValues(CODE, 'status', filter.status);
  for (const status of filter.status ?? []) if (!isRuleStatus(status)) throw new GatewayError(CODE, `filters.status: ${JSON.stringify(status.slice(0, 40))} is not one of draft, live, retired`);
  if (filter.severity && !isRuleSeverity(filter.severity)) throw new GatewayError(CODE, 'filters.severity must be one of warning, critical');
  if (filter.id) invalid(checkIdLength('filters.id', filter.id));
  if (filter.alertType && filter.alertType.length > ALERT_TYPE_MAX_LENGTH)
    throw new GatewayError(CODE, `filters.alertType must be at most ${ALERT_TYPE_MAX_LENGTH} characters (got ${filter.alertType.length})`);
  return filter;
}

function isEmptyFilter(filter: AlertRuleFilter): boolean {
  return Object.values(filter).every((value) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0));
}

/** The dataset a rule is about: its `dataset` label, else `datasetId` in its context (how the platform writes a dataset's rules). */
export function datasetOfRule(rule: Pick<AlertRuleRecord, 'labels' | 'context'>): string | undefined {
  const labelled = rule.labels.dataset;
  if (typeof labelled === 'string' && labelled !== '') return labelled;
  const inContext = rule.context.datasetId;
  return typeof inContext === 'string' && inContext !== '' ? inContext : undefined;
}

/** A dataset whose rules are asked for, and the record fields its reader needs (all when not given). */
export interface RulesAboutDataset {
  datasetId: string;
  fields?: ReadonlySet<string>;
}

const fieldsKey = (fields: ReadonlySet<string> | undefined) => (fields ? [...fields].sort().join(',') : '*');

export function createAlertRuleService(store: AlertRuleStore, alerts: AlertService, managers: AlertManagers, options: AlertRuleServiceOptions) {
  const now = options.now ?? (() => new Date());

  async function getRecord(id: string): Promise<AlertRuleRecord> {
    invalid(checkIdLength('the alert rule id', id));
    const record = isUuid(id) ? await store.findById(id) : undefined;
    if (!record) throw notFound(id);
    return record;
  }

  async function views(records: AlertRuleRecord[]): Promise<AlertRuleView[]> {
    const ids = records.map((record) => record.id);
    const [evaluations, silences] = await Promise.all([store.evaluations(ids), alerts.silencesOf(ids)]);
    return records.map((record) => ({ ...record, evaluation: evaluations.get(record.id) ?? null, silence: silences.get(record.id) ?? null }));
  }

  async function channelsExist(ids: readonly string[]): Promise<string[]> {
    if (ids.length > CHANNELS_MAX) throw new GatewayError(CODE, `a rule may notify at most ${CHANNELS_MAX} channels`);
    const unique = [...new Set(ids)];
    for (const id of unique) {
      if (!isUuid(id)) throw new GatewayError(CODE, `notification channel ids must be UUIDs (got ${JSON.stringify(id.slice(0, 60))})`);
      try {
        await alerts.getChannel(id);
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'NOTIFICATION_CHANNEL_NOT_FOUND') throw new GatewayError(CODE, `notification channel ${id} does not exist`);
        throw error;
      }
    }
    return unique;
  }

  /** The metric a rule compares: written out, or the expression of the alias it names. */
  async function metricOf(input: Pick<AlertRuleInput, 'metric' | 'metricAlias'>): Promise<string> {
    if (input.metric !== undefined && input.metric !== null && input.metric.trim() !== '') {
      invalid(checkMetricExpression(input.metric));
      return input.metric.trim();
    }
    if (input.metricAlias) {
      const alias = await alerts.findMetricAlias(input.metricAlias);
      if (!alias) throw new GatewayError(CODE, `metric alias "${input.metricAlias.slice(0, 200)}" does not exist`);
      return alias.metric;
    }
    throw new GatewayError(CODE, 'give the metric (PromQL) or the name of a metric alias');
  }

  /** A whole rule from a complete input (create, or an update merged over the stored rule). */
  async function validRule(input: AlertRuleInput): Promise<Omit<RuleRowInput, 'id' | 'status' | 'createdBy' | 'updatedBy'>> {
    invalid(checkName('name', input.name, RULE_NAME_MAX_LENGTH));
    invalid(checkName('category', input.category, CATEGORY_MAX_LENGTH));
    const description = input.description ?? '';
    invalid(checkDescription(description));
    const severity = input.severity ?? 'warning';
    if (!isRuleSeverity(severity)) throw new GatewayError(CODE, `severity must be one of warning, critical (got ${JSON.stringify(severity.slice(0, 40))})`);
    if (!isRuleOperator(input.operator)) throw new GatewayError(CODE, `operator must be one of gt, lt, within_range, outside_range (got ${JSON.stringify(String(input.operator).slice(0, 40))})`);
    invalid(checkThresholds(input.operator, input.thresholds));
    const metric = await metricOf(input);
    return {
      name: input.name.trim(),
      manager: options.resolveManager(input.manager),
      description,
      metric,
      operator: input.operator,
      thresholds: [...input.thresholds],
      expression: conditionExpression(metric, input.operator, input.thresholds),
      severity,
      category: input.category.trim(),
      evaluationIntervalMs: duration('frequency', input.evaluationInterval ?? DEFAULT_EVALUATION_INTERVAL, MIN_EVALUATION_INTERVAL_MS),
      pendingForMs: duration('interval', input.pendingPeriod ?? DEFAULT_PENDING_PERIOD, 0),
      labels: stringMap('labels', input.labels),
      annotations: stringMap('annotations', input.annotations),
      metadata: jsonObject('metadata', input.metadata),
      channelIds: await channelsExist(input.channelIds ?? []),
      context: jsonObject('context', input.context),
    };
  }

  /** The rule as a manager that evaluates rules receives it; each of its channels must be Live (published) by now. */
  async function ruleSpec(record: AlertRuleRecord): Promise<RuleSpec> {
    const contactPoints: string[] = [];
    for (const id of record.channelIds) {
      const channel = await alerts.getChannel(id).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'NOTIFICATION_CHANNEL_NOT_FOUND') throw new GatewayError(CODE, `notification channel ${id} no longer exists; update the rule's channels`);
        throw error;
      });
      if (channel.status !== 'live')
        throw new GatewayError(CODE, `notification channel "${channel.name}" is ${channel.status}: publish it first (GET /alerts/v1/notifications/publish/${id}) or take it off the rule`);
      // A manager that evaluates rules notifies through its own contact points: it knows only its channels.
      if (managers.get(record.manager)?.rules && channel.manager !== record.manager)
        throw new GatewayError(CODE, `notification channel "${channel.name}" is held by the ${channel.manager} manager; a rule held by ${record.manager} can notify only ${record.manager}'s channels`);
      contactPoints.push(channel.name);
    }
    return {
      id: record.id,
      name: record.name,
      category: record.category,
      description: record.description,
      expression: record.expression,
      evaluationIntervalMs: record.evaluationIntervalMs,
      pendingForMs: record.pendingForMs,
      labels: alertLabels(record),
      annotations: alertAnnotations(record),
      contactPoints,
    };
  }

  /** Takes a Live rule off its manager (the embedded evaluator stops with the status change). */
  async function unpublish(record: AlertRuleRecord): Promise<void> {
    if (record.status !== 'live') return;
    const manager = managers.get(record.manager);
    if (manager?.rules) await manager.rules.unpublish(record);
  }

  return {
    // Rules reached through links come without their evaluation and silence, which the fields load
    // (batched) only when a query asks for them.

    /** Rules by id, one statement per request's batch; undefined for ids that name none. */
    createLoader(): DataLoader<string, AlertRuleView | undefined> {
      return new DataLoader(async (ids) => {
        const byId = new Map((await store.findByIds(ids.filter(isUuid))).map((record) => [record.id, record]));
        return ids.map((id) => byId.get(id));
      });
    },

    /**
     * The rules about each dataset (see datasetOfRule), newest first, one statement per request's
     * batch and set of `fields` (the record fields the reader needs; all when not given).
     */
    createDatasetLoader(): DataLoader<RulesAboutDataset, AlertRuleView[], string> {
      return new DataLoader(
        async (keys) => {
          // One statement per set of fields asked (a request's items ask alike: one in all).
          const groups = new Map<string, { fields?: ReadonlySet<string>; datasetIds: string[]; rules?: AlertRuleRecord[] }>();
          for (const { datasetId, fields } of keys) {
            const group = groups.get(fieldsKey(fields)) ?? { fields, datasetIds: [] };
            groups.set(fieldsKey(fields), group);
            group.datasetIds.push(datasetId);
          }
          await Promise.all([...groups.values()].map(async (group) => (group.rules = await store.aboutDatasets(group.datasetIds, group.fields))));
          return keys.map(({ datasetId, fields }) => groups.get(fieldsKey(fields))!.rules!.filter((rule) => datasetOfRule(rule) === datasetId));
        },
        { cacheKeyFn: ({ datasetId, fields }) => `${fieldsKey(fields)}\u0000${datasetId}` },
      );
    },

    /** Where the evaluator found each rule (null: never evaluated), one statement per request's batch. */
    createEvaluationLoader(): DataLoader<string, RuleEvaluation | null> {
      return new DataLoader(async (ids) => {
        const evaluations = await store.evaluations(ids);
        return ids.map((id) => evaluations.get(id) ?? null);
      });
    },

    async getRule(id: string): Promise<AlertRuleView> {
      const [view] = await views([await getRecord(id)]);
      return view!;
    },

    /**
     * A page of the rules about one dataset (`Dataset.alertRulePage`), by the rule list's contract.
     * The datasets of one request that ask with the same arguments share one statement (`request`: an
     * object of that request); evaluations and silences are left to their fields' loaders.
     */
    datasetRulePage(request: object, datasetId: string, args: ListArguments): Promise<AlertRulePage> {
      return store.datasetPage(request, datasetId, args, options.listMax);
    },

    /** A page of a rule's notifications (`AlertRule.notificationPage`); the rules of one request that ask alike share one statement. */
    ruleNotificationPage(request: object, ruleId: string, args: ListArguments): Promise<AlertNotificationPage> {
      return store.notificationPage(request, ruleId, args, options.listMax);
    },

    /** A page of the rule list; with `fields` (what the reader's selection needs), each record holds only those. */
    async searchRules(query: AlertRuleQuery, fields?: ReadonlySet<string>): Promise<AlertRulePage> {
      const { filter: given, ...args } = query;
      const filter = checkFilter(given ?? {});
      const legacy = {
        ...legacyIn('status', filter.status?.length ? filter.status : undefined),
        ...legacyEq('alertRuleId', filter.id),
        ...legacyEq('name', filter.name),
        ...legacyEq('category', filter.category),
        ...legacyEq('severity', filter.severity),
        ...legacyEq('manager', filter.manager),
        ...legacyEq('alertType', filter.alertType),
      };
      const page = await store.page({ ...args, where: withLegacyFilter(args.where, legacy) }, options.listMax, fields);
      return { ...page, items: await views(page.items) };
    },

    async createRule(input: AlertRuleInput, actor: Actor): Promise<AlertRuleRecord> {
      const rule = await validRule(input);
      if (await store.findByName(rule.name)) throw exists(rule.name);
      try {
        return await store.insert({ ...rule, id: randomUUID(), status: 'draft', createdBy: actor.id, updatedBy: actor.id });
      } catch (error) {
        if (isUniqueViolation(error)) throw exists(rule.name);
        throw error;
      }
    },

    /** Changes a rule; a Live one is unpublished first and, like any changed rule, is a draft again. */
    async updateRule(id: string, changes: AlertRuleChanges, actor: Actor): Promise<AlertRuleRecord> {
      const given = Object.entries(changes).filter(([, value]) => value !== undefined);
      if (given.length === 0) throw new GatewayError(CODE, 'nothing to update: give at least one field of the rule');
      const existing = await getRecord(id);
      // A new metric replaces the alias it came from, and the other way round.
      const metricGiven = changes.metric !== undefined || changes.metricAlias !== undefined;
      const merged: AlertRuleInput = {
        name: changes.name ?? existing.name,
        manager: changes.manager ?? existing.manager,
        description: changes.description ?? existing.description,
        category: changes.category ?? existing.category,
        severity: changes.severity ?? existing.severity,
        evaluationInterval: changes.evaluationInterval ?? `${existing.evaluationIntervalMs}ms`,
        pendingPeriod: changes.pendingPeriod ?? `${existing.pendingForMs}ms`,
        metric: metricGiven ? changes.metric : existing.metric,
        metricAlias: metricGiven ? changes.metricAlias : null,
        operator: changes.operator ?? existing.operator,
        thresholds: changes.thresholds ?? existing.thresholds,
        labels: changes.labels ?? existing.labels,
        annotations: changes.annotations ?? existing.annotations,
        metadata: changes.metadata ?? existing.metadata,
        channelIds: changes.channelIds ?? existing.channelIds,
        context: changes.context ?? existing.context,
      };
      const rule = await validRule(merged);
      if (rule.name !== existing.name && (await store.findByName(rule.name, id))) throw exists(rule.name);
      await unpublish(existing);
      let updated: AlertRuleRecord | undefined;
      try {
        updated = await store.update(id, { ...rule, status: 'draft', updatedBy: actor.id });
      } catch (error) {
        if (isUniqueViolation(error)) throw exists(rule.name);
        throw error;
      }
      if (!updated) throw notFound(id);
      return updated;
    },

    /**
     * Makes a rule Live. Its channels must be usable; a manager that evaluates rules (Grafana) gets
     * the rule, otherwise the embedded evaluator runs it from its first interval on. Publishing a
     * Live rule again republishes it (its changes reach the manager, its evaluation starts over).
     */
    async publishRule(id: string, actor: Actor): Promise<AlertRuleRecord> {
      const existing = await getRecord(id);
      if (existing.status === 'retired') throw new GatewayError(CODE, `alert rule ${id} is retired; update it to bring it back as a draft, then publish it`);
      const manager = managers.get(existing.manager);
      if (!manager) throw new GatewayError('ALERT_MANAGER_FAILED', `this rule is held by the ${existing.manager} manager, which is not configured on this gateway; nothing was changed`);
      const spec = await ruleSpec(existing);
      if (manager.rules) await manager.rules.publish(spec);
      const published = await store.publish(id, actor.id, manager.rules ? null : now());
      if (!published) throw notFound(id);
      return published;
    },

    /** Retires a rule (kept, no longer evaluated) or, with `hard`, deletes it; a Live one is unpublished first. */
    async deleteRule(id: string, hard: boolean, actor: Actor): Promise<void> {
      const existing = await getRecord(id);
      await unpublish(existing);
      const done = hard ? await store.delete(id) : (await store.update(id, { status: 'retired', updatedBy: actor.id })) !== undefined;
      if (!done) throw notFound(id);
    },

    /**
     * Deletes every rule the filter selects. An empty filter is refused: the original deleted every
     * rule when given `{}`, which no caller means.
     */
    async deleteRules(filter: AlertRuleFilter): Promise<AlertRuleRecord[]> {
      if (isEmptyFilter(filter)) throw new GatewayError(CODE, 'filters must select something: an empty filter would delete every rule');
      const checked = checkFilter(filter);
      // As in search: an id that is no UUID selects nothing (the uuid column would refuse it with a 500).
      if (checked.id && !isUuid(checked.id)) return [];
      const deleted: AlertRuleRecord[] = [];
      // In pages, so a large match never loads every rule at once; each page is unpublished, then deleted.
      for (;;) {
        const page = await store.list(checked, [], { take: options.listMax, skip: 0 });
        for (const record of page) await unpublish(record);
        if (page.length === 0 || (await store.deleteByIds(page.map((record) => record.id))) === 0) return deleted;
        deleted.push(...page);
      }
    },

    /**
     * The Live rules (of one manager, or all) as a Prometheus rule file, for running them in
     * Prometheus with Alertmanager; read a page at a time, in category then name order.
     */
    async prometheusRules(manager: string | null | undefined): Promise<string> {
      const filter: AlertRuleFilter = { status: ['live'], ...(manager ? { manager } : {}) };
      const order = [
        { field: 'category', direction: 'asc' },
        { field: 'name', direction: 'asc' },
      ] as const;
      const rules: AlertRuleRecord[] = [];
      for (;;) {
        const page = await store.list(filter, [...order], { take: options.listMax, skip: rules.length });
        rules.push(...page);
        if (page.length < options.listMax) return prometheusRuleFile(rules);
      }
    },

    /** The Live rules the embedded evaluator runs, with where it found each, in category then name order (Grafana's rules API shows them). */
    async evaluatedRules(): Promise<AlertRuleView[]> {
      const order = [
        { field: 'category', direction: 'asc' },
        { field: 'name', direction: 'asc' },
      ] as const;
      const records: AlertRuleRecord[] = [];
      for (const manager of EVALUATED_MANAGERS) {
        for (let skip = 0; ;) {
          const page = await store.list({ status: ['live'], manager }, [...order], { take: options.listMax, skip });
          records.push(...page);
          skip += page.length;
          if (page.length < options.listMax) break;
        }
      }
      return views(records);
    },

    /** One notification by id; undefined when there is none. */
    async notification(id: string): Promise<AlertNotificationRecord | undefined> {
      return isUuid(id) ? store.notification(id) : undefined;
    },

    /** The notifications decided for a rule, newest first. */
    /** The newest notifications of each rule (`take` of them), one batch per request and page size. */
    createNotificationsLoader(): DataLoader<{ ruleId: string; take: number }, AlertNotificationRecord[], string> {
      return new DataLoader(
        async (keys) => {
          const byTake = new Map<number, Map<string, AlertNotificationRecord[]>>();
          for (const take of new Set(keys.map((key) => key.take))) {
            byTake.set(take, await store.notificationsOfRules([...new Set(keys.filter((key) => key.take === take).map((key) => key.ruleId))], take));
          }
          return keys.map((key) => byTake.get(key.take)!.get(key.ruleId) ?? []);
        },
        { cacheKeyFn: (key) => `${key.take}:${key.ruleId}` },
      );
    },
  };
}

export type AlertRuleService = ReturnType<typeof createAlertRuleService>;
