// GraphQL resolvers for alert rules: arguments in, service call, result out.
import { globalId } from '../../graphql/global-id.js';
import { listConnectionResolvers } from '../../graphql/list-connection.js';
import { givenFields } from '../../graphql/inputs.js';
import type { Resolvers } from '../../generated/graphql.js';
import { formatDuration } from '../../platform/promql/parser.js';
import type { ChannelRecord } from '../alerts/index.js';
import { activeAlerts } from './active-alerts.js';
import { clientContextOf, queryBuilderOf } from './client-data.js';
import { datasetOfRule } from './service.js';
import { itemFieldReads, nodeFieldReads } from '../../graphql/field-reads.js';
import type { AlertNotificationRecord, AlertRuleView, StringMap } from './types.js';

const NOTIFICATIONS_MAX = 200;

/** A name-to-text map as name/value pairs, in its own order (the REST layer turns them back into the same object). */
const namedValues = (map: StringMap) => Object.entries(map).map(([name, value]) => ({ name, value }));

export const alertRuleResolvers: Resolvers = {
  Query: {
    alertRule: (_, { id }, { services }) => services.alertRules.getRule(id),
    alertRules: (_, { filter, where, orderBy, first, after, last, before }, { services }, info) =>
      services.alertRules.searchRules({ filter: filter ? givenFields(filter) : null, where, orderBy, first, after, last, before }, nodeFieldReads(info)),
    prometheusRules: (_, { manager }, { services }) => services.alertRules.prometheusRules(manager),
  },
  Mutation: {
    createAlertRule: async (_, { input }, { services, actor }) => {
      const rule = await services.alertRules.createRule(input, actor);
      // The rule as written: its evaluation and silence load only when asked (AlertRule.evaluation).
      return { alertRule: rule, message: `Alert rule ${rule.name} created as a draft` };
    },
    updateAlertRule: async (_, { id, input }, { services, actor }) => {
      const rule = await services.alertRules.updateRule(id, givenFields(input), actor);
      return { alertRule: rule, message: `Alert rule ${rule.name} updated; it is a draft until published` };
    },
    publishAlertRule: async (_, { id }, { services, actor }) => {
      const rule = await services.alertRules.publishRule(id, actor);
      return { alertRule: rule, message: `Alert rule ${rule.name} is live` };
    },
    deleteAlertRule: async (_, { id, hardDelete }, { services, actor }) => {
      await services.alertRules.deleteRule(id, hardDelete ?? false, actor);
      return { id, message: hardDelete ? `Alert rule ${id} deleted` : `Alert rule ${id} retired` };
    },
    deleteAlertRules: async (_, { filter }, { services }) => {
      const deleted = await services.alertRules.deleteRules(givenFields(filter));
      return { ids: deleted.map((rule) => rule.id), count: deleted.length, message: `${deleted.length} alert rule${deleted.length === 1 ? '' : 's'} deleted` };
    },
  },
  AlertRule: {
    id: (rule: AlertRuleView) => globalId('AlertRule', rule.id),
    alertRuleId: (rule: AlertRuleView) => rule.id,
    evaluationInterval: (rule: AlertRuleView) => formatDuration(rule.evaluationIntervalMs),
    pendingPeriod: (rule: AlertRuleView) => formatDuration(rule.pendingForMs),
    notifications: (rule: AlertRuleView, { last }, { loaders }) => loaders.ruleNotifications.load({ ruleId: rule.id, take: Math.min(Math.max(last ?? 20, 0), NOTIFICATIONS_MAX) }),
    notificationPage: (rule: AlertRuleView, { where, orderBy, first, after, last, before }, { loaders, services }) =>
      services.alertRules.ruleNotificationPage(loaders, rule.id, { where, orderBy, first, after, last, before }),
    channels: async (rule: AlertRuleView, _, context) => {
      const channels = await context.loaders.channelById.loadMany(rule.channelIds);
      return channels.filter((channel): channel is ChannelRecord => channel !== undefined && !(channel instanceof Error));
    },
    channelPage: (rule: AlertRuleView, { where, orderBy, first, after, last, before }, { loaders, services }) =>
      services.alerts.heldChannelPage(loaders, rule.channelIds, {
        where,
        orderBy: orderBy?.map((key) => ({ field: key.field, direction: key.direction ?? key.order ?? 'asc' })),
        first,
        after,
        last,
        before,
      }),
    dataset: async (rule: AlertRuleView, _, context) => {
      const datasetId = datasetOfRule(rule);
      if (datasetId === undefined) return null;
      const versions = await context.loaders.datasetVersions.load(datasetId);
      return versions.live ?? versions.draft ?? null;
    },
    evaluation: (rule: AlertRuleView, _, { loaders }) => (rule.evaluation !== undefined ? rule.evaluation : loaders.ruleEvaluation.load(rule.id)),
    silence: (rule: AlertRuleView, _, { loaders }) => (rule.silence !== undefined ? rule.silence : loaders.silenceOfAlert.load(rule.id)),
    muted: async (rule: AlertRuleView, _, { loaders, services }) => services.alerts.mutes(rule.silence !== undefined ? rule.silence : await loaders.silenceOfAlert.load(rule.id)),
    labels: (rule: AlertRuleView) => namedValues(rule.labels),
    annotations: (rule: AlertRuleView) => namedValues(rule.annotations),
    alertType: (rule: AlertRuleView) => clientContextOf(rule).alertType,
    queryBuilder: (rule: AlertRuleView) => queryBuilderOf(rule),
    clientContext: (rule: AlertRuleView) => clientContextOf(rule),
    createdAt: (rule: AlertRuleView) => rule.createdDate,
    updatedAt: (rule: AlertRuleView) => rule.updatedDate,
  },
  AlertRuleEvaluation: {
    alerts: (evaluation) => activeAlerts(evaluation),
  },
  ActiveAlert: {
    labels: (alert) => namedValues(alert.labels),
  },
  AlertNotification: {
    channel: async (notification, _, context) => {
      return (await context.loaders.channelById.load(notification.channelId)) ?? null;
    },
    id: (notification) => globalId('AlertNotification', notification.id),
    notificationId: (notification) => notification.id,
    deliveredAt: (notification) => notification.deliveredDate,
  },
  AlertRuleConnection: listConnectionResolvers<AlertRuleView>(),
  AlertNotificationConnection: listConnectionResolvers<AlertNotificationRecord>(),
  Silence: {
    alertRule: async (silence, _, context) => {
      return (await context.loaders.alertRuleById.load(silence.alertId)) ?? null;
    },
  },
  Dataset: {
    alertRules: (dataset, _, context, info) => {
      return context.loaders.alertRulesByDataset.load({ datasetId: dataset.datasetId, fields: itemFieldReads(info) });
    },
    alertRulePage: (dataset, { where, orderBy, first, after, last, before }, context) => {
      return context.services.alertRules.datasetRulePage(context.loaders, dataset.datasetId, { where, orderBy, first, after, last, before });
    },
  },
};
