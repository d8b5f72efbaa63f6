// Ad-hoc reads of a Live dataset's data (the original's POST /v2/data/query/{dataset_id}) and the raw
// SQL endpoint BI tools point at (POST /v2/obsrv/data/sql-query). Both run on the query engine with
// the guarantees template runs have: read-only, the reader role and its statement timeout, the row
// bound enforced inside the engine, and for native queries the 30-day window (dashboards' native
// queries, POST /v2/data/metrics, are held by the engine's bounds alone, as the original's are).
import { GatewayError } from '../../errors.js';
import { queryInterval } from '../../platform/query-engine/native-to-sql.js';
import type { Datasource, QueryEngine } from '../../platform/query-engine/query-engine.js';
import { SYSTEM_EVENTS_DATASOURCE } from '../ingestion/index.js';
import { isObject } from '../../validation/json-object.js';
import type pg from 'pg';
import type { ObjectStore } from '../../platform/object-store/object-store.js';
import { datasetIdLengthProblem } from '../datasets/index.js';
import type { DatasetService } from '../datasets/index.js';
import { createExhaust, type ExhaustRange } from './exhaust.js';
import { MAX_RANGE_DAYS, type AggregationLevel } from '../templates/index.js';

const DAY_MS = 86_400_000;
/** Longest SQL text either endpoint takes. */
export const MAX_SQL_LENGTH = 100_000;

/** What a BI tool asks first, to list tables; answered from our datasources (as the original does). */
const LIST_TABLES = /^\s*SELECT\s+TABLE_NAME\s+FROM\s+INFORMATION_SCHEMA\.TABLES\s+WHERE\s+TABLE_SCHEMA\s*=\s*'DRUID'\s*;?\s*$/i;

