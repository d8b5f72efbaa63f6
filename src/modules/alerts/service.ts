// Every business rule of alerting lives here; both transports call these functions.
//
// Records and managers stay in step by one rule: the manager is asked first, and our record is
// written (or changed, or removed) only once the manager said yes. A manager that fails leaves our
// record as it was, so it never claims what the manager does not hold. When our own write fails
// after the manager said yes, the manager's change is undone (best effort, logged when it fails).
import DataLoader from 'dataloader';
import { pageOf, pageWindow } from '../../validation/page-window.js';
import { randomUUID } from 'node:crypto';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { GatewayError, type ErrorCode } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { AlertManager, AlertManagers } from '../../platform/alert-manager/alert-manager.js';
import type { Notifier } from '../../platform/notifier/notifier.js';
import type { ManagerNames } from './manager-names.js';
import { checkMetricExpression } from './metric-expression.js';
import {
  CHANNEL_NAME_MAX_LENGTH,
  checkLabels,
  checkName,
  checkSilenceWindow,
  COMMENT_MAX_LENGTH,
  COMPONENT_MAX_LENGTH,
  isChannelOrderField,
  isChannelStatus,
  isChannelType,
  isManagerKind,
  isUuid,
  MESSAGE_MAX_LENGTH,
  METRIC_MAX_LENGTH,
  splitRecipients,
  SUBJECT_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './rules.js';
import { isUniqueViolation, type AlertStore, type ChannelSort, type ChannelWhere } from './store.js';
import type {
  Actor,
  ChannelConfig,
  ChannelInput,
  ChannelListQuery,
  ChannelOrder,
  ChannelRecord,
  ChannelStatus,
  ChannelTarget,
  CreateMetricAliasInput,
  CreateSilenceInput,
  DeliveryReport,
  JsonObject,
  ListQuery,
  ManagerKind,
  MetricAliasFilter,
  MetricAliasRecord,
  Page,
  SilenceFilter,
  SilenceRecord,
  SilenceState,
  TestChannelInput,
  TestChannelResult,
  UpdateChannelInput,
  UpdateMetricAliasInput,
  UpdateSilenceInput,
} from './types.js';

export const NOTIFICATION_SENT = 'Notification Sent';
const DEFAULT_TEST_MESSAGE = 'Test notification from the data platform gateway';
const DEFAULT_TEST_SUBJECT = 'Test notification';

const MANAGER_SETTING: Record<ManagerKind, string> = { embedded: '(always available)', alertmanager: 'ALERTMANAGER_URL', grafana: 'GRAFANA_URL' };

export interface AlertServiceOptions {
  /** Most records one list call returns. */
  listMax: number;
  /** The clock, replaceable in tests. */
  now?: () => Date;
}

export function createAlertService(store: AlertStore, managers: AlertManagers, names: ManagerNames, notifier: Notifier, logger: Logger, options: AlertServiceOptions) {
  const now = options.now ?? (() => new Date());

  function invalid(code: ErrorCode, problem: string | undefined): void {
    if (problem !== undefined) throw new GatewayError(code, problem);
  }

  /** The configured manager a request's `manager` (a name, an alias, or none) resolves to. */
  function managerFor(name: string | null | undefined, purpose: 'silence' | 'channel'): AlertManager {
    return managers.get(names.resolveManager(name, purpose))!;
  }

  /** The manager holding an existing record; it may have been configured away since. */
  function holderOf(record: { manager: ManagerKind }): AlertManager {
    const manager = managers.get(record.manager);
    if (!manager)
      throw new GatewayError(
        'ALERT_MANAGER_FAILED',
        `this record is held by the ${record.manager} manager, which is no longer configured (set ${MANAGER_SETTING[record.manager]}); nothing was changed`,
      );
    return manager;
  }

  /** Undoes a manager change after our own write failed; the original error is what the caller sees. */
  async function undo(what: string, action: () => Promise<unknown>): Promise<void> {
    try {
      await action();
    } catch (error) {
      logger.warn({ err: error }, `could not undo at the alert manager: ${what}`);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Silences

  function silenceNotFound(id: string): GatewayError {
    return new GatewayError('SILENCE_NOT_FOUND', `Silence ${id} does not exist`);
  }

  async function getSilence(id: string): Promise<SilenceRecord> {
    const record = isUuid(id) ? await store.silences.findById(id) : undefined;
    if (!record) throw silenceNotFound(id);
    return record;
  }

  // ------------------------------------------------------------------------------------------
  // Metric aliases

  function aliasNotFound(id: string): GatewayError {
    return new GatewayError('METRIC_ALIAS_NOT_FOUND', `Metric alias ${id} does not exist`);
  }

  function aliasExists(alias: string): GatewayError {
    return new GatewayError('METRIC_ALIAS_ALREADY_EXISTS', `Metric alias "${alias}" already exists`);
  }

  async function getAlias(id: string): Promise<MetricAliasRecord> {
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

  // ------------------------------------------------------------------------------------------
  // Notification channels

  function channelNotFound(id: string): GatewayError {
    return new GatewayError('NOTIFICATION_CHANNEL_NOT_FOUND', `Notification channel ${id} does not exist`);
  }

  function channelExists(name: string): GatewayError {
    return new GatewayError('NOTIFICATION_CHANNEL_ALREADY_EXISTS', `Notification channel "${name}" already exists`);
  }

  function channelRetired(id: string, what: string): GatewayError {
    return new GatewayError('NOTIFICATION_CHANNEL_RETIRED', `Notification channel ${id} is retired and cannot be ${what}; create a new channel instead`);
  }

  /** What to tell a caller whose change lost a race, from the channel as it stands now (undefined: deleted). */
  async function raced(id: string, what: string): Promise<{ error: GatewayError; status: ChannelStatus | undefined }> {
    const status = (await store.channels.findById(id))?.status;
    if (!status) return { error: channelNotFound(id), status };
    if (status === 'retired') return { error: channelRetired(id, what), status };
    return { error: new GatewayError('NOTIFICATION_CHANNEL_CONFLICT', `Notification channel ${id} became ${status} while it was being ${what}; read it and retry`), status };
  }

  async function getChannel(id: string): Promise<ChannelRecord> {
    const record = isUuid(id) ? await store.channels.findById(id) : undefined;
    if (!record) throw channelNotFound(id);
    return record;
  }

  /** The channel API of the manager holding a channel (resolveManager only ever stores one that has it). */
  function channelsOf(record: ChannelRecord): NonNullable<AlertManager['channels']> {
    const port = holderOf(record).channels;
    if (!port) throw new GatewayError('ALERT_MANAGER_FAILED', `the ${record.manager} manager holds no notification channels; nothing was changed`);
    return port;
  }

  /** Checks a channel's name, type and the config its type needs; returns what managers and notifiers take. */
  function validChannel(name: string, type: string, config: ChannelConfig, id?: string): ChannelTarget {
    const code = 'NOTIFICATION_CHANNEL_INVALID_INPUT';
    invalid(code, checkName('name', name));
    if (!isChannelType(type)) throw new GatewayError(code, `type must be one of email, slack, teams (got ${JSON.stringify(type.slice(0, 40))})`);
    const present = (key: keyof ChannelConfig) => config[key] !== undefined && config[key] !== null;
    if (present('labels')) invalid(code, checkLabels('config.labels', config.labels));
    const labels = present('labels') && Object.keys(config.labels!).length > 0 ? { labels: config.labels } : {};
    if (type === 'email') {
      for (const key of ['webhookUrl', 'channel'] as const) {
        if (present(key)) throw new GatewayError(code, `config.${key} does not apply to email channels`);
      }
      if (!present('recipientAddresses')) throw new GatewayError(code, 'config.recipientAddresses is required for email channels');
      const split = splitRecipients(config.recipientAddresses!);
      if (split.problem !== undefined) throw new GatewayError(code, `config.${split.problem}`);
      if (present('subject') && config.subject!.length > SUBJECT_MAX_LENGTH) throw new GatewayError(code, `config.subject must be at most ${SUBJECT_MAX_LENGTH} characters`);
      if (present('message') && config.message!.length > MESSAGE_MAX_LENGTH) throw new GatewayError(code, `config.message must be at most ${MESSAGE_MAX_LENGTH} characters`);
      const kept: ChannelConfig = {
        recipientAddresses: config.recipientAddresses,
        ...(present('subject') ? { subject: config.subject } : {}),
        ...(present('message') ? { message: config.message } : {}),
        ...labels,
      };
      return { ...(id ? { id } : {}), name, type, config: kept, recipients: split.recipients };
    }
    for (const key of ['recipientAddresses', 'subject', 'message'] as const) {
      if (present(key)) throw new GatewayError(code, `config.${key} does not apply to ${type} channels`);
    }
    if (!present('webhookUrl')) throw new GatewayError(code, `config.webhookUrl is required for ${type} channels`);
    if (config.webhookUrl!.length > URL_MAX_LENGTH) throw new GatewayError(code, `config.webhookUrl must be at most ${URL_MAX_LENGTH} characters`);
    const refused = notifier.checkWebhookUrl(config.webhookUrl!);
    if (refused) throw new GatewayError(code, `config.webhookUrl ${refused}`);
    if (present('channel')) invalid(code, checkName('config.channel', config.channel!, CHANNEL_NAME_MAX_LENGTH));
    const kept: ChannelConfig = { webhookUrl: config.webhookUrl, ...(present('channel') ? { channel: config.channel } : {}), ...labels };
    return { ...(id ? { id } : {}), name, type, config: kept, recipients: [] };
  }

  function channelSort(key: ChannelOrder, index: number): ChannelSort {
    const code = 'NOTIFICATION_CHANNEL_INVALID_INPUT';
    if (!isChannelOrderField(key.field)) {
      throw new GatewayError(code, `order[${index}]: ${JSON.stringify(key.field.slice(0, 40))} is not a field channels can be ordered by (createdAt, updatedAt, name, status, type)`);
    }
    const direction = key.direction.toLowerCase();
    if (direction !== 'asc' && direction !== 'desc') throw new GatewayError(code, `order[${index}]: ${JSON.stringify(key.direction.slice(0, 40))} is not a direction (ASC or DESC)`);
    return { field: key.field, direction };
  }

  function targetOf(record: ChannelRecord): ChannelTarget {
    const recipients = record.type === 'email' ? splitRecipients(record.config.recipientAddresses ?? '') : { recipients: [] };
    return { id: record.id, name: record.name, type: record.type, config: record.config, recipients: recipients.recipients ?? [] };
  }

  return {
    /** Where a silence stands at `at` (now by default): pending (not started), active, or expired. */
    silenceState(record: SilenceRecord, at = now().getTime()): SilenceState {
      if (at < record.startTime.getTime()) return 'pending';
      return at < record.endTime.getTime() ? 'active' : 'expired';
    },

    getSilence,

    /** The silence of each alert (rule), one statement per request's batch; null for alerts without one. */
    createSilenceLoader(): DataLoader<string, SilenceRecord | null> {
      return new DataLoader(async (alertIds) => {
        const byAlert = new Map((await store.silences.findByAlerts(alertIds.filter(isUuid))).map((record) => [record.alertId, record]));
        return alertIds.map((alertId) => byAlert.get(alertId) ?? null);
      });
    },

    /** Channels by id, one statement per request's batch; undefined for ids that name none. */
    createChannelLoader(): DataLoader<string, ChannelRecord | undefined> {
      return new DataLoader(async (ids) => {
        const byId = new Map((await store.channels.findByIds(ids.filter(isUuid))).map((record) => [record.id, record]));
        return ids.map((id) => byId.get(id));
      });
    },

    /** The silence of each alert (rule) that has one, by alert id: what rule search and the evaluator show and obey. */
    async silencesOf(alertIds: readonly string[]): Promise<Map<string, SilenceRecord>> {
      return new Map((await store.silences.findByAlerts(alertIds)).map((record) => [record.alertId, record]));
    },

    /**
     * Delivers an alert notification to a stored channel through the gateway's notifiers (what the
     * embedded rule evaluator sends); fails with NOTIFICATION_FAILED or NOTIFICATION_CHANNEL_NOT_FOUND.
     */
    async deliver(channelId: string, message: { subject: string; text: string }): Promise<DeliveryReport> {
      const record = await getChannel(channelId);
      return notifier.deliver(targetOf(record), { subject: record.config.subject ? `${record.config.subject}: ${message.subject}` : message.subject, text: message.text });
    },

    /** A metric alias by its name (alert rules may name one instead of writing the PromQL). */
    async findMetricAlias(alias: string): Promise<MetricAliasRecord | undefined> {
      return store.aliases.findByAlias(alias);
    },

    async listSilences(query: ListQuery<SilenceFilter>): Promise<Page<SilenceRecord>> {
      const window = pageWindow(query, options.listMax, 'SILENCE_INVALID_INPUT');
      const filter = { alertId: query.filter?.alertId ?? null, manager: query.filter?.manager ?? null };
      if (filter.alertId && !isUuid(filter.alertId)) throw new GatewayError('SILENCE_INVALID_INPUT', 'the alertId filter must be a UUID');
      if (filter.manager && !isManagerKind(filter.manager)) throw new GatewayError('SILENCE_INVALID_INPUT', `the manager filter must be one of embedded, alertmanager, grafana`);
      const rows = await store.silences.list(filter, { take: window.take, skip: window.offset });
      return pageOf(rows, window, () => store.silences.count(filter));
    },

    /**
     * Silences an alert. An alert has one silence: silencing it again replaces the old one (the
     * original dropped its row but left the old silence running in Grafana).
     */
    async createSilence(input: CreateSilenceInput, actor: Actor): Promise<SilenceRecord> {
      const code = 'SILENCE_INVALID_INPUT';
      if (!isUuid(input.alertId)) throw new GatewayError(code, `alertId must be a UUID (got ${JSON.stringify(input.alertId.slice(0, 60))})`);
      const manager = managerFor(input.manager, 'silence');
      invalid(code, checkSilenceWindow(input.startDate, input.endDate, now()));
      const comment = input.comment ?? `Silence for alert: ${input.alertId}`;
      invalid(code, checkName('comment', comment, COMMENT_MAX_LENGTH));

      const previous = await store.silences.findByAlert(input.alertId);
      const sameManager = previous?.manager === manager.kind;
      // At the same manager one call replaces the silence (updated in place or expired and renewed).
      const managerSilenceId = await manager.upsertSilence({
        alertId: input.alertId,
        startsAt: input.startDate,
        endsAt: input.endDate,
        comment,
        createdBy: actor.id,
        replaces: sameManager ? previous.managerSilenceId : null,
      });
      const undoNew = () =>
        managerSilenceId !== null && managerSilenceId !== previous?.managerSilenceId ? undo(`expire silence ${managerSilenceId}`, () => manager.expireSilence(managerSilenceId)) : Promise.resolve();
      // At another manager the old silence is ended once the new one stands.
      if (previous && !sameManager) {
        const oldManager = managers.get(previous.manager);
        if (oldManager) {
          try {
            await oldManager.expireSilence(previous.managerSilenceId);
          } catch (error) {
            await undoNew();
            throw error;
          }
        } else {
          logger.warn({ silenceId: previous.id, manager: previous.manager }, 'replaced a silence held by a manager that is no longer configured; it was not expired there');
        }
      }
      try {
        return await store.silences.replace(previous?.id, {
          id: randomUUID(),
          alertId: input.alertId,
          manager: manager.kind,
          managerSilenceId,
          startTime: input.startDate,
          endTime: input.endDate,
          comment,
          createdBy: actor.id,
          updatedBy: actor.id,
        });
      } catch (error) {
        await undoNew();
        if (isUniqueViolation(error)) throw new GatewayError('SILENCE_CONFLICT', `another silence of alert ${input.alertId} was created at the same time; retry`);
        throw error;
      }
    },

    /** Moves a silence's start or end (the original's `startTime`/`endTime` update). */
    async updateSilence(id: string, input: UpdateSilenceInput, actor: Actor): Promise<SilenceRecord> {
      const code = 'SILENCE_INVALID_INPUT';
      if (!input.startDate && !input.endDate) throw new GatewayError(code, 'nothing to update: give startDate, endDate or both');
      const existing = await getSilence(id);
      const startTime = input.startDate ?? existing.startTime;
      const endTime = input.endDate ?? existing.endTime;
      invalid(code, checkSilenceWindow(startTime, endTime, now()));
      const manager = holderOf(existing);
      const managerSilenceId = await manager.upsertSilence({
        alertId: existing.alertId,
        startsAt: startTime,
        endsAt: endTime,
        comment: existing.comment,
        createdBy: actor.id,
        replaces: existing.managerSilenceId,
      });
      const updated = await store.silences.update(id, { startTime, endTime, managerSilenceId, updatedBy: actor.id });
      if (!updated) {
        // Deleted while we were at the manager: do not leave the renewed silence behind.
        if (managerSilenceId !== null) await undo(`expire silence ${managerSilenceId}`, () => manager.expireSilence(managerSilenceId));
        throw silenceNotFound(id);
      }
      return updated;
    },

    /** Ends the silence at its manager, then forgets it. */
    async deleteSilence(id: string): Promise<void> {
      const existing = await getSilence(id);
      // An expired silence needs no call: the manager would only confirm it, and may be down.
      if (existing.endTime.getTime() > now().getTime()) await holderOf(existing).expireSilence(existing.managerSilenceId);
      if (!(await store.silences.delete(id))) throw silenceNotFound(id);
    },

    getMetricAlias: getAlias,

    async listMetricAliases(query: ListQuery<MetricAliasFilter>): Promise<Page<MetricAliasRecord>> {
      const window = pageWindow(query, options.listMax, 'METRIC_ALIAS_INVALID_INPUT');
      const filter = { component: query.filter?.component?.toLowerCase() ?? null, subComponent: query.filter?.subComponent ?? null };
      const rows = await store.aliases.list(filter, { take: window.take, skip: window.offset });
      return pageOf(rows, window, () => store.aliases.count(filter));
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
      if (!isUuid(id) || !(await store.aliases.delete(id))) throw aliasNotFound(id);
    },

    getChannel,

    /** Channels matching the filter, in the order asked (newest first by default). */
    async listChannels(query: ChannelListQuery): Promise<Page<ChannelRecord>> {
      const code = 'NOTIFICATION_CHANNEL_INVALID_INPUT';
      const window = pageWindow(query, options.listMax, code);
      const given = query.filter ?? {};
      const filter: ChannelWhere = {};
      if (given.manager) {
        if (!isManagerKind(given.manager)) throw new GatewayError(code, 'the manager filter must be one of embedded, alertmanager, grafana');
        filter.manager = given.manager;
      }
      if (given.type) {
        if (!isChannelType(given.type)) throw new GatewayError(code, 'the type filter must be one of email, slack, teams');
        filter.type = given.type;
      }
      if (given.status !== undefined && given.status !== null) {
        const statuses = typeof given.status === 'string' ? [given.status] : [...given.status];
        const bad = statuses.find((status) => !isChannelStatus(status));
        if (bad !== undefined) throw new GatewayError(code, `the status filter must be draft, live or retired, or a list of them (got ${JSON.stringify(String(bad).slice(0, 40))})`);
        filter.statuses = statuses as ChannelStatus[];
      }
      if (given.name) filter.name = given.name;
      if (given.id) {
        // No channel has an id that is not a UUID; the column could not even hold one.
        if (!isUuid(given.id)) return pageOf([], window, async () => 0);
        filter.id = given.id;
      }
      const sort = (query.orderBy ?? []).map((key, index) => channelSort(key, index));
      const rows = await store.channels.list(filter, sort, { take: window.take, skip: window.offset });
      return pageOf(rows, window, () => store.channels.count(filter));
    },

    /** Stores a new channel as a draft; publishing creates it at its manager (as the original). */
    async createChannel(input: ChannelInput, actor: Actor): Promise<ChannelRecord> {
      const manager = managerFor(input.manager, 'channel');
      const id = randomUUID();
      const target = validChannel(input.name, input.type, input.config, id);
      if (await store.channels.findByName(input.name)) throw channelExists(input.name);
      try {
        return await store.channels.insert({
          id,
          manager: manager.kind,
          name: target.name,
          type: target.type,
          status: 'draft',
          config: target.config,
          createdBy: actor.id,
          updatedBy: actor.id,
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw channelExists(input.name);
        throw error;
      }
    },

    /**
     * Creates a draft channel at its manager (Grafana: a contact point whose uid is the channel's
     * id) and makes it live. A live channel is a conflict; a retired one cannot come back.
     */
    async publishChannel(id: string, actor: Actor): Promise<ChannelRecord> {
      const existing = await getChannel(id);
      if (existing.status === 'live') throw new GatewayError('NOTIFICATION_CHANNEL_CONFLICT', `Notification channel ${id} is already live: change it with an update, or retire it`);
      if (existing.status === 'retired') throw channelRetired(id, 'published');
      const port = channelsOf(existing);
      await port.create(id, targetOf(existing));
      const published = await store.channels.moveStatus(id, 'draft', 'live', actor.id);
      if (published) return published;
      // Someone else published, changed or retired it meanwhile. Published: what the manager holds
      // is theirs as much as ours, so it stays; otherwise ours goes.
      const { error, status } = await raced(id, 'published');
      if (status !== 'live') await undo(`remove channel ${id}`, () => port.remove(id));
      throw error;
    },

    /**
     * Changes a channel. A live one is changed at its manager first and stays live (the original
     * unpublished it on every update, so an edited channel silently stopped notifying until
     * published again); a draft is only our record. A retired channel is not changed.
     */
    async updateChannel(id: string, input: UpdateChannelInput, actor: Actor): Promise<ChannelRecord> {
      if (!input.name && !input.type && !input.config) throw new GatewayError('NOTIFICATION_CHANNEL_INVALID_INPUT', 'nothing to update: give name, type or config');
      // The console sends the manager back with every update; a channel stays with its manager, so
      // a name is only checked to be one this gateway accepts.
      if (input.manager !== undefined && input.manager !== null) names.resolveManager(input.manager, 'channel');
      const existing = await getChannel(id);
      if (existing.status === 'retired') throw channelRetired(id, 'changed');
      const target = validChannel(input.name ?? existing.name, input.type ?? existing.type, input.config ?? existing.config, id);
      if (target.name !== existing.name && (await store.channels.findByName(target.name, id))) throw channelExists(target.name);
      const live = existing.status === 'live';
      const port = live ? channelsOf(existing) : undefined;
      await port?.update(id, target);
      const restore = () => (port ? undo(`restore channel ${id}`, () => port.update(id, targetOf(existing))) : Promise.resolve());
      let updated: ChannelRecord | undefined;
      try {
        updated = await store.channels.update(id, existing.status, { name: target.name, type: target.type, config: target.config, updatedBy: actor.id });
      } catch (error) {
        await restore();
        if (isUniqueViolation(error)) throw channelExists(target.name);
        throw error;
      }
      if (!updated) {
        const { error, status } = await raced(id, 'changed');
        if (status === 'live') await restore();
        throw error;
      }
      return updated;
    },

    /**
     * Retires a channel: removes it from its manager when live, and keeps the record with status
     * retired (as the original). Retiring a retired channel changes nothing and succeeds.
     */
    async retireChannel(id: string, actor: Actor): Promise<ChannelRecord> {
      const existing = await getChannel(id);
      if (existing.status === 'retired') return existing;
      if (existing.status === 'live') await channelsOf(existing).remove(id);
      const retired = await store.channels.moveStatus(id, existing.status, 'retired', actor.id);
      if (retired) return retired;
      const current = await store.channels.findById(id);
      if (current?.status === 'retired') return current;
      throw (await raced(id, 'retired')).error;
    },

    /**
     * Sends a test message to a stored channel or to one described inline, through the manager
     * that delivers the channel's notifications (Grafana tests its own contact point) or, for the
     * embedded manager, the gateway's notifiers. Resolves only once the transport accepted it.
     */
    async testChannel(input: TestChannelInput): Promise<TestChannelResult> {
      const code = 'NOTIFICATION_CHANNEL_INVALID_INPUT';
      const message = input.message ?? DEFAULT_TEST_MESSAGE;
      if (message.trim() === '') throw new GatewayError(code, 'message must not be empty');
      if (message.length > MESSAGE_MAX_LENGTH) throw new GatewayError(code, `message must be at most ${MESSAGE_MAX_LENGTH} characters`);
      if (input.channelId && input.channel) throw new GatewayError(code, 'give either the id of a stored channel or a channel, not both');
      let target: ChannelTarget;
      let manager: AlertManager;
      if (input.channelId) {
        const record = await getChannel(input.channelId);
        target = targetOf(record);
        manager = holderOf(record);
      } else if (input.channel) {
        manager = managerFor(input.channel.manager, 'channel');
        target = validChannel(input.channel.name, input.channel.type, input.channel.config);
      } else {
        throw new GatewayError(code, 'give the id of a stored channel, or the channel to test (manager, name, type, config)');
      }
      const report = manager.channels?.test ? await manager.channels.test(target, message) : await notifier.deliver(target, { subject: target.config.subject ?? DEFAULT_TEST_SUBJECT, text: message });
      return { ...report, channelId: input.channelId ?? null };
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
