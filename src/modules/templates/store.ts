// Prisma access for query templates. Nothing outside the templates module touches this table.
// Reads by id go through the published-record cache when one is given (an id without a template
// is cached as `null`); writes drop the id at once, before the database's announcement arrives.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type pg from 'pg';
import type { RecordCache } from '../../platform/cache/published-cache.js';
import { insertion, type WritableColumns } from '../../platform/database/raw-write.js';
import { sqlStatement } from '../../platform/database/sql-statement.js';
export { isUniqueViolation } from '../../platform/database/errors.js';
import { modelColumnsSql, readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { nestedListReader } from '../../platform/lists/nested-list.js';
import { templateDatasetLink, templateList } from './list.js';
import type { QueryType, TemplateRecord } from './types.js';

type Row = Prisma.QueryTemplateGetPayload<object>;

/** A row as the template's record, its query type typed: the row itself, not a copy (datasets/store.ts's toRecord says why). */
function toRecord(row: Row): TemplateRecord {
  return row as Omit<Row, 'queryType'> & { queryType: QueryType };
}

/**
 * A template (other than $3) holding the id $1 or, whatever its case, the name $2: every create's
 * and rename's first look, as plain SQL (Prisma's query compiler was the largest cost of a write).
 * `lower(template_name) =` is answered by its index (query_templates_template_name_lower_idx); the
 * ILIKE it replaces scanned the whole table (5 ms at 6,000 templates, bench/writes.ts).
 */
export const CLASH_SQL = `SELECT template_id AS "templateId", template_name AS "templateName", query, query_type AS "queryType", created_by AS "createdBy",
  updated_by AS "updatedBy", created_date AS "createdDate", updated_date AS "updatedDate"
  FROM query_templates WHERE (template_id = $1 OR lower(template_name) = lower($2)) AND template_id IS DISTINCT FROM $3 LIMIT 1`;

type NewTemplate = Omit<TemplateRecord, 'createdDate' | 'updatedDate'>;

/** The columns a create writes; its dates take their defaults (now). */
const NEW_TEMPLATE_COLUMNS: WritableColumns<keyof NewTemplate> = {
  templateId: ['template_id', 'text'],
  templateName: ['template_name', 'text'],
  query: ['query', 'text'],
  queryType: ['query_type', 'text'],
  createdBy: ['created_by', 'text'],
  updatedBy: ['updated_by', 'text'],
};

export function createTemplateStore(prisma: PrismaClient, storePool: pg.Pool, cache?: RecordCache<TemplateRecord | null>) {
  const clashOf = sqlStatement<Row>(storePool, CLASH_SQL);
  const returning = Prisma.raw(modelColumnsSql(prisma, 'QueryTemplate'));
  const readByIds = async (ids: readonly string[]): Promise<TemplateRecord[]> => {
    if (ids.length === 0) return [];
    const rows = await prisma.queryTemplate.findMany({ where: { templateId: { in: [...ids] } } });
    return rows.map(toRecord);
  };
  const findByIds = async (ids: readonly string[]): Promise<TemplateRecord[]> => {
    if (!cache) return readByIds(ids);
    const { found, missing, store } = cache.lookup([...new Set(ids)]);
    const read = await readByIds(missing);
    const byId = new Map<string, TemplateRecord | null>(missing.map((id) => [id, null]));
    for (const record of read) byId.set(record.templateId, record);
    store(byId);
    return [...[...found.values()].filter((record): record is TemplateRecord => record !== null), ...read];
  };
  const wrote = <T>(id: string, result: T): T => {
    cache?.changed(id);
    return result;
  };
  return {
    findByIds,

    /** Templates whose query holds any of `names` as text (the caller checks it is a whole name), in one statement. */
    async mentioning(names: readonly string[]): Promise<TemplateRecord[]> {
      if (names.length === 0) return [];
      const rows = await prisma.queryTemplate.findMany({ where: { OR: names.map((name) => ({ query: { contains: name } })) }, orderBy: [{ createdDate: 'desc' }, { templateId: 'asc' }] });
      return rows.map(toRecord);
    },

    async findById(id: string): Promise<TemplateRecord | undefined> {
      return (await findByIds([id]))[0];
    },

    /** A template other than `exceptId` whose id or name is taken by the given ones. */
    async findClash(templateId: string, templateName: string, exceptId?: string): Promise<TemplateRecord | undefined> {
      const [row] = await clashOf([templateId, templateName, exceptId ?? null]);
      return row ? toRecord(row) : undefined;
    },

    /** The templates naming each dataset of a request, a page per dataset by the list contract, batched (src/platform/lists/nested-list.ts). */
    datasetPage: nestedListReader({ prisma, storePool }, templateList, templateDatasetLink, toRecord),

    /** A page of the template list (the list contract: src/platform/lists). */
    page(args: ListArguments, listMax: number, fields?: ReadonlySet<string>): Promise<ListPage<TemplateRecord>> {
      return readList({ prisma, storePool }, templateList, args, listMax, toRecord, fields);
    },

    async insert(record: NewTemplate): Promise<TemplateRecord> {
      const [row] = await prisma.$queryRaw<Row[]>`INSERT INTO query_templates ${insertion(NEW_TEMPLATE_COLUMNS, record)} RETURNING ${returning}`;
      return wrote(record.templateId, toRecord(row!));
    },

    /** Undefined when no such template exists. */
    async update(id: string, changes: Partial<Pick<TemplateRecord, 'templateName' | 'query' | 'queryType' | 'updatedBy'>>) {
      const result = await prisma.queryTemplate.updateManyAndReturn({ where: { templateId: id }, data: changes });
      return wrote(id, result[0] ? toRecord(result[0]) : undefined);
    },

    /** True when a template was deleted. */
    async delete(id: string): Promise<boolean> {
      const result = await prisma.queryTemplate.deleteMany({ where: { templateId: id } });
      return wrote(id, result.count > 0);
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
