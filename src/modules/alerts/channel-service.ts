// Notification channels: drafts, published to their manager, changed and retired; test messages,
// and delivering the embedded rule evaluator's notifications.
import DataLoader from 'dataloader';
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { AlertManager } from '../../platform/alert-manager/alert-manager.js';
import type { Notifier } from '../../platform/notifier/notifier.js';
import { checkLegacyValues, legacyEq, legacyIn, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import { heldKeys } from '../../platform/lists/nested-list.js';
import { heldChannelLink } from './list.js';
import {
  CHANNEL_NAME_MAX_LENGTH,
  checkIdLength,
  checkLabels,
  checkName,
  isChannelOrderField,
  isChannelStatus,
  isChannelType,
  isManagerKind,
  isUuid,
  MESSAGE_MAX_LENGTH,
  splitRecipients,
  SUBJECT_MAX_LENGTH,
  URL_MAX_LENGTH,
} from './rules.js';
import { invalid, type AlertServiceOptions, type ManagerAccess } from './service-support.js';
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
  DeliveryReport,
  Page,
  TestChannelInput,
  TestChannelResult,
  UpdateChannelInput,
} from './types.js';

export const NOTIFICATION_SENT = 'Notification Sent';
const DEFAULT_TEST_MESSAGE = 'Test notification from the data platform gateway';
const DEFAULT_TEST_SUBJECT = 'Test notification';

export function createChannelService(store: Pick<AlertStore, 'channels'>, { names, managerFor, holderOf, undo }: ManagerAccess, notifier: Notifier, options: AlertServiceOptions) {
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
    invalid('NOTIFICATION_CHANNEL_INVALID_INPUT', checkIdLength('the channel id', id));
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
    /** Channels by id, one statement per request's batch; undefined for ids that name none. */
    createChannelLoader(): DataLoader<string, ChannelRecord | undefined> {
      return new DataLoader(async (ids) => {
        const byId = new Map((await store.channels.findByIds(ids.filter(isUuid))).map((record) => [record.id, record]));
        return ids.map((id) => byId.get(id));
      });
    },

    /**
     * Delivers an alert notification to a stored channel through the gateway's notifiers (what the
     * embedded rule evaluator sends); fails with NOTIFICATION_FAILED or NOTIFICATION_CHANNEL_NOT_FOUND.
     */
    async deliver(channelId: string, message: { subject: string; text: string }): Promise<DeliveryReport> {
      const record = await getChannel(channelId);
      return notifier.deliver(targetOf(record), { subject: record.config.subject ? `${record.config.subject}: ${message.subject}` : message.subject, text: message.text });
    },

    getChannel,

    /**
     * A page of the channels named by `channelIds` that exist (`AlertRule.channelPage`), by the channel
     * list's contract; the rules of one request (`request`) that ask alike share one statement.
     */
    heldChannelPage(request: object, channelIds: readonly string[], query: Omit<ChannelListQuery, 'filter'>): Promise<Page<ChannelRecord>> {
      const { orderBy, ...args } = query;
      const sort = (orderBy ?? []).map((key, index) => channelSort(key, index));
      return store.channels.heldPage(request, heldKeys(heldChannelLink, channelIds), { ...args, orderBy: sort }, options.listMax);
    },

    /** Channels matching the filter, in the order asked (newest first by default). */
    async listChannels(query: ChannelListQuery): Promise<Page<ChannelRecord>> {
      const code = 'NOTIFICATION_CHANNEL_INVALID_INPUT';
      const { filter: legacyFilter, orderBy, ...args } = query;
      const given = legacyFilter ?? {};
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
        if (statuses.length === 0) throw new GatewayError(code, 'filters.status must have at least one item');
        checkLegacyValues(code, 'status', statuses);
        const bad = statuses.find((status) => !isChannelStatus(status));
        if (bad !== undefined) throw new GatewayError(code, `the status filter must be draft, live or retired, or a list of them (got ${JSON.stringify(String(bad).slice(0, 40))})`);
        filter.statuses = statuses as ChannelStatus[];
      }
      if (given.name) filter.name = given.name;
      if (given.id) {
        // No channel has an id that is not a UUID; the column could not even hold one.
        filter.id = given.id;
      }
      const sort = (orderBy ?? []).map((key, index) => channelSort(key, index));
      const legacy = {
        ...legacyEq('channelId', filter.id),
        ...legacyEq('name', filter.name),
        ...legacyEq('manager', filter.manager),
        ...legacyEq('type', filter.type),
        ...legacyIn('status', filter.statuses),
      };
      return store.channels.page({ ...args, orderBy: sort, where: withLegacyFilter(args.where, legacy) }, options.listMax);
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
