// Druid over HTTP: native queries to /druid/v2, SQL to /druid/v2/sql with typed parameters, every
// query with an id so a timeout can cancel it; a dataset that goes Live gets a Kafka supervisor
// built from its config. Druid's documented error bodies become clear failure envelopes.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../errors.js';
import type { DatasetRecord, JsonObject } from '../dataset.js';
import { describeFetchError } from '../alert-manager/http.js';
import { schemaColumns } from './embedded.js';
import { boundRows, type BoundedRows, type Datasource, type DatasourceSize, type QueryEngine, type QueryParameter } from './query-engine.js';
import { textOf } from '../../validation/json-object.js';

export interface DruidSettings {
  url: string;
  timeoutMs: number;
  /** Brokers the supervisor reads the entry topic from. */
  kafkaBrokers?: string[];
}

type Fetch = typeof globalThis.fetch;

/** Druid's datasource for a dataset, as the original names it. */
export function druidDatasourceName(datasetId: string): string {
  return `${datasetId}_events`;
}

const DIMENSION_TYPES: Record<string, string> = { number: 'double', double: 'double', integer: 'long', long: 'long', string: 'string', boolean: 'string', object: 'json', array: 'json' };

/** The Kafka supervisor spec of a Live dataset (reference §1.6 "Druid ingestion spec"). */
export function supervisorSpec(dataset: DatasetRecord, brokers: string[]): JsonObject {
  const keys = (dataset.datasetConfig.keys_config ?? {}) as JsonObject;
  const timestampKey = typeof keys.timestamp_key === 'string' && keys.timestamp_key ? keys.timestamp_key : 'obsrv_meta.syncts';
  const columns = schemaColumns(dataset.dataSchema).filter((column) => column.name !== timestampKey);
  return {
    type: 'kafka',
    spec: {
      dataSchema: {
        dataSource: druidDatasourceName(dataset.datasetId),
        dimensionsSpec: { dimensions: columns.map((column) => ({ type: DIMENSION_TYPES[column.dataType] ?? 'auto', name: column.name })) },
        timestampSpec: { column: timestampKey, format: 'auto' },
        metricsSpec: [],
        granularitySpec: { type: 'uniform', segmentGranularity: 'DAY', queryGranularity: 'none', rollup: false },
      },
      tuningConfig: { type: 'kafka', maxBytesInMemory: 134_217_728, maxRowsPerSegment: 5_000_000, logParseExceptions: true },
      ioConfig: {
        type: 'kafka',
        topic: textOf(dataset.routerConfig?.topic ?? dataset.datasetId),
        consumerProperties: { 'bootstrap.servers': brokers.join(',') },
        taskCount: 1,
        replicas: 1,
        taskDuration: 'PT4H',
        useEarliestOffset: true,
        inputFormat: {
          type: 'json',
          flattenSpec: {
            useFieldDiscovery: true,
            fields: [...columns, { name: timestampKey, path: timestampKey.split('.') }].map((column) => ({
              type: 'path',
              expr: `$${column.path.map((part) => `['${part.replaceAll("'", "\\'")}']`).join('.')}`,
              name: column.name,
            })),
          },
        },
      },
    },
  };
}

export class DruidQueryEngine implements QueryEngine {
  readonly name: string;
  readonly kind = 'druid';

  constructor(
    private readonly settings: DruidSettings,
    private readonly fetchImpl: Fetch = globalThis.fetch,
  ) {
    this.name = `Druid at ${settings.url}`;
  }

  async ensureQueryable(dataset: DatasetRecord): Promise<void> {
    await this.call('/druid/indexer/v1/supervisor', supervisorSpec(dataset, this.settings.kafkaBrokers ?? []));
  }

  async dropQueryable(datasetId: string): Promise<void> {
    await this.call(`/druid/indexer/v1/supervisor/${encodeURIComponent(druidDatasourceName(datasetId))}/terminate`, {}).catch((error: unknown) => {
      // Nothing to terminate is fine; anything else is reported.
      if (!(error instanceof GatewayError && /404/.test(error.message))) throw error;
    });
  }

  async datasource(datasetId: string): Promise<Datasource | undefined> {
    const names = (await this.call('/druid/v2/datasources', undefined, 'GET')) as string[];
    const name = druidDatasourceName(datasetId);
    return Array.isArray(names) && names.includes(name) ? { name, columns: new Set() } : undefined;
  }

