// The embedded query engine: each Live dataset gets a view in schema `datasources` over the event
// store, with `__time` and a typed column per data-schema field (nested fields by dotted name).
// Queries run in a read-only transaction with a statement timeout and search_path = datasources, as
// a role that can read those views and nothing else (when the database lets the gateway make one).
import pg from 'pg';
import Cursor from 'pg-cursor';
import { GatewayError } from '../../errors.js';
import { withTransaction } from '../database/transaction.js';
import type { DatasetRecord, JsonObject } from '../dataset.js';
import { pgIdentifierName, quoteIdentifier, quoteLiteral } from './names.js';
import { planNativeQuery } from './native-to-sql.js';
import { boundRows, rowLimitOf, type BoundedRows, type Datasource, type DatasourceSize, type ParameterType, type QueryEngine, type QueryParameter } from './query-engine.js';
import { pathDeeperThan } from '../../validation/json-depth.js';
import { isObject, textOf } from '../../validation/json-object.js';

const SCHEMA = 'datasources';
const MAX_COLUMNS = 1000;
const MAX_DEPTH = 10;

interface Column {
  name: string;
  path: string[];
  dataType: string;
}

/** Leaf fields of a data schema (objects are walked; arrays stay whole as jsonb). */
export function schemaColumns(schema: JsonObject): Column[] {
  const columns: Column[] = [];
  const walk = (properties: unknown, path: string[]) => {
    if (!isObject(properties) || path.length >= MAX_DEPTH) return;
    for (const [key, definition] of Object.entries(properties)) {
      if (!isObject(definition) || columns.length >= MAX_COLUMNS) continue;
      const type = typeof definition.data_type === 'string' ? definition.data_type : textOf(definition.type ?? 'string');
      if (type === 'object' && isObject(definition.properties)) walk(definition.properties, [...path, key]);
      else columns.push({ name: [...path, key].join('.'), path: [...path, key], dataType: type });
    }
  };
  walk(schema.properties, []);
  return columns;
}

/** A typed expression for one field; values of the wrong JSON type read as NULL instead of failing. */
function columnExpression(column: Column): string {
  const value = `payload #> ARRAY[${column.path.map(quoteLiteral).join(', ')}]::text[]`;
  switch (column.dataType) {
    case 'integer':
    case 'long':
    case 'epoch':
      return `CASE WHEN jsonb_typeof(${value}) = 'number' THEN round((${value})::numeric)::bigint END`;
    case 'number':
    case 'double':
    case 'float':
    case 'bigdecimal':
      return `CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value})::double precision END`;
    case 'boolean':
      return `CASE WHEN jsonb_typeof(${value}) = 'boolean' THEN (${value})::boolean END`;
    case 'object':
    case 'array':
      return value;
    default:
      return `${value} #>> '{}'`;
  }
}

// Row values as the API returns them: timestamps as ISO text, 64-bit integers and numerics as numbers.
const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const INT8 = 20;
const NUMERIC = 1700;
const JSON_OID = 114;
const JSONB = 3802;
/** Deepest JSON value a result may hold: a deeper one overflows the stack of JSON.stringify (which
 * recurses) when the answer is written, so it is refused as the template's fault. */
const MAX_RESULT_JSON_DEPTH = 1000;
/** Stands in for such a value (a type parser must not throw: the driver reads rows inside its socket handler). */
const TOO_DEEP = Symbol('json nested too deep');
const parseJson = (value: string): unknown => {
  const parsed = JSON.parse(value) as unknown;
  return pathDeeperThan(parsed, MAX_RESULT_JSON_DEPTH) === undefined ? parsed : TOO_DEEP;
};
const typeParsers = {
  getTypeParser(oid: number): (value: string) => unknown {
    if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return (value) => new Date(oid === TIMESTAMP ? `${value}Z` : value).toISOString();
    if (oid === INT8 || oid === NUMERIC) return (value) => Number(value);
    if (oid === JSON_OID || oid === JSONB) return parseJson;
    // Everything else as node-postgres reads it (booleans, int4, float8, json, ...).
    return pg.types.getTypeParser(oid, 'text') as (value: string) => unknown;
  },
};

export interface EmbeddedQueryEngineOptions {
  statementTimeoutMs: number;
  /** Most rows a native query returns. */
  maxRows: number;
  /**
   * Connections template queries run on: a role that may read the views of schema datasources only
   * (src/platform/database/query-reader.ts). Unset: the pool the views are made with.
   */
  readerPool?: pg.Pool;
}

