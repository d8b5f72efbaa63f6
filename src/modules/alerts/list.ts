// The alerting lists' contracts (silences, metric aliases, notification channels): what a `where`,
// `orderBy` and `groupBy` may name, and the indexed column each reads (migration
// 20261202000000_list_indexes). NotificationChannelOrder is older than the contract and written in
// graphql/alerts.graphql.
import { changeTimeFields, createdAtField, defineList, uuidIdField } from '../../platform/lists/declaration.js';
import type { ListLink } from '../../platform/lists/nested-list.js';
import { ALERT_MANAGER_KIND_VALUES, NOTIFICATION_CHANNEL_STATUS_VALUES, NOTIFICATION_CHANNEL_TYPE_VALUES } from './types.js';

const manager = { column: 'manager', kind: 'enum', enumType: 'AlertManagerKind', enumValues: ALERT_MANAGER_KIND_VALUES, description: 'The alert manager that holds it.', groupable: true } as const;

export const silenceList = defineList(
  { type: 'Silence', plural: 'silences', table: 'alert_silences', invalidInputCode: 'SILENCE_INVALID_INPUT' },
  {
    silenceId: uuidIdField('silence'),
    alertId: { column: 'alert_id', kind: 'key', uuid: true, description: 'The alert rule it silences (a UUID).' },
    manager,
    startDate: { column: 'start_time', kind: 'time', description: 'When the silence starts.', orderable: true },
    endDate: { column: 'end_time', kind: 'time', description: 'When the silence ends.', orderable: true },
    createdAt: createdAtField('silence'),
  },
);

export const metricAliasList = defineList(
  { type: 'MetricAlias', plural: 'metric aliases', table: 'metric_aliases', invalidInputCode: 'METRIC_ALIAS_INVALID_INPUT' },
  {
    metricAliasId: uuidIdField('alias'),
    alias: { column: 'alias', kind: 'text', description: 'The alias name.', orderable: true },
    component: { column: 'component', kind: 'key', description: 'The component it measures.', orderable: true, groupable: true },
    subComponent: { column: 'sub_component', kind: 'key', nullable: true, description: 'The part of the component it measures.', groupable: true },
    ...changeTimeFields('alias'),
  },
);

// The keys asked for, then newest first, as the list always ordered.
export const channelList = defineList(
  {
    type: 'NotificationChannel',
    plural: 'notification channels',
    table: 'notification_channels',
    defaultOrder: [],
    thenBy: [{ field: 'createdAt', direction: 'desc' }],
    invalidInputCode: 'NOTIFICATION_CHANNEL_INVALID_INPUT',
  },
  {
    channelId: uuidIdField('channel'),
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
    ...changeTimeFields('channel'),
  },
);

/** The channels a parent names by id (`AlertRule.channelPage`: a rule's channelIds that still exist). */
export const heldChannelLink: ListLink = { parentKey: 'id', keyType: 'uuid', held: true };
