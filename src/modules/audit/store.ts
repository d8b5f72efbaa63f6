// Prisma access for the audit trail. Nothing outside the audit module touches audit_records.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { AuditFilter, AuditRecord, AuditTransport, AuditOutcome, NewAuditRecord } from './types.js';

type Row = Prisma.AuditRecordGetPayload<object>;

const toRecord = (row: Row): AuditRecord => ({
  ...row,
  id: row.id.toString(),
  transport: row.transport as AuditTransport,
  outcome: row.outcome as AuditOutcome,
});

function where(filter: AuditFilter, beforeId: bigint | undefined): Prisma.AuditRecordWhereInput {
  return {
    ...(filter.actor ? { actor: filter.actor } : {}),
    ...(filter.operation ? { operation: filter.operation } : {}),
    ...(filter.apiId ? { apiId: filter.apiId } : {}),
    ...(filter.targetId ? { targetId: filter.targetId } : {}),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
    ...(filter.transport ? { transport: filter.transport } : {}),
    ...(filter.since || filter.until ? { at: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } } : {}),
    ...(beforeId !== undefined ? { id: { lt: beforeId } } : {}),
  };
}

export function createAuditStore(prisma: PrismaClient) {
  return {
    async insert(record: NewAuditRecord): Promise<void> {
      await prisma.auditRecord.create({ data: record });
    },

    /** How many records match the filter, over all pages. */
    count(filter: AuditFilter): Promise<number> {
      return prisma.auditRecord.count({ where: where(filter, undefined) });
    },

    /** Newest first, ids below `beforeId` when given (keyset pagination: stable while records are added). */
    async list(filter: AuditFilter, take: number, beforeId?: bigint): Promise<AuditRecord[]> {
      const rows = await prisma.auditRecord.findMany({ where: where(filter, beforeId), orderBy: { id: 'desc' }, take });
      return rows.map(toRecord);
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
