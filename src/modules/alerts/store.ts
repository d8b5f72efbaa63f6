// Prisma access for alerting: silences, metric aliases and notification channels. Nothing outside
// the alerts module touches these tables.
import type pg from 'pg';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
export { isUniqueViolation } from '../../platform/database/errors.js';
import { PRISMA_RAW_TYPES, runSql } from '../../platform/database/sql-statement.js';
import { modelColumnsSql, readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { nestedListReader } from '../../platform/lists/nested-list.js';
import { channelList, heldChannelLink, metricAliasList, silenceList } from './list.js';
import type { ChannelConfig, ChannelOrderField, ChannelRecord, ChannelStatus, ChannelType, JsonObject, ManagerKind, MetricAliasRecord, SilenceRecord } from './types.js';

type SilenceRow = Prisma.AlertSilenceGetPayload<object>;
type AliasRow = Prisma.MetricAliasGetPayload<object>;
type ChannelRow = Prisma.NotificationChannelGetPayload<object>;

const silence = (row: SilenceRow): SilenceRecord => ({ ...row, manager: row.manager as ManagerKind });
const alias = (row: AliasRow): MetricAliasRecord => ({ ...row, context: row.context as JsonObject | null });
const channel = (row: ChannelRow): ChannelRecord => ({
  ...row,
  manager: row.manager as ManagerKind,
  type: row.type as ChannelType,
  status: row.status as ChannelStatus,
  config: row.config as ChannelConfig,
});

/** A channel list's filter as the service checked it: every value is one the columns can hold. */
export interface ChannelWhere {
  id?: string;
  name?: string;
  manager?: ManagerKind;
  type?: ChannelType;
  statuses?: ChannelStatus[];
}

/** One key of a channel list's order, as the service checked it. */
export interface ChannelSort {
  field: ChannelOrderField;
  direction: 'asc' | 'desc';
}

/**
 * `channelChanged(id)` is told of each notification channel this process wrote, once committed:
 * kept answers made of notification_channels are dropped at once here, before the database's
 * announcement reaches every gateway.
 */
export function createAlertStore(prisma: PrismaClient, storePool: pg.Pool, channelChanged: (id: string) => void = () => undefined) {
  let channelsSql: string | undefined;
  return {
    silences: {
      async findById(id: string): Promise<SilenceRecord | undefined> {
        const row = await prisma.alertSilence.findUnique({ where: { id } });
        return row ? silence(row) : undefined;
      },

      async findByAlert(alertId: string): Promise<SilenceRecord | undefined> {
        const row = await prisma.alertSilence.findUnique({ where: { alertId } });
        return row ? silence(row) : undefined;
      },

      async findByAlerts(alertIds: readonly string[]): Promise<SilenceRecord[]> {
        if (alertIds.length === 0) return [];
        return (await prisma.alertSilence.findMany({ where: { alertId: { in: [...alertIds] } } })).map(silence);
      },

      /** A page of the silence list (the list contract: src/platform/lists). */
      page(args: ListArguments, listMax: number): Promise<ListPage<SilenceRecord>> {
        return readList({ prisma, storePool }, silenceList, args, listMax, silence);
      },

      /** Inserts a silence, removing the one it replaces in the same transaction. */
      async replace(replacedId: string | undefined, record: Omit<SilenceRecord, 'createdDate' | 'updatedDate'>): Promise<SilenceRecord> {
        const [, row] = await prisma.$transaction([prisma.alertSilence.deleteMany({ where: { id: replacedId ?? record.id } }), prisma.alertSilence.create({ data: record })]);
        return silence(row);
      },

      /** Undefined when no such silence exists. */
      async update(id: string, changes: Pick<SilenceRecord, 'startTime' | 'endTime' | 'managerSilenceId' | 'updatedBy'>): Promise<SilenceRecord | undefined> {
        const rows = await prisma.alertSilence.updateManyAndReturn({ where: { id }, data: changes });
        return rows[0] ? silence(rows[0]) : undefined;
      },

      async delete(id: string): Promise<boolean> {
        return (await prisma.alertSilence.deleteMany({ where: { id } })).count > 0;
      },
    },

    aliases: {
      async findById(id: string): Promise<MetricAliasRecord | undefined> {
        const row = await prisma.metricAlias.findUnique({ where: { id } });
        return row ? alias(row) : undefined;
      },

      async findByAlias(name: string, exceptId?: string): Promise<MetricAliasRecord | undefined> {
        const row = await prisma.metricAlias.findFirst({ where: { alias: name, ...(exceptId ? { NOT: { id: exceptId } } : {}) } });
        return row ? alias(row) : undefined;
      },

      /** A page of the metric alias list (the list contract: src/platform/lists). */
      page(args: ListArguments, listMax: number): Promise<ListPage<MetricAliasRecord>> {
        return readList({ prisma, storePool }, metricAliasList, args, listMax, alias);
      },

      async insert(record: Omit<MetricAliasRecord, 'createdDate' | 'updatedDate'>): Promise<MetricAliasRecord> {
        return alias(await prisma.metricAlias.create({ data: { ...record, context: (record.context ?? undefined) as Prisma.InputJsonValue | undefined } }));
      },

      async update(id: string, changes: Partial<Omit<MetricAliasRecord, 'id' | 'createdBy' | 'createdDate' | 'updatedDate'>>): Promise<MetricAliasRecord | undefined> {
        const { context, ...rest } = changes;
        const data = { ...rest, ...(context !== undefined ? { context: (context ?? undefined) as Prisma.InputJsonValue | undefined } : {}) };
        const rows = await prisma.metricAlias.updateManyAndReturn({ where: { id }, data });
        return rows[0] ? alias(rows[0]) : undefined;
      },

      async delete(id: string): Promise<boolean> {
        return (await prisma.metricAlias.deleteMany({ where: { id } })).count > 0;
      },
    },

    channels: {
      async findById(id: string): Promise<ChannelRecord | undefined> {
        const row = await prisma.notificationChannel.findUnique({ where: { id } });
        return row ? channel(row) : undefined;
      },

      async findByIds(ids: readonly string[]): Promise<ChannelRecord[]> {
        if (ids.length === 0) return [];
        // Every rule's channels on a dashboard page at once: plain SQL, no query compiler (bench/dashboard.ts).
        channelsSql ??= `SELECT ${modelColumnsSql(prisma, 'NotificationChannel')} FROM notification_channels WHERE id = ANY($1::uuid[])`;
        return (await runSql<ChannelRow>(storePool, channelsSql, [[...ids]], PRISMA_RAW_TYPES)).map(channel);
      },

      async findByName(name: string, exceptId?: string): Promise<ChannelRecord | undefined> {
        const row = await prisma.notificationChannel.findFirst({ where: { name, ...(exceptId ? { NOT: { id: exceptId } } : {}) } });
        return row ? channel(row) : undefined;
      },

      /** A page of the channel list (the list contract: src/platform/lists). */
      page(args: ListArguments, listMax: number): Promise<ListPage<ChannelRecord>> {
        return readList({ prisma, storePool }, channelList, args, listMax, channel);
      },

      /** A page of the channels a parent holds the ids of (heldKeys), batched across the parents of a request. */
      heldPage: nestedListReader({ prisma, storePool }, channelList, heldChannelLink, channel),

      async insert(record: Omit<ChannelRecord, 'createdDate' | 'updatedDate'>): Promise<ChannelRecord> {
        const created = channel(await prisma.notificationChannel.create({ data: { ...record, config: record.config as Prisma.InputJsonValue } }));
        channelChanged(created.id);
        return created;
      },

      /** Undefined when no such channel has status `status` (it was deleted, or its status changed meanwhile). */
      async update(id: string, status: ChannelStatus, changes: Pick<ChannelRecord, 'name' | 'type' | 'config' | 'updatedBy'>): Promise<ChannelRecord | undefined> {
        const rows = await prisma.notificationChannel.updateManyAndReturn({ where: { id, status }, data: { ...changes, config: changes.config as Prisma.InputJsonValue } });
        channelChanged(id);
        return rows[0] ? channel(rows[0]) : undefined;
      },

      /** Moves a channel from status `from` to `to`; undefined when it is not (or no longer) at `from`. */
      async moveStatus(id: string, from: ChannelStatus, to: ChannelStatus, updatedBy: string): Promise<ChannelRecord | undefined> {
        const rows = await prisma.notificationChannel.updateManyAndReturn({ where: { id, status: from }, data: { status: to, updatedBy } });
        channelChanged(id);
        return rows[0] ? channel(rows[0]) : undefined;
      },
    },
  };
}

export type AlertStore = ReturnType<typeof createAlertStore>;