function invalid(message: string): GatewayError {
  return new GatewayError('DATA_OUT_INVALID_INPUT', message);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface DataAccessOptions {
  maxRows: number;
  /** The event store and object store exhaust files are written from and to, and their links' lifetime. */
  exhaust: { pool: pg.Pool; objectStore: ObjectStore; expirySeconds: number; now?: () => number };
  /**
   * The platform's system-events datasource, queried by that name when no Live dataset has it: the
   * embedded telemetry (written out first, so this gateway's latest counts are in), or Druid's own.
   */
  systemEvents?: {
    datasource: Datasource;
    flush(): Promise<void>;
    /** Since when rows are kept (the metrics retention), when this gateway deletes older ones; a window starting earlier is read from then. */
    keptSinceMs?(): number;
  };
}

/** How wide a native query's interval may be: the ad-hoc route's 30 days, or only the engine's own bounds. */
interface QueryBounds {
  /** null: no window rule; the statement timeout and the row bound still hold. */
  maxRangeDays: number | null;
}

const AD_HOC_BOUNDS: QueryBounds = { maxRangeDays: MAX_RANGE_DAYS };

export function createDataAccessService(datasets: DatasetService, engine: QueryEngine, options: DataAccessOptions) {
  const exhaust = createExhaust(datasets, options.exhaust.pool, options.exhaust.objectStore, options.exhaust);
  return {
    /** Signed links to a dataset's events, one file per day (GET /v2/data/exhaust). */
    exhaust: (datasetId: string, range: ExhaustRange) => exhaust.files(datasetId, range),

    /**
     * Runs a query against one Live dataset, named by id or alias: SQL text (the dataset written as
     * {{DATASET}}, or by its id or alias after FROM/JOIN) or a Druid native query object.
     */
    async query(name: string, query: unknown, aggregationLevel?: AggregationLevel | null, bounds: QueryBounds = AD_HOC_BOUNDS): Promise<unknown[]> {
      // An alias is held to a dataset id's length too (rest/datasets.ts alias_name).
      const nameProblem = datasetIdLengthProblem(name);
      if (nameProblem) throw invalid(`dataset_id ${nameProblem}`);
      const found = name.includes('\u0000') ? undefined : await datasets.resolve(name);
      const live = found?.status === 'Live' ? found : undefined;
      const systemEvents = !live && name === SYSTEM_EVENTS_DATASOURCE ? options.systemEvents : undefined;
      if (!live && !systemEvents) throw new GatewayError('DATASET_NOT_FOUND', `Dataset with id/alias name '${name.replaceAll('\u0000', '\\u0000')}' not found`);
      await systemEvents?.flush();
      const datasource = live ? await engine.datasource(live.datasetId) : systemEvents!.datasource;
      if (!datasource) throw new GatewayError('DATA_OUT_SOURCE_NOT_FOUND', `Datasource of dataset ${live!.datasetId} is not available for querying`);
      const dataset = live ?? { datasetId: SYSTEM_EVENTS_DATASOURCE, alias: null };

      if (typeof query === 'string') {
        if (query.trim() === '') throw invalid('query is empty');
        if (query.length > MAX_SQL_LENGTH) throw invalid(`query is ${query.length} characters long; at most ${MAX_SQL_LENGTH} are allowed`);
        const reference = engine.datasourceReference(datasource);
        const names = [...new Set([dataset.datasetId, dataset.alias, name].filter((value): value is string => Boolean(value)))].map(escapeRegExp).join('|');
        // The dataset as the caller wrote it (bare, "quoted" or `ticked`) after FROM or JOIN becomes our datasource.
        const sql = query
          .replace(/\{\{\s*DATASET\s*\}\}/gi, reference)
          .replace(new RegExp(`\\b(FROM|JOIN)(\\s+)(?:"(?:${names})"|\`(?:${names})\`|(?:${names})(?![\\w.-]))`, 'gi'), (_match, keyword: string, space: string) => `${keyword}${space}${reference}`);
        return engine.runSql(sql, [], { maxRows: options.maxRows });
      }
      if (!isObject(query)) throw invalid('query must be SQL text or a Druid native query object');
      const native: Record<string, unknown> = { ...query, dataSource: datasource.name };
      // The original's context.aggregationLevel: the bucket when the query names none.
      if (aggregationLevel && native.granularity === undefined) native.granularity = aggregationLevel;
      const interval = queryInterval(native.intervals);
      const end = interval.end;
      let start = interval.start;
      const keptSince = systemEvents?.keptSinceMs?.();
      if (keptSince !== undefined && start < keptSince && end > keptSince) {
        // Nothing older is kept: "since 2000" (the console's dataset list asks so) is the retention window, exactly.
        start = keptSince;
        native.intervals = [`${new Date(start).toISOString()}/${new Date(end).toISOString()}`];
      }
      const maxDays = bounds.maxRangeDays;
      if (maxDays !== null && end - start > maxDays * DAY_MS) throw new GatewayError('DATA_OUT_INVALID_DATE_RANGE', `Invalid date range! make sure your range cannot be more than ${maxDays} days`);
      return engine.runNative(datasource, native);
    },

    /** Raw SQL over every datasource (BI tools); the table listing is answered from our datasources. */
    async sql(query: unknown): Promise<unknown[]> {
      if (typeof query !== 'string' || query.trim() === '') throw new GatewayError('SQL_QUERY_EMPTY_REQUEST', 'Failed to query. Invalid request');
      if (query.length > MAX_SQL_LENGTH) throw new GatewayError('SQL_QUERY_EMPTY_REQUEST', `query is ${query.length} characters long; at most ${MAX_SQL_LENGTH} are allowed`);
      if (LIST_TABLES.test(query)) {
        return (await datasets.datasources({ statuses: ['Live'] })).map((entry) => ({ TABLE_NAME: entry.datasourceRef }));
      }
      try {
        return await engine.runSql(query, [], { maxRows: options.maxRows });
      } catch (error) {
        // The SQL endpoint's own code for a query the engine refused (a timeout stays what it is).
        if (error instanceof GatewayError && (error.code === 'DATA_OUT_INVALID_INPUT' || error.code === 'DATA_OUT_QUERY_FAILED')) throw new GatewayError('SQL_QUERY_FAILURE', error.message);
        throw error;
      }
    },
  };
}

export type DataAccessService = ReturnType<typeof createDataAccessService>;
