// Domain types of alerting (silences, metric aliases, notification channels), shared by the
// service, the store and the GraphQL mappers (the shapes the platform's ports take are theirs).
import type { Actor } from '../../auth/actor.js';
import type { ManagerKind } from '../../platform/alert-manager/alert-manager.js';
import type { ChannelConfig, ChannelType, DeliveryReport } from '../../platform/notifier/channel.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';

export type { Actor };
export { MANAGER_KINDS, type ManagerKind } from '../../platform/alert-manager/alert-manager.js';
export { CHANNEL_TYPES, type ChannelConfig, type ChannelTarget, type ChannelType, type DeliveryReport } from '../../platform/notifier/channel.js';

/**
 * Where a channel stands: a draft is only our record; publishing creates it at its manager (live);
 * retiring removes it there and keeps the record (retired), as the original does.
 */
export const CHANNEL_STATUSES = ['draft', 'live', 'retired'] as const;
export type ChannelStatus = (typeof CHANNEL_STATUSES)[number];

/** Fields a channel list may be ordered by. */
export const CHANNEL_ORDER_FIELDS = ['createdAt', 'updatedAt', 'name', 'status', 'type'] as const;
export type ChannelOrderField = (typeof CHANNEL_ORDER_FIELDS)[number];

/** Where a silence stands at a given instant (computed from its window, never stored). */
export type SilenceState = 'pending' | 'active' | 'expired';

export interface SilenceRecord {
  id: string;
  alertId: string;
  manager: ManagerKind;
  /** The manager's own id for the silence; null for the embedded manager, whose silence is this record. */
  managerSilenceId: string | null;
  startTime: Date;
  endTime: Date;
  comment: string;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
}

export interface CreateSilenceInput {
  alertId: string;
  /** A manager's name or an alias of one; absent: the default manager (manager-names.ts). */
  manager?: string | null;
  startDate: Date;
  endDate: Date;
  comment?: string | null;
}

export interface UpdateSilenceInput {
  startDate?: Date | null;
  endDate?: Date | null;
}

export interface SilenceFilter {
  alertId?: string | null;
  manager?: string | null;
}

export interface MetricAliasRecord {
  id: string;
  alias: string;
  component: string;
  subComponent: string | null;
  /** A PromQL expression. */
  metric: string;
  context: JsonObject | null;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
}

export interface CreateMetricAliasInput {
  alias: string;
  component: string;
  metric: string;
  subComponent?: string | null;
  context?: unknown;
}

export interface UpdateMetricAliasInput {
  alias?: string | null;
  component?: string | null;
  metric?: string | null;
  subComponent?: string | null;
  context?: unknown;
}

export interface MetricAliasFilter {
  component?: string | null;
  subComponent?: string | null;
}

export interface ChannelRecord {
  id: string;
  manager: ManagerKind;
  name: string;
  type: ChannelType;
  status: ChannelStatus;
  config: ChannelConfig;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
}

export interface ChannelInput {
  /** A manager's name or an alias of one; absent: the default manager for channels. */
  manager?: string | null;
  name: string;
  type: string;
  config: ChannelConfig;
}

export interface UpdateChannelInput {
  /** Accepted when it names the channel's own manager (the console sends it back); a channel never moves. */
  manager?: string | null;
  name?: string | null;
  type?: string | null;
  config?: ChannelConfig | null;
}

export interface ChannelFilter {
  id?: string | null;
  name?: string | null;
  manager?: string | null;
  type?: string | null;
  /** One status or any of several. */
  status?: string | readonly string[] | null;
}

export interface ChannelOrder {
  field: string;
  direction: string;
}

export interface ChannelListQuery extends Omit<ListQuery<ChannelFilter>, 'orderBy'> {
  /** Applied in turn; newest first when empty. */
  orderBy?: readonly ChannelOrder[] | null;
}

export interface TestChannelInput {
  message?: string | null;
  /** Test a stored channel... */
  channelId?: string | null;
  /** ...or one described inline (it need not be stored). */
  channel?: ChannelInput | null;
}

export interface TestChannelResult extends DeliveryReport {
  /** The stored channel's id when one was tested. */
  channelId: string | null;
}

export type JsonObject = Record<string, unknown>;

export type Page<T> = ListPage<T>;

/** A list request: the list contract's arguments, and the list's older filter (its fields must all match too). */
export interface ListQuery<F> extends ListArguments {
  filter?: F | null;
}

export type SilencePage = Page<SilenceRecord>;
export type MetricAliasPage = Page<MetricAliasRecord>;
export type ChannelPage = Page<ChannelRecord>;

/** GraphQL's AlertManagerKind values and what this domain calls each (resolvers, codegen and REST all read this). */
export const ALERT_MANAGER_KIND_VALUES = { EMBEDDED: 'embedded', ALERTMANAGER: 'alertmanager', GRAFANA: 'grafana' } as const;

/** GraphQL's SilenceState values and what this domain calls each (resolvers, codegen and REST all read this). */
export const SILENCE_STATE_VALUES = { PENDING: 'pending', ACTIVE: 'active', EXPIRED: 'expired' } as const;

/** GraphQL's NotificationChannelStatus values and what this domain calls each (resolvers, codegen and REST all read this). */
export const NOTIFICATION_CHANNEL_STATUS_VALUES = { DRAFT: 'draft', LIVE: 'live', RETIRED: 'retired' } as const;

/** GraphQL's NotificationChannelOrderField values and what this domain calls each. */
export const NOTIFICATION_CHANNEL_ORDER_FIELD_VALUES = { CREATED_AT: 'createdAt', UPDATED_AT: 'updatedAt', NAME: 'name', STATUS: 'status', TYPE: 'type' } as const;

/** GraphQL's NotificationChannelType values and what this domain calls each (resolvers, codegen and REST all read this). */
export const NOTIFICATION_CHANNEL_TYPE_VALUES = { EMAIL: 'email', SLACK: 'slack', TEAMS: 'teams' } as const;
