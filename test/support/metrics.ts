// Shared arrangements of the dataset metrics suites (REST and GraphQL): datasets fed a known
// series of events through POST /v2/data/in (event times relative to now, duplicates, validation
// failures), and the figures the metrics must report for them.
import { expect } from '@jest/globals';
import { GOOD_CONNECTOR, seedDataset, type Json } from './datasets.js';
import type { TestGateway } from './gateway.js';

export const MESSY = 'metrics_messy';
export const CLEAN = 'metrics_clean';
export const EMPTY = 'metrics_empty';
export const DRAFT = 'metrics_draft';
export const RETIRED = 'metrics_retired';

const MINUTE = 60_000;
/**
 * Minutes before now of the messy dataset's stored events: 3 in the last hour, 2 in the hour before,
 * 2 more in the last day, 2 in the day before, 2 more in the last week, 2 in the week before.
 */
export const MESSY_OFFSETS_MIN = [15, 20, 50, 70, 100, 300, 1200, 1800, 2400, 4320, 8640, 11520, 17280];
export const CLEAN_OFFSETS_MIN = [1, 2, 3];

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

async function ingest(gw: TestGateway, datasetId: string, data: unknown, msgid: string): Promise<void> {
  const response = await gw.http.post(`/v2/data/in/${datasetId}`).send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data });
  if (response.status !== 200) throw new Error(`ingest into ${datasetId} failed with ${response.status}: ${JSON.stringify(response.body)}`);
}

/**
 * Seeds the datasets and ingests (3 calls into MESSY, 1 into CLEAN):
 *  - MESSY: 13 events stored; a duplicate inside the batch and one in a later call (dedup); two
 *    events failing validation (amount not a number). It also has a connector instance, kafka-in-1.
 *  - CLEAN: 3 events, 1 to 3 minutes old. EMPTY: Live, no events. DRAFT: a Draft only. RETIRED: Retired.
 */
export async function seedMetrics(gw: TestGateway): Promise<void> {
  await Promise.all([
    seedDataset(gw, MESSY, 'Live', { connectors_config: [GOOD_CONNECTOR] }),
    seedDataset(gw, CLEAN, 'Live'),
    seedDataset(gw, EMPTY, 'Live'),
    seedDataset(gw, DRAFT, 'Draft'),
    seedDataset(gw, RETIRED, 'Retired'),
  ]);
  const now = Date.now();
  const at = (minutes: number) => new Date(now - minutes * MINUTE).toISOString();
  const messy: Json[] = MESSY_OFFSETS_MIN.map((minutes, i) => ({ id: `m-${i + 1}`, ts: at(minutes), userid: 'u1', amount: i }));
  await ingest(gw, MESSY, [...messy, { ...messy[0] }, { id: 'm-bad-1', ts: at(5), amount: 'not a number' }], 'metrics-messy-1');
  await ingest(gw, MESSY, { ...messy[0] }, 'metrics-messy-2');
  await ingest(gw, MESSY, { id: 'm-bad-2', ts: at(5), amount: 'x' }, 'metrics-messy-3');
  await ingest(gw, CLEAN, CLEAN_OFFSETS_MIN.map((minutes, i) => ({ id: `c-${i + 1}`, ts: at(minutes), amount: i })), 'metrics-clean-1');
}

