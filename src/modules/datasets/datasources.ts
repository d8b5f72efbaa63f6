// What a Live dataset is queried through: its datasource in the query engine (a Druid datasource,
// or the embedded engine's view), the alias it may also be queried by, and the reset that puts the
// query side back when it went astray (the original's alias, datasources/list and reset).
import { GatewayError } from '../../errors.js';
import type { QueryEngine } from '../../platform/query-engine/query-engine.js';
import { datasetIdLengthProblem } from './definition.js';
import { isUniqueViolation, type DatasetStore } from './store.js';
import type { DatasetRecord, DatasetStatus } from './types.js';

/** The original's rule for alias names. */
import { checkLegacyValues, withLegacyFilter } from '../../platform/lists/legacy-filter.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';
const ALIAS_PATTERN = '^[a-z0-9.-]+$';
const ALIAS = new RegExp(ALIAS_PATTERN);
const ALIAS_MAX_LENGTH = 200;
/** The engines a datasource list may be narrowed to: Druid, the embedded one, and the original's lakehouse (which this gateway has none of). */
const DATASOURCE_TYPES: readonly string[] = ['druid', 'datalake', 'embedded'];

export interface DatasourceEntry {
  /** The name queries may use: the alias when there is one, else the dataset id. */
  datasource: string;
  /** The engine's own name for it (Druid datasource, or PostgreSQL view). */
  datasourceRef: string;
  datasetId: string;
  status: DatasetStatus;
  /** `druid`, or `embedded` for the gateway's own engine. */
  type: QueryEngine['kind'];
  alias: string | null;
  isPrimary: boolean;
}

export type DatasourcePage = ListPage<DatasourceEntry>;

export type ResetCategory = 'processing' | 'query';

