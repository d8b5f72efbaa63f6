// Prisma access for datasets. Nothing outside the datasets module touches this table. Reads by id
// outside a transaction go through the published-record cache when one is given (every version of
// an id is cached together); writes drop the ids they touch at once, and again after their
// transaction commits, before the database's own announcement reaches every gateway.
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type pg from 'pg';
import { assignments, type WritableColumns } from '../../platform/database/raw-write.js';
import type { RecordCache } from '../../platform/cache/published-cache.js';
import { sqlStatement } from '../../platform/database/sql-statement.js';
import { sameJson } from '../../platform/json/same-json.js';
export { isUniqueViolation } from '../../platform/database/errors.js';
import type { ListDeclaration } from '../../platform/lists/declaration.js';
import { modelColumnsSql, readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { nestedListReader } from '../../platform/lists/nested-list.js';
import { datasetList, denormSourceLink, namedDatasetLink } from './list.js';
import type { DatasetDraftValues, DatasetRecord, DatasetStatus, DatasetVersionStamp, Stage } from './types.js';

type Row = Prisma.DatasetGetPayload<object>;
type Client = PrismaClient | Prisma.TransactionClient;

/**
 * A row as the dataset's record: the same fields, with the domain's types for its strings and JSON.
 * The row itself, not a copy: each is read fresh, and a copy that spreads it and then sets fields
 * it lacks (a list reads only some columns) cost ~12 µs a row, more than reading it.
 */
function toRecord(row: Row): DatasetRecord {
  return row as RowAsRecord;
}
/** What toRecord claims of a row: each field of the record, typed as Prisma types its column. */
type RowAsRecord = Omit<Row, keyof DatasetTyped> & DatasetTyped;
type DatasetTyped = Pick<
  DatasetRecord,
  | 'stage'
  | 'type'
  | 'status'
  | 'dataSchema'
  | 'extractionConfig'
  | 'validationConfig'
  | 'dedupConfig'
  | 'denormConfig'
  | 'routerConfig'
  | 'datasetConfig'
  | 'transformationsConfig'
  | 'connectorsConfig'
  | 'sampleData'
>;

/** Prisma wants JSON columns as InputJsonValue; null columns as DbNull. */
function toData(given: DatasetDraftValues): Prisma.DatasetUncheckedCreateInput {
  const json = (value: unknown) => (value === null || value === undefined ? ('DbNull' as never) : (value as Prisma.InputJsonValue));
  // A whole record may be handed in (publishing spreads the draft): its alias is never written here.
  const { alias: _alias, ...values } = given as DatasetDraftValues & { alias?: unknown };
  return {
    ...values,
    dataSchema: json(values.dataSchema),
    extractionConfig: json(values.extractionConfig),
    validationConfig: json(values.validationConfig),
    dedupConfig: json(values.dedupConfig),
    denormConfig: json(values.denormConfig),
    routerConfig: json(values.routerConfig),
    datasetConfig: json(values.datasetConfig),
    transformationsConfig: json(values.transformationsConfig),
    connectorsConfig: json(values.connectorsConfig),
    sampleData: json(values.sampleData),
  };
}

/** The columns a draft's update may write (every field of its values but its id, stage and creator). */
type DraftField = Exclude<keyof DatasetDraftValues, 'datasetId' | 'stage' | 'createdBy'>;
const DRAFT_COLUMNS: WritableColumns<DraftField> = {
  name: ['name', 'text'],
  type: ['type', 'text'],
  status: ['status', 'text'],
  tags: ['tags', 'text[]'],
  version: ['version', 'int'],
  versionKey: ['version_key', 'text'],
  apiVersion: ['api_version', 'text'],
  dataSchema: ['data_schema', 'json'],
  extractionConfig: ['extraction_config', 'json'],
  validationConfig: ['validation_config', 'json'],
  dedupConfig: ['dedup_config', 'json'],
  denormConfig: ['denorm_config', 'json'],
  routerConfig: ['router_config', 'json'],
  datasetConfig: ['dataset_config', 'json'],
  transformationsConfig: ['transformations_config', 'json'],
  connectorsConfig: ['connectors_config', 'json'],
  sampleData: ['sample_data', 'json'],
  entryTopic: ['entry_topic', 'text'],
  denormSources: ['denorm_sources', 'text[]'],
  updatedBy: ['updated_by', 'text'],
};

/** Every version of a dataset id (none, Live, Draft, or both), as the cache keeps them. */
export type DatasetVersionList = readonly DatasetRecord[];

/**
 * `list`: the dataset list's declaration with the fields other modules add through links (src/graphql/lists.ts);
 * the module's own when not given.
 */
export function createDatasetStore(prisma: PrismaClient, storePool: pg.Pool, cache?: RecordCache<DatasetVersionList>, list: ListDeclaration = datasetList) {
  // Every version of the given ids as plain SQL: the reads by id (every read on a cache miss, every
  // write's first look). Prisma's query compiler was ~22 % of an uncached read's CPU (bench/gateway.ts).
  const columns = modelColumnsSql(prisma, 'Dataset');
  const versionsOf = sqlStatement<Row>(storePool, `SELECT ${columns} FROM datasets WHERE dataset_id = ANY($1::text[])`);
  const returning = Prisma.raw(columns);
  // `cached`: reads may use the cache (never inside a transaction, which must see its own writes).
  // `touched`: the ids a transaction wrote, dropped again once it has committed.
  const store = (db: Client, cached: boolean, touched?: Set<string>) => {
    const wrote = (datasetId: string) => {
      cache?.changed(datasetId);
      touched?.add(datasetId);
    };
    const readVersions = async (datasetIds: readonly string[]): Promise<DatasetRecord[]> => {
      if (datasetIds.length === 0) return [];
      const rows = db === prisma ? await versionsOf([datasetIds]) : await db.dataset.findMany({ where: { datasetId: { in: [...datasetIds] } } });
      return rows.map(toRecord);
    };
    /** Every version of each id, in one statement at most (for DataLoaders); none for cached ids. */
    const findVersions = async (datasetIds: readonly string[]): Promise<DatasetRecord[]> => {
      if (!cached || !cache) return readVersions(datasetIds);
      const { found, missing, store: keep } = cache.lookup([...new Set(datasetIds)]);
      const read = await readVersions(missing);
      const byId = new Map<string, DatasetRecord[]>(missing.map((id) => [id, []]));
      for (const record of read) byId.get(record.datasetId)?.push(record);
      keep(byId);
      return [...[...found.values()].flat(), ...read];
    };
    return {
      findVersions,

      async find(datasetId: string, stage: Stage): Promise<DatasetRecord | undefined> {
        if (cached && cache) return (await findVersions([datasetId])).find((record) => record.stage === stage);
        const row = await db.dataset.findUnique({ where: { datasetId_stage: { datasetId, stage } } });
        return row ? toRecord(row) : undefined;
      },

      /** A page of the dataset list (the list contract: src/platform/lists); never inside a transaction. `fields`: only these of each record. */
      page(args: ListArguments, listMax: number, fields?: ReadonlySet<string>): Promise<ListPage<DatasetRecord>> {
        return readList({ prisma, storePool }, list, args, listMax, toRecord, fields);
      },

      /** What tells each dataset's versions apart, for every dataset (the live events classify a change by it). */
      async versionStamps(limit: number): Promise<DatasetVersionStamp[]> {
        return db.dataset.findMany({ select: { datasetId: true, stage: true, status: true, version: true, updatedDate: true }, orderBy: { updatedDate: 'desc' }, take: limit }) as Promise<
          DatasetVersionStamp[]
        >;
      },

      /** Live versions of the given ids that are masters with status Live. */
      async liveMasters(datasetIds: readonly string[]): Promise<DatasetRecord[]> {
        const rows = await db.dataset.findMany({ where: { datasetId: { in: [...datasetIds] }, stage: 'live', status: 'Live', type: 'master' } });
        return rows.map(toRecord);
      },

      /** Other datasets (any version) that denormalise from `datasetId`, with the given statuses. */
      async dependents(datasetId: string, statuses: readonly DatasetStatus[]): Promise<DatasetRecord[]> {
        const rows = await db.dataset.findMany({
          where: { denormSources: { has: datasetId }, status: { in: [...statuses] }, NOT: { datasetId } },
          orderBy: { datasetId: 'asc' },
        });
        return rows.map(toRecord);
      },

      async insert(values: DatasetDraftValues, publishedDate?: Date): Promise<DatasetRecord> {
        const record = toRecord(await db.dataset.create({ data: { ...toData(values), publishedDate: publishedDate ?? null } }));
        wrote(values.datasetId);
        return record;
      },

      /** Replaces a version's contents (keeping its creation date); undefined when it does not exist. */
      async replace(values: DatasetDraftValues, publishedDate?: Date | null): Promise<DatasetRecord> {
        const { datasetId, stage } = values;
        const data = toData(values);
        const row = await db.dataset.upsert({
          where: { datasetId_stage: { datasetId, stage } },
          create: { ...data, publishedDate: publishedDate ?? null },
          update: { ...data, ...(publishedDate !== undefined ? { publishedDate } : {}), createdBy: undefined },
        });
        wrote(datasetId);
        return toRecord(row);
      },

      /**
       * Writes a draft only if it still holds `expectedVersionKey` (the optimistic lock of update):
       * undefined when another writer changed it first, so no update is ever lost.
       */
      async replaceDraftIfCurrent(values: DatasetDraftValues, expectedVersionKey: string, current?: DatasetRecord): Promise<DatasetRecord | undefined> {
        const { datasetId, stage: _draft, createdBy: _keep, ...all } = values;
        // Only the columns whose value changed from `current` (the draft the values were made from):
        // an update of the name no longer sends, serialises and rewrites the schema and every config.
        const changed = current ? Object.fromEntries(Object.entries(all).filter(([field]) => !sameJson(all[field as DraftField], current[field as DraftField]))) : all;
        // One raw statement (UPDATE … RETURNING, the version key in its WHERE): no query compiler,
        // and no read after it. updated_date is what Prisma's @updatedAt would set.
        try {
          const [row] = await db.$queryRaw<Row[]>`UPDATE datasets SET ${assignments(DRAFT_COLUMNS, changed)}, updated_date = clock_timestamp()
            WHERE dataset_id = ${datasetId} AND stage = 'draft' AND version_key = ${expectedVersionKey} RETURNING ${returning}`;
          return row ? toRecord(row) : undefined;
        } finally {
          wrote(datasetId);
        }
      },

      /** Sets (or clears) the alias of the Live version; false when there is no live row. */
      async setAlias(datasetId: string, alias: string | null): Promise<boolean> {
        const written = await db.dataset.updateMany({ where: { datasetId, stage: 'live' }, data: { alias } });
        wrote(datasetId);
        return written.count > 0;
      },

      /** The dataset (Live version) an alias names. */
      async findByAlias(alias: string): Promise<DatasetRecord | undefined> {
        const row = await db.dataset.findFirst({ where: { alias, stage: 'live' } });
        return row ? toRecord(row) : undefined;
      },

      /** Undefined when the version does not exist. */
      async setStatus(datasetId: string, stage: Stage, status: DatasetStatus, updatedBy: string): Promise<DatasetRecord | undefined> {
        // A raw statement, as replaceDraftIfCurrent: the status transitions' one write.
        const [row] = await db.$queryRaw<Row[]>`UPDATE datasets SET ${assignments(DRAFT_COLUMNS, { status, updatedBy })}, updated_date = clock_timestamp()
          WHERE dataset_id = ${datasetId} AND stage = ${stage} RETURNING ${returning}`;
        wrote(datasetId);
        return row ? toRecord(row) : undefined;
      },

      async remove(datasetId: string, stage?: Stage): Promise<number> {
        const result = await db.dataset.deleteMany({ where: { datasetId, ...(stage ? { stage } : {}) } });
        wrote(datasetId);
        return result.count;
      },
    };
  };

  return {
    ...store(prisma, true),
    /** A page of the Live versions of the datasets a dataset denormalises from (heldKeys of its denormSources), batched across parents. */
    denormSourcePage: nestedListReader({ prisma, storePool }, list, denormSourceLink, toRecord),
    /** A page of the datasets a template's query names (heldKeys of the names), each its Live version, else its draft; batched across parents. */
    namedDatasetPage: nestedListReader({ prisma, storePool }, list, namedDatasetLink, toRecord),
    /** Runs `work` in one transaction: everything it writes lands, or nothing does. */
    async transaction<T>(work: (tx: ReturnType<typeof store>) => Promise<T>): Promise<T> {
      const touched = new Set<string>();
      try {
        return await prisma.$transaction((tx) => work(store(tx, false, touched)));
      } finally {
        for (const datasetId of touched) cache?.changed(datasetId);
      }
    },
  };
}

export type DatasetStore = ReturnType<typeof createDatasetStore>;
