// Prisma access for the audit trail. Nothing outside the audit module touches audit_records.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { auditList } from './list.js';
import type { AuditRecord, AuditTransport, AuditOutcome, NewAuditRecord } from './types.js';

type Row = Prisma.AuditRecordGetPayload<object>;

const toRecord = (row: Row): AuditRecord => ({
  ...row,
  id: row.id.toString(),
  transport: row.transport as AuditTransport,
  outcome: row.outcome as AuditOutcome,
});

export function createAuditStore(prisma: PrismaClient) {
  return {
    async insert(record: NewAuditRecord): Promise<void> {
      await prisma.auditRecord.create({ data: record });
    },

    async findById(id: bigint): Promise<AuditRecord | undefined> {
      const row = await prisma.auditRecord.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    /** A page of the trail (the list contract: src/platform/lists). */
    page(args: ListArguments, listMax: number): Promise<ListPage<AuditRecord>> {
      return readList(prisma, auditList, args, listMax, toRecord);
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
