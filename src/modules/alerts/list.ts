// The alerting lists' contracts (silences, metric aliases, notification channels): what a `where`,
// `orderBy` and `groupBy` may name, and the indexed column each reads (migration
// 20261202000000_list_indexes). NotificationChannelOrder is older than the contract and written in
// graphql/alerts.graphql.
import type { ListDeclaration } from '../../platform/lists/declaration.js';
import { ALERT_MANAGER_KIND_VALUES, NOTIFICATION_CHANNEL_STATUS_VALUES, NOTIFICATION_CHANNEL_TYPE_VALUES } from './types.js';

const manager = { column: 'manager', kind: 'enum', enumType: 'AlertManagerKind', enumValues: ALERT_MANAGER_KIND_VALUES, description: 'The alert manager that holds it.', groupable: true } as const;

export const silenceList: ListDeclaration = {
  type: 'Silence',
  plural: 'silences',
  table: 'alert_silences',
  model: 'AlertSilence',
  key: ['id'],
  fields: {
    silenceId: { column: 'id', kind: 'key', uuid: true, description: 'The silence id (a UUID).' },
    alertId: { column: 'alert_id', kind: 'key', uuid: true, description: 'The alert rule it silences (a UUID).' },
    manager,
    startDate: { column: 'start_time', kind: 'time', description: 'When the silence starts.', orderable: true },
    endDate: { column: 'end_time', kind: 'time', description: 'When the silence ends.', orderable: true },
    createdAt: { column: 'created_date', kind: 'time', description: 'When the silence was created.', orderable: true },
  },
  defaultOrder: [{ field: 'createdAt', direction: 'desc' }],
  invalidInputCode: 'SILENCE_INVALID_INPUT',
};

export const metricAliasList: ListDeclaration = {
  type: 'MetricAlias',
  plural: 'metric aliases',
  table: 'metric_aliases',
  model: 'MetricAlias',
  key: ['id'],
  fields: {
    metricAliasId: { column: 'id', kind: 'key', uuid: true, description: 'The alias id (a UUID).' },
    alias: { column: 'alias', kind: 'text', description: 'The alias name.', orderable: true },
    component: { column: 'component', kind: 'key', description: 'The component it measures.', orderable: true, groupable: true },
    subComponent: { column: 'sub_component', kind: 'key', description: 'The part of the component it measures.', groupable: true },
    createdAt: { column: 'created_date', kind: 'time', description: 'When the alias was created.', orderable: true },
    updatedAt: { column: 'updated_date', kind: 'time', description: 'When the alias was last changed.', orderable: true },
  },
  defaultOrder: [{ field: 'createdAt', direction: 'desc' }],
  invalidInputCode: 'METRIC_ALIAS_INVALID_INPUT',
};

export const channelList: ListDeclaration = {
  type: 'NotificationChannel',
  plural: 'notification channels',
  table: 'notification_channels',
  model: 'NotificationChannel',
  key: ['id'],
  fields: {
    channelId: { column: 'id', kind: 'key', uuid: true, description: 'The channel id (a UUID).' },
    name: { column: 'name', kind: 'text', description: 'The channel name.', orderable: true },
    type: { column: 'type', kind: 'enum', enumType: 'NotificationChannelType', enumValues: NOTIFICATION_CHANNEL_TYPE_VALUES, description: 'How it delivers.', orderable: true, groupable: true },
    status: {
      column: 'status',
      kind: 'enum',
      enumType: 'NotificationChannelStatus',
      enumValues: NOTIFICATION_CHANNEL_STATUS_VALUES,
      description: 'Draft, Live or retired.',
      orderable: true,
      groupable: true,
    },
    manager,
    createdAt: { column: 'created_date', kind: 'time', description: 'When the channel was created.', orderable: true },
    updatedAt: { column: 'updated_date', kind: 'time', description: 'When the channel was last changed.', orderable: true },
  },
  // The keys asked for, then newest first, as the list always ordered.
  defaultOrder: [],
  thenBy: [{ field: 'createdAt', direction: 'desc' }],
  invalidInputCode: 'NOTIFICATION_CHANNEL_INVALID_INPUT',
};