/** The contract's result (REST spelling) for MESSY over the default 7 days; freshness values are checked by expectFreshness. */
export function messyFigures() {
  return [
    {
      category: 'data_freshness',
      status: 'Unhealthy',
      components: [
        { type: 'average_time_difference_in_min', threshold: 5, value: expect.any(Number), status: 'Unhealthy' },
        { type: 'freshness_query_time_in_min', threshold: 10, value: expect.any(Number), status: 'Unhealthy' },
      ],
    },
    {
      category: 'data_observability',
      status: 'Unhealthy',
      components: [
        { type: 'data_observability_health', status: 'Unhealthy' },
        // 2 validation failures of 17 events (duplicates do not count against health)
        { type: 'failure_percentage', value: 11.76 },
        { type: 'threshold_percentage', value: 5 },
        // 3 of the 4 accepted ingest calls
        { type: 'importance_score', value: 75 },
      ],
    },
    {
      category: 'data_volume',
      components: [
        { type: 'events_per_hour', value: 3 },
        { type: 'events_per_day', value: 7 },
        { type: 'events_per_n_day', value: 11 },
        { type: 'volume_percentage_by_hour', value: 50 },
        { type: 'volume_percentage_by_day', value: 250 },
        { type: 'volume_percentage_by_week', value: 450 },
        { type: 'growth_rate_percentage', value: 450 },
      ],
    },
    {
      category: 'data_lineage',
      components: [
        { type: 'transformation_success', value: 13 },
        { type: 'dedup_success', value: 13 },
        { type: 'denormalization_success', value: 13 },
        { type: 'total_success', value: 13 },
        { type: 'total_failed', value: 4 },
        { type: 'transformation_failed', value: 0 },
        { type: 'dedup_failed', value: 2 },
        { type: 'denorm_failed', value: 0 },
      ],
    },
    {
      category: 'connectors',
      components: [
        { type: 'success', id: 'api', value: 13 },
        { type: 'failed', id: 'api', value: 4 },
        { type: 'success', id: 'kafka-in-1', value: 0 },
        { type: 'failed', id: 'kafka-in-1', value: 0 },
      ],
    },
    {
      category: 'data_quality',
      components: [
        { type: 'incidents_failed', value: 2 },
        { type: 'incidents_success', value: 15 },
        { type: 'total_incidents', value: 17 },
      ],
    },
  ];
}

/** CLEAN over the default 7 days. */
export function cleanFigures() {
  return [
    {
      category: 'data_freshness',
      status: 'Healthy',
      components: [
        { type: 'average_time_difference_in_min', threshold: 5, value: expect.any(Number), status: 'Healthy' },
        { type: 'freshness_query_time_in_min', threshold: 10, value: expect.any(Number), status: 'Healthy' },
      ],
    },
    {
      category: 'data_observability',
      status: 'Healthy',
      components: [
        { type: 'data_observability_health', status: 'Healthy' },
        { type: 'failure_percentage', value: 0 },
        { type: 'threshold_percentage', value: 5 },
        { type: 'importance_score', value: 25 },
      ],
    },
    {
      category: 'data_volume',
      components: [
        { type: 'events_per_hour', value: 3 },
        { type: 'events_per_day', value: 3 },
        { type: 'events_per_n_day', value: 3 },
        // Nothing before to compare with: 0, as the original.
        { type: 'volume_percentage_by_hour', value: 0 },
        { type: 'volume_percentage_by_day', value: 0 },
        { type: 'volume_percentage_by_week', value: 0 },
        { type: 'growth_rate_percentage', value: 0 },
      ],
    },
    {
      category: 'data_lineage',
      components: [
        { type: 'transformation_success', value: 3 },
        { type: 'dedup_success', value: 3 },
        { type: 'denormalization_success', value: 3 },
        { type: 'total_success', value: 3 },
        { type: 'total_failed', value: 0 },
        { type: 'transformation_failed', value: 0 },
        { type: 'dedup_failed', value: 0 },
        { type: 'denorm_failed', value: 0 },
      ],
    },
    {
      category: 'connectors',
      components: [
        { type: 'success', id: 'api', value: 3 },
        { type: 'failed', id: 'api', value: 0 },
      ],
    },
    {
      category: 'data_quality',
      components: [
        { type: 'incidents_failed', value: 0 },
        { type: 'incidents_success', value: 3 },
        { type: 'total_incidents', value: 3 },
      ],
    },
  ];
}

/** EMPTY: freshness has nothing to measure (no values, Unhealthy); every count is 0. */
export function emptyFreshness() {
  return {
    category: 'data_freshness',
    status: 'Unhealthy',
    components: [
      { type: 'average_time_difference_in_min', threshold: 5, status: 'Unhealthy' },
      { type: 'freshness_query_time_in_min', threshold: 10, status: 'Unhealthy' },
    ],
  };
}

/**
 * The freshness values: the mean lag is the mean of the event offsets (all events arrived together,
 * a moment after their times were computed); the newest event's age is its offset plus the time
 * since it was ingested.
 */
export function expectFreshness(components: { value?: number | null }[], offsets: number[], ingestedAgoMaxMin: number): void {
  const [lag, age] = components.map((component) => component.value!);
  expect(Math.abs(lag! - mean(offsets))).toBeLessThan(0.1);
  expect(age!).toBeGreaterThanOrEqual(Math.min(...offsets));
  expect(age!).toBeLessThan(Math.min(...offsets) + ingestedAgoMaxMin);
}
