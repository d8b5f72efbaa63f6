// Prisma access for query templates. Nothing outside the templates module touches this table.
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
export { isUniqueViolation } from '../../platform/database/errors.js';
import type { QueryType, TemplateRecord, TemplateSort } from './types.js';

type Row = Prisma.QueryTemplateGetPayload<object>;

function toRecord(row: Row): TemplateRecord {
  return { ...row, queryType: row.queryType as QueryType };
}

export function createTemplateStore(prisma: PrismaClient) {
  return {
    async findByIds(ids: readonly string[]): Promise<TemplateRecord[]> {
      const rows = await prisma.queryTemplate.findMany({ where: { templateId: { in: [...ids] } } });
      return rows.map(toRecord);
    },

    async findById(id: string): Promise<TemplateRecord | undefined> {
      const row = await prisma.queryTemplate.findUnique({ where: { templateId: id } });
      return row ? toRecord(row) : undefined;
    },

    /** A template other than `exceptId` whose id or name is taken by the given ones. */
    async findClash(templateId: string, templateName: string, exceptId?: string): Promise<TemplateRecord | undefined> {
      const row = await prisma.queryTemplate.findFirst({
        where: {
          OR: [{ templateId }, { templateName: { equals: templateName, mode: 'insensitive' } }],
          ...(exceptId ? { NOT: { templateId: exceptId } } : {}),
        },
      });
      return row ? toRecord(row) : undefined;
    },

    async list(options: { queryType?: QueryType; sort: readonly TemplateSort[]; take: number; skip: number }): Promise<TemplateRecord[]> {
      const rows = await prisma.queryTemplate.findMany({
        where: options.queryType ? { queryType: options.queryType } : {},
        orderBy: [...options.sort.map((key) => ({ [key.field]: key.order })), { templateId: 'asc' }],
        take: options.take,
        skip: options.skip,
      });
      return rows.map(toRecord);
    },

    count(queryType?: QueryType): Promise<number> {
      return prisma.queryTemplate.count({ where: queryType ? { queryType } : {} });
    },

    async insert(record: Omit<TemplateRecord, 'createdDate' | 'updatedDate'>): Promise<TemplateRecord> {
      return toRecord(await prisma.queryTemplate.create({ data: record }));
    },

    /** Undefined when no such template exists. */
    async update(id: string, changes: Partial<Pick<TemplateRecord, 'templateName' | 'query' | 'queryType' | 'updatedBy'>>) {
      const result = await prisma.queryTemplate.updateManyAndReturn({ where: { templateId: id }, data: changes });
      return result[0] ? toRecord(result[0]) : undefined;
    },

    /** True when a template was deleted. */
    async delete(id: string): Promise<boolean> {
      const result = await prisma.queryTemplate.deleteMany({ where: { templateId: id } });
      return result.count > 0;
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
