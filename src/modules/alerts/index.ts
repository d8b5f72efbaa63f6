// The alerts module as code outside src/modules/alerts/ sees it: import it from here, never from one of its files.
// Declarations (types, lists, permissions) first: the GraphQL layer's registries read them at load time, possibly
// while another file of this module is still loading (an import cycle through src/graphql).
export {
  ALERT_MANAGER_KIND_VALUES,
  type ChannelConfig,
  type ChannelPage,
  type ChannelRecord,
  type ChannelTarget,
  type ManagerKind,
  type MetricAliasPage,
  type MetricAliasRecord,
  NOTIFICATION_CHANNEL_ORDER_FIELD_VALUES,
  NOTIFICATION_CHANNEL_STATUS_VALUES,
  NOTIFICATION_CHANNEL_TYPE_VALUES,
  SILENCE_STATE_VALUES,
  type SilencePage,
  type SilenceRecord,
  type SilenceState,
} from './types.js';
export { channelList, metricAliasList, silenceList } from './list.js';
export { alertsFieldPermissions } from './permissions.js';
export { createManagerNames, type ManagerNames } from './manager-names.js';
export { checkMetricExpression } from './metric-expression.js';
export { checkIdLength, checkName, isUuid } from './rules.js';
export { createAlertStore } from './store.js';
export { type AlertService, createAlertService } from './service.js';
export { alertResolvers } from './resolvers.js';