export class EmbeddedQueryEngine implements QueryEngine {
  readonly kind = 'embedded';
  readonly name = 'embedded (views in PostgreSQL schema "datasources" over the event store)';

  /** Opens a template query's transaction: the same text every time, sent as one round trip. */
  private readonly begin: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: EmbeddedQueryEngineOptions,
  ) {
    this.begin = [
      'BEGIN READ ONLY',
      `SET LOCAL statement_timeout = ${Math.floor(options.statementTimeoutMs)}`,
      `SET LOCAL search_path = ${quoteIdentifier(SCHEMA)}`,
      // Hourly buckets over a month of events sort in memory instead of spilling ~175 MB to disk.
      `SET LOCAL work_mem = '64MB'`,
    ].join('; ');
  }

  async ensureQueryable(dataset: DatasetRecord): Promise<void> {
    const seen = new Set(['__time']);
    const select = ['event_time AS "__time"'];
    for (const column of schemaColumns(dataset.dataSchema)) {
      const name = pgIdentifierName(column.name);
      if (seen.has(name)) continue;
      seen.add(name);
      select.push(`${columnExpression(column)} AS ${quoteIdentifier(name)}`);
    }
    const view = `${quoteIdentifier(SCHEMA)}.${quoteIdentifier(pgIdentifierName(dataset.datasetId))}`;
    // Columns can change between versions, which CREATE OR REPLACE VIEW refuses: drop and create together.
    await withTransaction(this.pool, async (client) => {
      await client.query(`DROP VIEW IF EXISTS ${view}`);
      await client.query(`CREATE VIEW ${view} AS SELECT ${select.join(', ')} FROM public.events WHERE dataset_id = ${quoteLiteral(dataset.datasetId)}`);
      await client.query(`COMMENT ON VIEW ${view} IS ${quoteLiteral(`dataset ${dataset.datasetId} version ${dataset.version}`)}`);
    });
  }

  async dropQueryable(datasetId: string): Promise<void> {
    await this.pool.query(`DROP VIEW IF EXISTS ${quoteIdentifier(SCHEMA)}.${quoteIdentifier(pgIdentifierName(datasetId))}`);
  }

  async datasource(datasetId: string): Promise<Datasource | undefined> {
    const name = pgIdentifierName(datasetId);
    const result = await this.pool.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position', [
      SCHEMA,
      name,
    ]);
    if (result.rowCount === 0) return undefined;
    return { name, columns: new Set(result.rows.map((row) => row.column_name).filter((column) => column !== '__time')) };
  }

  async datasetsWithDatasource(datasetIds: readonly string[]): Promise<Map<string, string>> {
    if (datasetIds.length === 0) return new Map();
    const byName = new Map(datasetIds.map((datasetId) => [pgIdentifierName(datasetId), datasetId]));
    // The catalog itself, not information_schema.tables: that view checks privileges row by row over
    // every relation of the database (a dashboard page's health asks this on every execution).
    // Unnamed: a prepared statement fails through PgBouncer in transaction mode.
    const result = await this.pool.query<{ table_name: string }>({
      text: `SELECT c.relname AS table_name FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'v', 'm', 'p', 'f')`,
      values: [SCHEMA, [...byName.keys()]],
    });
    return new Map(result.rows.map((row) => [byName.get(row.table_name)!, row.table_name]));
  }

  async datasourceSizes(): Promise<Map<string, DatasourceSize>> {
    // One pass over the event store: events and their stored size per dataset.
    const result = await this.pool.query<{ dataset_id: string; rows: number; bytes: number; min_time: Date | null; max_time: Date | null }>(
      `SELECT dataset_id, count(*)::float8 AS rows, coalesce(sum(pg_column_size(e.*)), 0)::float8 AS bytes, min(event_time) AS min_time, max(event_time) AS max_time
         FROM public.events e GROUP BY dataset_id`,
    );
    return new Map(
      result.rows.map((row) => [pgIdentifierName(row.dataset_id), { rows: row.rows, bytes: row.bytes, minTime: row.min_time?.toISOString() ?? null, maxTime: row.max_time?.toISOString() ?? null }]),
    );
  }

  parameterMarker(n: number, type: ParameterType): string {
    return `$${n}::${type === 'timestamp' ? 'timestamptz' : type === 'integer' ? 'bigint' : 'text'}`;
  }

  datasourceReference(datasource: Datasource): string {
    return `${quoteIdentifier(SCHEMA)}.${quoteIdentifier(datasource.name)}`;
  }

  async runSql(sql: string, parameters: QueryParameter[], options: { maxRows: number }): Promise<BoundedRows> {
    // One row more than the bound: whether the query had more is then known, and said (rowLimit).
    const maxRows = Math.floor(options.maxRows);
    const rows = await this.readOnly(
      sql,
      parameters.map((parameter) => parameter.value),
      maxRows + 1,
    );
    return boundRows(rows, maxRows);
  }

  async runNative(datasource: Datasource, query: Record<string, unknown>): Promise<unknown[]> {
    // Planned for one row more than the bound: a series of more buckets than it is cut, and says so.
    const maxRows = Math.floor(this.options.maxRows);
    const plan = planNativeQuery(query, { relation: this.datasourceReference(datasource), columns: datasource.columns, columnTypes: datasource.columnTypes }, maxRows + 1);
    const rows = boundRows(await this.readOnly(plan.sql, plan.params), maxRows);
    const shaped = plan.shape(rows);
    const rowLimit = rowLimitOf(rows);
    return rowLimit === undefined ? shaped : Object.assign(shaped, { rowLimit });
  }

  /**
   * Runs `sql` in a read-only transaction. With `maxRows`, through a portal read once for at most
   * that many rows (pg-cursor: the protocol's Execute with a row limit): a query without a LIMIT over
   * millions of rows never sends more than the bound, nor holds them in this process, and the SQL
   * runs exactly as written (its ORDER BY, and the read-only refusal of a write).
   */
  private async readOnly(sql: string, values: unknown[], maxRows?: number): Promise<Record<string, unknown>[]> {
    const client = await (this.options.readerPool ?? this.pool).connect();
    // A connection whose session state could not be reset is closed instead of pooled.
    let unusable = false;
    try {
      await client.query(this.begin);
      let rows: Record<string, unknown>[];
      if (maxRows === undefined) {
        rows = (await client.query<Record<string, unknown>>({ text: sql, values, types: typeParsers })).rows;
      } else {
        const cursor = client.query(new Cursor<Record<string, unknown>>(sql, values, { types: typeParsers }));
        rows = await cursor.read(Math.floor(maxRows));
        await cursor.close();
      }
      if (rows.some((row) => Object.values(row).includes(TOO_DEEP))) {
        throw new GatewayError('DATA_OUT_INVALID_INPUT', `The query's result holds a JSON value nested deeper than ${MAX_RESULT_JSON_DEPTH} levels, which the API cannot send.`);
      }
      // DISCARD ALL: whatever the template changed in its session (settings, advisory locks, temporary
      // objects) is undone before the connection serves the next template.
      await client.query('COMMIT');
      await client.query('DISCARD ALL'); // a statement of its own: it cannot run in a transaction block
      return rows;
    } catch (error) {
      unusable = await client
        .query('ROLLBACK')
        .then(() => client.query('DISCARD ALL'))
        .then(
          () => false,
          () => true,
        );
      throw queryFailure(error);
    } finally {
      client.release(unusable);
    }
  }
}

/** PostgreSQL's refusal of a query, as the caller should see it. */
function queryFailure(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message;
  if (code === '57014') return new GatewayError('DATA_OUT_QUERY_TIMEOUT', 'The query took longer than the statement timeout (QUERY_TIMEOUT_MS) and was cancelled.');
  // Class 54 (program limit exceeded, e.g. repeat('x', 1e9)): what the template asked for is too big.
  if (typeof code === 'string' && code.startsWith('54')) return new GatewayError('DATA_OUT_INVALID_INPUT', `The query asks for more than the engine allows: ${message}`);
  if (typeof code === 'string' && code.startsWith('25')) return new GatewayError('DATA_OUT_INVALID_INPUT', 'The query tried to change data or the transaction; queries are read-only.');
  // Syntax errors, unknown columns or functions, a statement the protocol refuses (e.g. several
  // commands, or parameters the SQL does not use): the template's SQL does not fit this engine.
  if (typeof code === 'string' && (/^(42|22)/.test(code) || code === '08P01')) return new GatewayError('DATA_OUT_INVALID_INPUT', `The query was refused: ${message}`);
  return error;
}
