// The analytics store Live datasets are queried in: Druid at scale (DRUID_URL), or the embedded
// engine on the gateway's own PostgreSQL. Template values reach it only as typed, bound parameters.
import type { DatasetRecord } from '../dataset.js';

export interface Datasource {
  /** The name the engine knows it by (Druid datasource, or PostgreSQL view). */
  name: string;
  /** Columns users may refer to (dotted names for nested fields); empty when the engine cannot tell. */
  columns: ReadonlySet<string>;
  /** Druid types of the columns, where the engine knows them (native expressions divide LONGs as whole numbers). */
  columnTypes?: ReadonlyMap<string, 'long' | 'double' | 'string'>;
}

export type ParameterType = 'timestamp' | 'integer' | 'varchar';

export interface QueryParameter {
  type: ParameterType;
  value: string | number;
}

/** How much a datasource holds (Druid's coordinator figures; the embedded engine's estimate). */
export interface DatasourceSize {
  rows: number;
  bytes: number;
  minTime: string | null;
  maxTime: string | null;
}

export interface QueryEngine {
  /** A short name for logs. */
  readonly name: string;
  /** Which engine this is, as datasource listings name it. */
  readonly kind: 'druid' | 'embedded';
  /** Makes (or updates) the datasource of a dataset that went Live. */
  ensureQueryable(dataset: DatasetRecord): Promise<void>;
  /** Removes the datasource of a dataset that was retired or deleted. */
  dropQueryable(datasetId: string): Promise<void>;
  /** The datasource of a dataset, or undefined when it cannot be queried. */
  datasource(datasetId: string): Promise<Datasource | undefined>;
  /** Which of these datasets have a datasource, with the engine's name for it, in one call (a list page's health, the datasource list); absent: one `datasource` call each. */
  datasetsWithDatasource?(datasetIds: readonly string[]): Promise<Map<string, string>>;
  /** How the n-th (1-based) bound parameter of a type is written in this engine's SQL. */
  parameterMarker(n: number, type: ParameterType): string;
  /** How a datasource is written in this engine's SQL (quoted). */
  datasourceReference(datasource: Datasource): string;
  /**
   * Runs SQL whose every value is a bound parameter; rows as objects (`__time` as ISO text). At most
   * `maxRows` rows leave the engine, whatever LIMIT the SQL has (or lacks).
   */
  runSql(sql: string, parameters: QueryParameter[], options: { maxRows: number }): Promise<BoundedRows>;
  /** Rejects when the engine does not answer (health checks); absent where the engine is the database. */
  ping?(): Promise<void>;
  /** Sizes of the engine's datasources, by the engine's name for each. */
  datasourceSizes(): Promise<Map<string, DatasourceSize>>;
  /** Runs a Druid native query against a datasource; Druid's result format. */
  runNative(datasource: Datasource, query: Record<string, unknown>): Promise<unknown[]>;
}

/** Rows of a bounded query; `rowLimit` is set when the query had more and they were cut at it, so that no answer is cut silently. */
export type BoundedRows = Record<string, unknown>[] & { rowLimit?: number };

/** `rows`, read with one more than `maxRows` allowed: cut to `maxRows`, and marked when that cut any. */
export function boundRows(rows: Record<string, unknown>[], maxRows: number): BoundedRows {
  if (rows.length <= maxRows) return rows;
  return Object.assign(rows.slice(0, maxRows), { rowLimit: maxRows });
}

/** The bound a query's rows were cut at, or undefined when every row is there. */
export function rowLimitOf(rows: unknown): number | undefined {
  const limit = (rows as { rowLimit?: unknown } | null)?.rowLimit;
  return typeof limit === 'number' ? limit : undefined;
}
