// Metric aliases: named PromQL expressions alert rules may use instead of writing the expression.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { legacyEq, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import { checkMetricExpression } from './metric-expression.js';
import { checkIdLength, checkName, COMPONENT_MAX_LENGTH, isUuid, METRIC_MAX_LENGTH } from './rules.js';
import { invalid, type AlertServiceOptions } from './service-support.js';
import { isUniqueViolation, type AlertStore } from './store.js';
import type { Actor, CreateMetricAliasInput, JsonObject, ListQuery, MetricAliasFilter, MetricAliasRecord, Page, UpdateMetricAliasInput } from './types.js';

export function createMetricAliasService(store: Pick<AlertStore, 'aliases'>, options: AlertServiceOptions) {
  function aliasNotFound(id: string): GatewayError {
    return new GatewayError('METRIC_ALIAS_NOT_FOUND', `Metric alias ${id} does not exist`);
  }

  function aliasExists(alias: string): GatewayError {
    return new GatewayError('METRIC_ALIAS_ALREADY_EXISTS', `Metric alias "${alias}" already exists`);
  }

  async function getAlias(id: string): Promise<MetricAliasRecord> {
    invalid('METRIC_ALIAS_INVALID_INPUT', checkIdLength('the metric alias id', id));
    const record = isUuid(id) ? await store.aliases.findById(id) : undefined;
    if (!record) throw aliasNotFound(id);
    return record;
  }

  const MAX_CONTEXT_DEPTH = 32;

  function validContext(value: unknown): JsonObject | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'object' || Array.isArray(value)) throw new GatewayError('METRIC_ALIAS_INVALID_INPUT', 'context must be a JSON object');
    // The store recurses into JSON; a hostile depth would surface as a 500 from it.
    const tooDeep = pathDeeperThan(value, MAX_CONTEXT_DEPTH);
    if (tooDeep !== undefined) throw new GatewayError('METRIC_ALIAS_INVALID_INPUT', `context is nested deeper than ${MAX_CONTEXT_DEPTH} levels (at ${tooDeep.slice(0, 200)})`);
    return value as JsonObject;
  }

  function validMetric(metric: string): string {
    if (metric.length > METRIC_MAX_LENGTH) throw new GatewayError('METRIC_ALIAS_INVALID_INPUT', `metric must be at most ${METRIC_MAX_LENGTH} characters`);
    invalid('METRIC_ALIAS_INVALID_INPUT', checkMetricExpression(metric));
    return metric.trim();
  }

  /** Components are compared in lower case, as the original stores them on update. */
  function validComponent(component: string): string {
    invalid('METRIC_ALIAS_INVALID_INPUT', checkName('component', component, COMPONENT_MAX_LENGTH));
    return component.trim().toLowerCase();
  }

  return {
    /** A metric alias by its name (alert rules may name one instead of writing the PromQL). */
    async findMetricAlias(alias: string): Promise<MetricAliasRecord | undefined> {
      return store.aliases.findByAlias(alias);
    },

    getMetricAlias: getAlias,

    async listMetricAliases(query: ListQuery<MetricAliasFilter>): Promise<Page<MetricAliasRecord>> {
      const { filter: given, ...args } = query;
      const legacy = { ...legacyEq('component', given?.component?.toLowerCase()), ...legacyEq('subComponent', given?.subComponent) };
      return store.aliases.page({ ...args, where: withLegacyFilter(args.where, legacy) }, options.listMax);
    },

    async createMetricAlias(input: CreateMetricAliasInput, actor: Actor): Promise<MetricAliasRecord> {
      const code = 'METRIC_ALIAS_INVALID_INPUT';
      invalid(code, checkName('alias', input.alias));
      const component = validComponent(input.component);
      const subComponent = input.subComponent ?? null;
      if (subComponent !== null) invalid(code, checkName('subComponent', subComponent));
      const metric = validMetric(input.metric);
      const context = validContext(input.context);
      if (await store.aliases.findByAlias(input.alias)) throw aliasExists(input.alias);
      try {
        return await store.aliases.insert({ id: randomUUID(), alias: input.alias, component, subComponent, metric, context, createdBy: actor.id, updatedBy: actor.id });
      } catch (error) {
        if (isUniqueViolation(error)) throw aliasExists(input.alias);
        throw error;
      }
    },

    async updateMetricAlias(id: string, input: UpdateMetricAliasInput, actor: Actor): Promise<MetricAliasRecord> {
      const code = 'METRIC_ALIAS_INVALID_INPUT';
      const changes: Parameters<AlertStore['aliases']['update']>[1] = { updatedBy: actor.id };
      if (input.alias !== undefined && input.alias !== null) {
        invalid(code, checkName('alias', input.alias));
        changes.alias = input.alias;
      }
      if (input.component !== undefined && input.component !== null) changes.component = validComponent(input.component);
      if (input.subComponent !== undefined) {
        if (input.subComponent !== null) invalid(code, checkName('subComponent', input.subComponent));
        changes.subComponent = input.subComponent;
      }
      if (input.metric !== undefined && input.metric !== null) changes.metric = validMetric(input.metric);
      if (input.context !== undefined) changes.context = validContext(input.context);
      if (Object.keys(changes).length === 1) throw new GatewayError(code, 'nothing to update: give alias, component, subComponent, metric or context');
      await getAlias(id);
      if (changes.alias !== undefined && (await store.aliases.findByAlias(changes.alias, id))) throw aliasExists(changes.alias);
      let updated: MetricAliasRecord | undefined;
      try {
        updated = await store.aliases.update(id, changes);
      } catch (error) {
        if (isUniqueViolation(error)) throw aliasExists(changes.alias ?? id);
        throw error;
      }
      if (!updated) throw aliasNotFound(id);
      return updated;
    },

    async deleteMetricAlias(id: string): Promise<void> {
      invalid('METRIC_ALIAS_INVALID_INPUT', checkIdLength('the metric alias id', id));
      if (!isUuid(id) || !(await store.aliases.delete(id))) throw aliasNotFound(id);
    },
  };
}
