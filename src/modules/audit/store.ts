// Prisma access for the audit trail. Nothing outside the audit module touches audit_records.
import type pg from 'pg';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import type { LastStatement } from '../../platform/database/operation-transaction.js';
import { auditList } from './list.js';
import type { AuditRecord, AuditTransport, AuditOutcome, NewAuditRecord } from './types.js';

type Row = Prisma.AuditRecordGetPayload<object>;

const toRecord = (row: Row): AuditRecord => ({
  ...row,
  id: row.id.toString(),
  transport: row.transport as AuditTransport,
  outcome: row.outcome as AuditOutcome,
});

/** The columns a new record fills, in the order `insertStatement` writes them. */
const COLUMNS: readonly (readonly [keyof NewAuditRecord, string])[] = [
  ['requestId', 'request_id'],
  ['actor', 'actor'],
  ['transport', 'transport'],
  ['apiId', 'api_id'],
  ['operation', 'operation'],
  ['targetId', 'target_id'],
  ['outcome', 'outcome'],
  ['errorCode', 'error_code'],
];

export function createAuditStore(prisma: PrismaClient, storePool: pg.Pool) {
  return {
    /**
     * The INSERT of `record` as one statement of literals: it travels in the same message as the
     * COMMIT of the change it records (or after its ROLLBACK), which takes no parameters.
     */
    insertStatement(record: NewAuditRecord): LastStatement {
      return (literal) => `INSERT INTO audit_records (${COLUMNS.map(([, column]) => column).join(', ')}) VALUES (${COLUMNS.map(([key]) => literal(record[key])).join(', ')})`;
    },

    async findById(id: bigint): Promise<AuditRecord | undefined> {
      const row = await prisma.auditRecord.findUnique({ where: { id } });
      return row ? toRecord(row) : undefined;
    },

    /** A page of the trail (the list contract: src/platform/lists). */
    page(args: ListArguments, listMax: number): Promise<ListPage<AuditRecord>> {
      return readList({ prisma, storePool }, auditList, args, listMax, toRecord);
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