export function createDatasourceService(store: DatasetStore, queryEngine: QueryEngine, options: { listMax: number }) {
  const engineType = queryEngine.kind;

  async function liveDataset(datasetId: string, code: 'DATASET_NOT_EXISTS' | 'DATASET_NOT_FOUND'): Promise<DatasetRecord> {
    const live = await store.find(datasetId, 'live');
    if (!live || live.status !== 'Live') throw new GatewayError(code, `Dataset does not exists with id:${datasetId} (no Live version)`);
    return live;
  }

  /** The datasources of some Live datasets, in their order (undefined: not made yet): one engine lookup where the engine can batch (the embedded one), else one per dataset. */
  async function entriesOf(datasets: readonly DatasetRecord[]): Promise<(DatasourceEntry | undefined)[]> {
    const names = queryEngine.datasetsWithDatasource ? await queryEngine.datasetsWithDatasource(datasets.map((dataset) => dataset.datasetId)) : undefined;
    return Promise.all(
      datasets.map(async (dataset): Promise<DatasourceEntry | undefined> => {
        const name = names ? names.get(dataset.datasetId) : (await queryEngine.datasource(dataset.datasetId))?.name;
        if (name === undefined) return undefined;
        return { datasource: dataset.alias ?? dataset.datasetId, datasourceRef: name, datasetId: dataset.datasetId, status: dataset.status, type: engineType, alias: dataset.alias, isPrimary: true };
      }),
    );
  }

  return {
    /**
     * Names a Live dataset's datasource `alias` too. Unlike the original, uniqueness is checked
     * whether or not a table is named, and an alias may not be another dataset's id.
     */
    async setAlias(datasetId: string, alias: string, table?: string | null): Promise<DatasetRecord> {
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw new GatewayError('DATASET_ALIAS_INPUT_INVALID', `dataset_id ${idProblem}`);
      if (alias.length > ALIAS_MAX_LENGTH) throw new GatewayError('ALIAS_NAME_INVALID', `Alias name is ${alias.length} characters long; at most ${ALIAS_MAX_LENGTH} are allowed.`);
      if (!ALIAS.test(alias)) throw new GatewayError('ALIAS_NAME_INVALID', 'Alias name must only contain lowercase letters, numbers, periods, and dashes.');
      const live = await liveDataset(datasetId, 'DATASET_NOT_EXISTS');
      if (table && table !== datasetId) throw new GatewayError('TABLE_NOT_EXISTS', `Dataset ${datasetId} has no table ${table}; its one table is ${datasetId}`);
      const notUnique = () => new GatewayError('ALIAS_NOT_UNIQUE', `Alias name '${alias}' is already used by another dataset`);
      const holder = await store.findByAlias(alias);
      if ((holder && holder.datasetId !== datasetId) || (alias !== datasetId && (await store.findVersions([alias])).length > 0)) throw notUnique();
      try {
        await store.setAlias(datasetId, alias);
      } catch (error) {
        if (isUniqueViolation(error)) throw notUnique();
        throw error;
      }
      return { ...live, alias };
    },

    /** The dataset a name means: a dataset id, or an alias of a Live dataset. */
    async resolve(name: string): Promise<DatasetRecord | undefined> {
      return (await store.find(name, 'live')) ?? (await store.findByAlias(name));
    },

    /** The datasource of one Live dataset; undefined when it has none (not Live, or not made yet). */
    async datasource(datasetId: string): Promise<DatasourceEntry | undefined> {
      const live = await store.find(datasetId, 'live');
      if (!live || live.status !== 'Live') return undefined;
      const source = await queryEngine.datasource(datasetId);
      return source ? { datasource: live.alias ?? datasetId, datasourceRef: source.name, datasetId, status: live.status, type: engineType, alias: live.alias, isPrimary: true } : undefined;
    },

    /**
     * Datasources of Live datasets (drafts and retired datasets have none), newest change first: at
     * most the list maximum. `whole` (the whole-list GraphQL fields and the REST routes on them)
     * refuses, naming the paged form, when there are more, rather than answering part of the list as if it were all.
     */
    async datasources(filter: { statuses?: readonly DatasetStatus[] | null; type?: string | null }, bound: 'cut' | 'whole' = 'cut'): Promise<DatasourceEntry[]> {
      checkLegacyValues('DATASOURCE_LIST_INPUT_INVALID', 'status', filter.statuses);
      if (filter.type !== undefined && filter.type !== null && !DATASOURCE_TYPES.includes(filter.type)) {
        throw new GatewayError('DATASOURCE_LIST_INPUT_INVALID', `the type filter must be one of ${DATASOURCE_TYPES.join(', ')} (got ${JSON.stringify(filter.type.slice(0, 100))})`);
      }
      if (filter.type && filter.type !== engineType) return [];
      if (filter.statuses && filter.statuses.length > 0 && !filter.statuses.includes('Live')) return [];
      const page = await store.page({ where: { status: { eq: 'Live' } }, first: options.listMax }, options.listMax);
      if (bound === 'whole' && page.hasNextPage) {
        throw new GatewayError(
          'DATASOURCE_LIST_INPUT_INVALID',
          `there are more than ${options.listMax} Live datasets (DATASET_LIST_MAX), more than one whole list answers; read them a page at a time with datasourcePage or datasourceSizePage`,
        );
      }
      const entries = await entriesOf(page.items);
      return entries.filter((entry): entry is DatasourceEntry => entry !== undefined);
    },

    /**
     * A page of the datasources of Live datasets, by the dataset list's contract (where, orderBy,
     * cursors). A Live dataset whose datasource is not made yet is left out of its page.
     */
    async datasourcePage(args: ListArguments): Promise<DatasourcePage> {
      const page = await store.page({ ...args, where: withLegacyFilter(args.where, { status: { eq: 'Live' } }) }, options.listMax);
      const entries = await entriesOf(page.items);
      const kept = entries.flatMap((entry, index) => (entry ? [{ entry, cursor: page.cursors[index]! }] : []));
      return { ...page, items: kept.map((item) => item.entry), cursors: kept.map((item) => item.cursor) };
    },

    /**
     * Puts one side of a Live dataset back: `query` remakes its datasource from the Live definition;
     * `processing` has nothing to restart in this gateway (the pipeline runs inside each ingest
     * call), so it only checks the dataset can take events.
     */
    async reset(datasetId: string, category: ResetCategory): Promise<{ status: 'Completed' }> {
      const idProblem = datasetIdLengthProblem(datasetId);
      if (idProblem) throw new GatewayError('DATASET_RESET_INPUT_INVALID', `dataset_id ${idProblem}`);
      const live = await liveDataset(datasetId, 'DATASET_NOT_FOUND');
      if (category === 'query') await queryEngine.ensureQueryable(live);
      return { status: 'Completed' };
    },
  };
}
