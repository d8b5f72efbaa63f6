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
  await ingest(
    gw,
    CLEAN,
    CLEAN_OFFSETS_MIN.map((minutes, i) => ({ id: `c-${i + 1}`, ts: at(minutes), amount: i })),
    'metrics-clean-1',
  );
}

type Health = 'Healthy' | 'Unhealthy';

/**
 * The data_freshness category (REST spelling): both components and the category share `status`;
 * `values` are the two components' values ([lag, age]), left out when there is nothing to measure.
 */
export function freshnessFigures(status: Health, values?: [unknown, unknown]) {
  const component = (type: string, threshold: number, value: unknown) => ({ type, threshold, ...(values ? { value } : {}), status });
  return {
    category: 'data_freshness',
    status,
    components: [component('average_time_difference_in_min', 5, values?.[0]), component('freshness_query_time_in_min', 10, values?.[1])],
  };
}

/** Components named by their type, each with a value, in the contract's order. */
function valued<T extends string>(types: readonly T[], values: Record<T, number>) {
  return types.map((type) => ({ type, value: values[type] }));
}

/**
 * The categories after data_freshness (REST spelling), in the contract's order, from the figures a
 * test expects: every value is written out by the caller, only the shape is shared.
 */
export function figuresAfterFreshness(expected: {
  observability: { status: Health; failure_percentage: number; importance_score: number };
  volume: Record<'events_per_hour' | 'events_per_day' | 'events_per_n_day' | 'volume_percentage_by_hour' | 'volume_percentage_by_day' | 'volume_percentage_by_week' | 'growth_rate_percentage', number>;
  lineage: Record<'transformation_success' | 'dedup_success' | 'denormalization_success' | 'total_success' | 'total_failed' | 'transformation_failed' | 'dedup_failed' | 'denorm_failed', number>;
  /** [connector instance id, success, failed] */
  connectors: [string, number, number][];
  quality: Record<'incidents_failed' | 'incidents_success' | 'total_incidents', number>;
}) {
  const { observability, volume, lineage, connectors, quality } = expected;
  return [
    {
      category: 'data_observability',
      status: observability.status,
      components: [
        { type: 'data_observability_health', status: observability.status },
        { type: 'failure_percentage', value: observability.failure_percentage },
        { type: 'threshold_percentage', value: 5 },
        { type: 'importance_score', value: observability.importance_score },
      ],
    },
    {
      category: 'data_volume',
      components: valued(
        ['events_per_hour', 'events_per_day', 'events_per_n_day', 'volume_percentage_by_hour', 'volume_percentage_by_day', 'volume_percentage_by_week', 'growth_rate_percentage'],
        volume,
      ),
    },
    {
      category: 'data_lineage',
      components: valued(['transformation_success', 'dedup_success', 'denormalization_success', 'total_success', 'total_failed', 'transformation_failed', 'dedup_failed', 'denorm_failed'], lineage),
    },
    {
      category: 'connectors',
      components: connectors.flatMap(([id, success, failed]) => [
        { type: 'success', id, value: success },
        { type: 'failed', id, value: failed },
      ]),
    },
    { category: 'data_quality', components: valued(['incidents_failed', 'incidents_success', 'total_incidents'], quality) },
  ];
}

/** The contract's result (REST spelling) for MESSY over the default 7 days; freshness values are checked by expectFreshness. */
export function messyFigures() {
  return [
    freshnessFigures('Unhealthy', [expect.any(Number), expect.any(Number)]),
    ...figuresAfterFreshness({
      // 2 validation failures of 17 events (duplicates do not count against health); 3 of the 4 accepted ingest calls
      observability: { status: 'Unhealthy', failure_percentage: 11.76, importance_score: 75 },
      volume: {
        events_per_hour: 3,
        events_per_day: 7,
        events_per_n_day: 11,
        volume_percentage_by_hour: 50,
        volume_percentage_by_day: 250,
        volume_percentage_by_week: 450,
        growth_rate_percentage: 450,
      },
      lineage: { transformation_success: 13, dedup_success: 13, denormalization_success: 13, total_success: 13, total_failed: 4, transformation_failed: 0, dedup_failed: 2, denorm_failed: 0 },
      connectors: [
        ['api', 13, 4],
        ['kafka-in-1', 0, 0],
      ],
      quality: { incidents_failed: 2, incidents_success: 15, total_incidents: 17 },
    }),
  ];
}

/** CLEAN over the default 7 days. */
export function cleanFigures() {
  return [
    freshnessFigures('Healthy', [expect.any(Number), expect.any(Number)]),
    ...figuresAfterFreshness({
      observability: { status: 'Healthy', failure_percentage: 0, importance_score: 25 },
      // Nothing before to compare with: the percentages are 0, as the original.
      volume: { events_per_hour: 3, events_per_day: 3, events_per_n_day: 3, volume_percentage_by_hour: 0, volume_percentage_by_day: 0, volume_percentage_by_week: 0, growth_rate_percentage: 0 },
      lineage: { transformation_success: 3, dedup_success: 3, denormalization_success: 3, total_success: 3, total_failed: 0, transformation_failed: 0, dedup_failed: 0, denorm_failed: 0 },
      connectors: [['api', 3, 0]],
      quality: { incidents_failed: 0, incidents_success: 3, total_incidents: 3 },
    }),
  ];
}

/** EMPTY: freshness has nothing to measure (no values, Unhealthy); every count is 0. */
export function emptyFreshness() {
  return freshnessFigures('Unhealthy');
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
