// GraphQL resolvers for alerting: arguments in, service call, result out.
import { globalId } from '../../graphql/global-id.js';
import { GatewayError } from '../../errors.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import { givenFields } from '../../graphql/inputs.js';
import type { NotificationChannelConfigInput, Resolvers } from '../../generated/graphql.js';
import { contextEntries, splitRecipients } from './rules.js';
import { NOTIFICATION_SENT } from './service.js';
import type { ChannelConfig, ChannelRecord, MetricAliasRecord, SilenceRecord } from './types.js';

/**
 * GraphQL gives absent optional fields as null; the service reads only what was given. Labels come
 * as a list of name/value pairs and are kept as an object (a name given twice is refused).
 */
function config(input: NotificationChannelConfigInput): ChannelConfig {
  const { labels, ...rest } = input;
  const given: ChannelConfig = givenFields(rest);
  if (!labels) return given;
  const names = labels.map((label) => label.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new GatewayError('NOTIFICATION_CHANNEL_INVALID_INPUT', `config.labels: ${JSON.stringify(twice.slice(0, 40))} is given more than once`);
  return { ...given, labels: Object.fromEntries(labels.map((label) => [label.name, label.value])) };
}

export const alertResolvers: Resolvers = {
  Query: {
    silence: (_, { id }, { services }) => services.alerts.getSilence(id),
    silences: (_, { filter, where, orderBy, first, after, last, before }, { services }) => services.alerts.listSilences({ filter, where, orderBy, first, after, last, before }),
    metricAlias: (_, { id }, { services }) => services.alerts.getMetricAlias(id),
    metricAliases: (_, { filter, where, orderBy, first, after, last, before }, { services }) => services.alerts.listMetricAliases({ filter, where, orderBy, first, after, last, before }),
    notificationChannel: (_, { id }, { services }) => services.alerts.getChannel(id),
    notificationChannels: (_, { filter, where, orderBy, first, after, last, before }, { services }) =>
      services.alerts.listChannels({ filter, where, orderBy: orderBy?.map((key) => ({ field: key.field, direction: key.direction ?? key.order ?? 'asc' })), first, after, last, before }),
  },
  Mutation: {
    createSilence: async (_, { input }, { services, actor }) => ({
      silence: await services.alerts.createSilence(input, actor),
      message: `Alert ${input.alertId} is silenced`,
    }),
    updateSilence: async (_, { id, input }, { services, actor }) => ({
      silence: await services.alerts.updateSilence(id, input, actor),
      message: `Silence ${id} updated`,
    }),
    deleteSilence: async (_, { id }, { services }) => {
      await services.alerts.deleteSilence(id);
      return { id, message: `Silence ${id} ended and deleted` };
    },
    createMetricAlias: async (_, { input }, { services, actor }) => ({
      metricAlias: await services.alerts.createMetricAlias(input, actor),
      message: `Metric alias ${input.alias} created`,
    }),
    updateMetricAlias: async (_, { id, input }, { services, actor }) => ({
      metricAlias: await services.alerts.updateMetricAlias(id, input, actor),
      message: `Metric alias ${id} updated`,
    }),
    deleteMetricAlias: async (_, { id }, { services }) => {
      await services.alerts.deleteMetricAlias(id);
      return { id, message: `Metric alias ${id} deleted` };
    },
    createNotificationChannel: async (_, { input }, { services, actor }) => ({
      channel: await services.alerts.createChannel({ ...input, config: config(input.config) }, actor),
      message: `Notification channel ${input.name} created`,
    }),
    publishNotificationChannel: async (_, { id }, { services, actor }) => ({
      channel: await services.alerts.publishChannel(id, actor),
      message: `Notification channel ${id} published`,
    }),
    updateNotificationChannel: async (_, { id, input }, { services, actor }) => ({
      channel: await services.alerts.updateChannel(id, { ...input, config: input.config ? config(input.config) : null }, actor),
      message: `Notification channel ${id} updated`,
    }),
    deleteNotificationChannel: async (_, { id }, { services, actor }) => {
      await services.alerts.retireChannel(id, actor);
      return { id, message: `Notification channel ${id} retired` };
    },
    testNotificationChannel: async (_, { input }, { services }) => {
      const channel = input.channel ? { ...input.channel, config: config(input.channel.config) } : null;
      return { status: NOTIFICATION_SENT, ...(await services.alerts.testChannel({ message: input.message, channelId: input.channelId, channel })) };
    },
  },
  Silence: {
    id: (silence) => globalId('Silence', silence.id),
    silenceId: (silence) => silence.id,
    startDate: (silence) => silence.startTime,
    endDate: (silence) => silence.endTime,
    state: (silence, _, { services }) => services.alerts.silenceState(silence),
    createdAt: (silence) => silence.createdDate,
    updatedAt: (silence) => silence.updatedDate,
  },
  MetricAlias: {
    id: (alias) => globalId('MetricAlias', alias.id),
    metricAliasId: (alias) => alias.id,
    contextEntries: (alias) => contextEntries(alias.context),
    createdAt: (alias) => alias.createdDate,
    updatedAt: (alias) => alias.updatedDate,
  },
  NotificationChannel: {
    id: (channel) => globalId('NotificationChannel', channel.id),
    channelId: (channel) => channel.id,
    createdAt: (channel) => channel.createdDate,
    updatedAt: (channel) => channel.updatedDate,
  },
  NotificationChannelConfig: {
    labels: (channelConfig) => (channelConfig.labels ? Object.entries(channelConfig.labels).map(([name, value]) => ({ name, value })) : null),
    recipients: (channelConfig) => (channelConfig.recipientAddresses === undefined ? null : (splitRecipients(channelConfig.recipientAddresses).recipients ?? [])),
  },
  SilenceConnection: listConnectionResolvers<SilenceRecord>(),
  MetricAliasConnection: listConnectionResolvers<MetricAliasRecord>(),
  NotificationChannelConnection: listConnectionResolvers<ChannelRecord>(),
};
