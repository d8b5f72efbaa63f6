// Prisma access for the connector registry. Nothing outside the connectors module touches this table.
import type pg from 'pg';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
export { isUniqueViolation } from '../../platform/database/errors.js';
import { PRISMA_RAW_TYPES, runSql } from '../../platform/database/sql-statement.js';
import { modelColumnsSql, readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { connectorList } from './list.js';
import type { ConnectorCategory, ConnectorRecord, ConnectorStatus, ConnectorValues, JsonObject } from './types.js';

type Row = Prisma.ConnectorRegistryGetPayload<object>;

/**
 * A row as the connector's record. Each field set in one literal of a fixed shape: a copy that
 * spreads a row and then sets the fields a column-pruned row lacks costs V8 ~12 µs a row.
 */
function toRecord(row: Row): ConnectorRecord {
  return {
    id: row.id,
    connectorId: row.connectorId,
    name: row.name,
    type: row.type,
    category: row.category as ConnectorCategory,
    version: row.version,
    description: row.description,
    technology: row.technology,
    runtime: row.runtime,
    licence: row.licence,
    owner: row.owner,
    iconUrl: row.iconurl,
    status: row.status as ConnectorStatus,
    uiSpec: row.uiSpec as JsonObject,
    sourceUrl: row.sourceUrl,
    source: row.source as JsonObject | null,
    createdBy: row.createdBy,
    updatedBy: row.updatedBy,
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    liveDate: row.liveDate,
  };
}

function toData(values: ConnectorValues): Omit<Prisma.ConnectorRegistryUncheckedCreateInput, 'createdBy'> {
  const { iconUrl, uiSpec, source, ...rest } = values;
  return { ...rest, iconurl: iconUrl, uiSpec: uiSpec as Prisma.InputJsonValue, source: source === null ? 'DbNull' : (source as Prisma.InputJsonValue) };
}

/**
 * `changed()` is told once this process's write to the registry is committed: kept answers made of
 * connector_registry are dropped at once here, before the database's announcement reaches every gateway.
 */
export function createConnectorStore(prisma: PrismaClient, storePool: pg.Pool, changed: () => void = () => undefined) {
  // A dashboard resolves every dataset's connectors by name at once: plain SQL, no query compiler (bench/dashboard.ts).
  let named: string | undefined;
  const namedSql = () =>
    (named ??= `SELECT ${modelColumnsSql(prisma, 'ConnectorRegistry')} FROM connector_registry WHERE id = ANY($1::text[]) OR (connector_id = ANY($1::text[]) AND status = 'Live')`);
  return {
    async find(id: string, status?: ConnectorStatus): Promise<ConnectorRecord | undefined> {
      const row = await prisma.connectorRegistry.findFirst({ where: { id, ...(status ? { status } : {}) } });
      return row ? toRecord(row) : undefined;
    },

    /** Versions whose id is one of `names`, and the Live versions of connectors whose id is one of them, in one statement. */
    async findNamed(names: readonly string[]): Promise<ConnectorRecord[]> {
      if (names.length === 0) return [];
      const rows = await runSql<Row>(storePool, namedSql(), [[...names]], PRISMA_RAW_TYPES);
      return rows.map(toRecord);
    },

    /** A page of the connector list (the list contract: src/platform/lists); `fields`: only these of each record. */
    page(args: ListArguments, listMax: number, fields?: ReadonlySet<string>): Promise<ListPage<ConnectorRecord>> {
      return readList({ prisma, storePool }, connectorList, args, listMax, toRecord, fields);
    },

    /** Inserts the entries whose id is free; existing ones (however they changed since) stay as they are. */
    async seed(entries: readonly ConnectorValues[], actorId: string): Promise<number> {
      const now = new Date();
      const result = await prisma.connectorRegistry.createMany({
        data: entries.map((entry) => ({ ...toData(entry), createdBy: actorId, liveDate: entry.status === 'Live' ? now : null })),
        skipDuplicates: true,
      });
      if (result.count > 0) changed();
      return result.count;
    },

    /**
     * Makes each entry its connector's Live version in one transaction: the other Live versions of
     * the same connector_id become Retired, and the entry is inserted, or updated when that version
     * was registered before. A lock per connector_id serialises concurrent registrations of one
     * connector, so there is never more than one Live version.
     */
    async makeLive(entries: readonly ConnectorValues[], actorId: string): Promise<ConnectorRecord[]> {
      const live = await prisma.$transaction(async (tx) => {
        for (const connectorId of [...new Set(entries.map((entry) => entry.connectorId))].sort()) {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`connector_registry:${connectorId}`}))`;
        }
        const records: ConnectorRecord[] = [];
        const now = new Date();
        for (const entry of entries) {
          await tx.connectorRegistry.updateMany({
            where: { connectorId: entry.connectorId, status: 'Live', NOT: { version: entry.version } },
            data: { status: 'Retired', updatedBy: actorId },
          });
          const data = { ...toData({ ...entry, status: 'Live' }), liveDate: now };
          const row = await tx.connectorRegistry.upsert({
            where: { connectorId_version: { connectorId: entry.connectorId, version: entry.version } },
            create: { ...data, createdBy: actorId },
            update: data,
          });
          records.push(toRecord(row));
        }
        return records;
      });
      changed();
      return live;
    },
  };
}

export type ConnectorStore = ReturnType<typeof createConnectorStore>;
