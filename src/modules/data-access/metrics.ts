// What the console's dashboards read (the original's POST /v2/data/metrics and its Druid
// coordinator listing): Prometheus's read API, answered by the embedded metrics store or a real
// Prometheus; Druid native queries on a Live dataset's datasource; and each datasource's size.
import { GatewayError } from '../../errors.js';
import { MetricsRequestError, readRequest, type MetricsParams, type PrometheusApi } from '../../platform/metrics-store/prometheus-read-api.js';
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';
import { rowLimitOf, type DatasourceSize, type QueryEngine } from '../../platform/query-engine/query-engine.js';
import { isObject } from '../../validation/json-object.js';
import type { DatasourceEntry, DatasetService } from '../datasets/index.js';

export interface DatasourceSizeEntry {
  name: string;
  datasetId: string;
  rows: number;
  bytes: number;
  minTime: Date | null;
  maxTime: Date | null;
}

export type DatasourceSizePage = ListPage<DatasourceSizeEntry>;

export function createMetricsQueries(prometheus: PrometheusApi, datasets: DatasetService, engine: QueryEngine, runNative: (dataset: string, query: unknown) => Promise<unknown[]>) {
  return {
    /** Prometheus's JSON body for one of its read endpoints (a leading /prom is accepted, as the console sends it). */
    async prometheus(path: string, params: unknown): Promise<unknown> {
      if (params !== null && params !== undefined && !isObject(params)) throw new GatewayError('DATA_METRICS_INVALID_INPUT', 'params must be an object of query parameters');
      const given: MetricsParams = {};
      for (const [name, value] of Object.entries(params ?? {})) {
        if (typeof value === 'string' || typeof value === 'number') given[name] = String(value);
        else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) given[name] = value;
        else throw new GatewayError('DATA_METRICS_INVALID_INPUT', `params.${name} must be text, a number or a list of texts`);
      }
      try {
        const request = readRequest(path, given);
        return await prometheus.get(request.path, request.params);
      } catch (error) {
        if (error instanceof MetricsRequestError) {
          throw new GatewayError(error.kind === 'bad_data' ? 'DATA_METRICS_INVALID_INPUT' : 'DATA_METRICS_UNAVAILABLE', error.message);
        }
        throw error;
      }
    },

    /**
     * A Druid native query whose dataSource names a Live dataset (its id, alias or datasource), held
     * by the engine's bounds (statement timeout, row bound) but not the ad-hoc route's 30 days: the
     * console's dataset card asks for the last synced time since 2000, as the original answers it.
     */
    async native(query: unknown): Promise<unknown[]> {
      if (!isObject(query)) throw new GatewayError('DATA_METRICS_INVALID_INPUT', 'query.body.query must be a Druid native query object');
      const name = query.dataSource;
      if (typeof name !== 'string' || name === '') throw new GatewayError('DATA_METRICS_INVALID_INPUT', 'the native query names no dataSource');
      const entry = (await datasets.datasources({ statuses: ['Live'] })).find((candidate) => candidate.datasourceRef === name);
      const rows = await runNative(entry?.datasetId ?? name, query);
      // Dashboards read Druid's own rows: a groupBy row's figures under `event` (the contract's
      // template items, which runNative gives, carry them under `result`).
      if (query.queryType !== 'groupBy') return rows;
      // Rows cut at the engine's bound stay marked (rowLimit) once reshaped: the answer says so.
      const rowLimit = rowLimitOf(rows);
      const reshaped = rows.map(druidGroupByRow);
      return rowLimit === undefined ? reshaped : Object.assign(reshaped, { rowLimit });
    },

    /** A page of the Live datasets' datasources with their sizes, by the dataset list's contract. */
    async datasourceSizePage(args: ListArguments): Promise<DatasourceSizePage> {
      const [page, sizes] = await Promise.all([datasets.datasourcePage(args), engine.datasourceSizes()]);
      return { ...page, items: page.items.map((entry) => sizeEntry(entry, sizes.get(entry.datasourceRef))) };
    },

    /** Every Live dataset's datasource with its size (the console's dataset list shows it); refused beyond the list maximum. */
    async datasourceSizes(): Promise<DatasourceSizeEntry[]> {
      const [entries, sizes] = await Promise.all([datasets.datasources({ statuses: ['Live'] }, 'whole'), engine.datasourceSizes()]);
      return entries.map((entry) => sizeEntry(entry, sizes.get(entry.datasourceRef)));
    },
  };
}

/** A groupBy item {timestamp, result} as Druid writes its groupBy rows: {version, timestamp, event}. */
function druidGroupByRow(row: unknown): unknown {
  return isObject(row) && isObject(row.result) ? { version: 'v1', timestamp: row.timestamp, event: row.result } : row;
}

function sizeEntry(entry: DatasourceEntry, size: DatasourceSize | undefined): DatasourceSizeEntry {
  return {
    name: entry.datasourceRef,
    datasetId: entry.datasetId,
    rows: size?.rows ?? 0,
    bytes: size?.bytes ?? 0,
    minTime: size?.minTime ? new Date(size.minTime) : null,
    maxTime: size?.maxTime ? new Date(size.maxTime) : null,
  };
}

export type MetricsQueries = ReturnType<typeof createMetricsQueries>;