  async datasourceSizes(): Promise<Map<string, DatasourceSize>> {
    const listed = (await this.call('/druid/coordinator/v1/datasources?simple', undefined, 'GET')) as { name?: unknown; properties?: { segments?: Record<string, unknown> } }[];
    const sizes = new Map<string, DatasourceSize>();
    for (const entry of Array.isArray(listed) ? listed : []) {
      const segments = entry.properties?.segments ?? {};
      if (typeof entry.name !== 'string') continue;
      sizes.set(entry.name, {
        rows: Number(segments.count ?? 0),
        bytes: Number(segments.size ?? 0),
        minTime: typeof segments.minTime === 'string' ? segments.minTime : null,
        maxTime: typeof segments.maxTime === 'string' ? segments.maxTime : null,
      });
    }
    return sizes;
  }

  parameterMarker(): string {
    return '?';
  }

  datasourceReference(datasource: Datasource): string {
    return `"${datasource.name.replaceAll('"', '""')}"`;
  }

  async runSql(sql: string, parameters: QueryParameter[], options: { maxRows: number }): Promise<BoundedRows> {
    const maxRows = Math.floor(options.maxRows);
    const sqlQueryId = randomUUID();
    const body = {
      query: sql,
      resultFormat: 'object',
      // Druid SQL takes TIMESTAMP parameters as "yyyy-MM-dd HH:mm:ss.SSS" text in UTC.
      parameters: parameters.map((parameter) => ({
        type: parameter.type.toUpperCase(),
        value: parameter.type === 'timestamp' ? String(parameter.value).replace('T', ' ').replace(/Z$/, '') : parameter.value,
      })),
      // sqlOuterLimit: Druid wraps the query in an outer LIMIT, so no more rows than that are built or
      // sent; one more than the bound, so that a cut is known and said (rowLimit).
      context: { sqlQueryId, timeout: this.settings.timeoutMs, sqlOuterLimit: maxRows + 1 },
    };
    return boundRows((await this.call('/druid/v2/sql', body, 'POST', () => this.cancel(`/druid/v2/sql/${sqlQueryId}`))) as Record<string, unknown>[], maxRows);
  }

  async runNative(datasource: Datasource, query: Record<string, unknown>): Promise<unknown[]> {
    const queryId = randomUUID();
    const context = { ...((query.context as JsonObject | undefined) ?? {}), queryId, timeout: this.settings.timeoutMs };
    const rows = (await this.call('/druid/v2', { ...query, dataSource: datasource.name, context }, 'POST', () => this.cancel(`/druid/v2/${queryId}`))) as unknown[];
    // Druid's groupBy rows are {version, timestamp, event}; the contract's items are {timestamp, result}.
    if (query.queryType === 'groupBy' && Array.isArray(rows)) {
      return rows.map((row) => (row && typeof row === 'object' && 'event' in row ? { timestamp: (row as JsonObject).timestamp, result: (row as JsonObject).event } : row));
    }
    return rows;
  }

  async ping(): Promise<void> {
    await this.call('/status/health', undefined, 'GET');
  }

  private async cancel(path: string): Promise<void> {
    await this.fetchImpl(new URL(path, this.settings.url), { method: 'DELETE', signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
  }

  private async call(path: string, body: unknown, method = 'POST', onTimeout?: () => Promise<void>): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchImpl(new URL(path, this.settings.url), {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') {
        await onTimeout?.();
        throw new GatewayError('DATA_OUT_QUERY_TIMEOUT', `Druid did not answer within ${this.settings.timeoutMs} ms; the query was cancelled.`);
      }
      // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is in its cause.
      throw new GatewayError('DATA_OUT_QUERY_FAILED', `Druid at ${this.settings.url} could not be reached: ${describeFetchError(error, this.settings.timeoutMs)}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    if (response.ok) return parsed;
    // Druid's error body: {error, errorMessage, errorClass, host}.
    const detail = parsed && typeof parsed === 'object' ? (parsed as JsonObject) : {};
    const message = [detail.error, detail.errorMessage].filter((part) => typeof part === 'string' && part).join(': ') || String(text).slice(0, 300);
    if (response.status === 504 || detail.error === 'Query timeout') {
      throw new GatewayError('DATA_OUT_QUERY_TIMEOUT', `Druid cancelled the query: ${message}`);
    }
    if (response.status === 400) throw new GatewayError('DATA_OUT_INVALID_INPUT', `Druid refused the query: ${message}`);
    throw new GatewayError('DATA_OUT_QUERY_FAILED', `Druid answered ${response.status}: ${message}`);
  }
}
