// Figures computed from the embedded event store (tables events and failed_events, written by
// src/platform/event-bus/embedded-store.ts) and the ingestion counters every gateway shares. Volume and
// freshness go by an event's own time (its timestamp key); stage outcomes by when it arrived.
// Each figure is one SQL statement on the indexes the store already has.
import type pg from 'pg';
import type { ApiCallFigures, ConnectorFigures, FreshnessFigures, IngestionCallCounts, MetricsSource, OutcomeFigures, Window } from './metrics-source.js';

/** The connector instance of events that came in through POST /v2/data/in (the original's `api`). */
export const API_CONNECTOR = 'api';

export class EmbeddedMetricsSource implements MetricsSource {
  readonly name = 'embedded event store and ingestion counters';

  constructor(
    private readonly pool: pg.Pool,
    private readonly counters: IngestionCallCounts,
  ) {}

  async freshness(datasetId: string, window: Window): Promise<FreshnessFigures> {
    const result = await this.pool.query<{ newest: Date | null; lag_ms: number | null }>(
      `SELECT (SELECT max(event_time) FROM events WHERE dataset_id = $1) AS newest,
              (SELECT avg(extract(epoch FROM arrival_time - event_time) * 1000)::float8 FROM events
                WHERE dataset_id = $1 AND arrival_time >= $2 AND arrival_time < $3) AS lag_ms`,
      [datasetId, window.from, window.to],
    );
    const row = result.rows[0]!;
    return { newestEventTime: row.newest, averageLagMs: row.lag_ms };
  }

  async volume(datasetId: string, windows: readonly Window[]): Promise<number[]> {
    const result = await this.pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM events e WHERE e.dataset_id = $1 AND e.event_time >= w.f AND e.event_time < w.t)::float8 AS n
         FROM unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS w(f, t, i) ORDER BY w.i`,
      [datasetId, windows.map((window) => window.from), windows.map((window) => window.to)],
    );
    return result.rows.map((row) => row.n);
  }

  async outcomes(datasetId: string, window: Window): Promise<OutcomeFigures> {
    const result = await this.pool.query<{ stage: string | null; n: number }>(
      `SELECT NULL::text AS stage, count(*)::float8 AS n FROM events WHERE dataset_id = $1 AND arrival_time >= $2 AND arrival_time < $3
       UNION ALL
       SELECT stage, count(*)::float8 FROM failed_events WHERE dataset_id = $1 AND arrival_time >= $2 AND arrival_time < $3 GROUP BY stage`,
      [datasetId, window.from, window.to],
    );
    const figures: OutcomeFigures = { stored: 0, failedByStage: {} };
    for (const row of result.rows) {
      if (row.stage === null) figures.stored = row.n;
      else figures.failedByStage[row.stage] = row.n;
    }
    return figures;
  }

  async outcomesOf(datasetIds: readonly string[], window: Window): Promise<Map<string, OutcomeFigures>> {
    const figures = new Map<string, OutcomeFigures>(datasetIds.map((datasetId) => [datasetId, { stored: 0, failedByStage: {} }]));
    if (datasetIds.length === 0) return figures;
    const result = await this.pool.query<{ dataset_id: string; stage: string | null; n: number }>(
      `SELECT dataset_id, NULL::text AS stage, count(*)::float8 AS n FROM events WHERE dataset_id = ANY($1::text[]) AND arrival_time >= $2 AND arrival_time < $3 GROUP BY dataset_id
       UNION ALL
       SELECT dataset_id, stage, count(*)::float8 FROM failed_events WHERE dataset_id = ANY($1::text[]) AND arrival_time >= $2 AND arrival_time < $3 GROUP BY dataset_id, stage`,
      [[...datasetIds], window.from, window.to],
    );
    for (const row of result.rows) {
      const entry = figures.get(row.dataset_id);
      if (!entry) continue;
      if (row.stage === null) entry.stored = row.n;
      else entry.failedByStage[row.stage] = row.n;
    }
    return figures;
  }

  async connectors(datasetId: string, window: Window): Promise<ConnectorFigures[]> {
    // The embedded store is fed by the ingestion endpoint only, so every event came through `api`.
    const outcomes = await this.outcomes(datasetId, window);
    const failed = Object.values(outcomes.failedByStage).reduce((sum: number, n) => sum + (n ?? 0), 0);
    return [{ id: API_CONNECTOR, stored: outcomes.stored, failed }];
  }

  async apiCalls(datasetId: string): Promise<ApiCallFigures> {
    // The shared counters cover every gateway since the database's start; the window cannot narrow them.
    return this.counters.requestTotals(datasetId);
  }

  async apiCallsOf(datasetIds: readonly string[]): Promise<Map<string, ApiCallFigures>> {
    const totals = await this.counters.requestTotalsOf(datasetIds);
    return new Map(datasetIds.map((datasetId, index) => [datasetId, totals[index]!]));
  }
}
