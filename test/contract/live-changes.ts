// What a dashboard sees live, written once and run over both subscription transports (graphql-ws
// and graphql-sse): a dataset's change arrives as what it is, a series starts with its window, and
// arguments a query would refuse refuse the subscription with the same code.
import { expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { seedDataset } from '../support/datasets.js';
import { unique } from '../support/ingestion.js';
import { expectFailure, expectOk, type Outcome, type SuiteContext } from './harness.js';

export interface DatasetChangeSeen {
  datasetId: string;
  kind: string;
  previousStatus: string | null;
  status: string | null;
}

/** One subscription as its client reads it: each result (or the refusal, as the first), then closed. */
export interface Watch<T> {
  next(): Promise<Outcome<T>>;
  close(): Promise<void>;
}

export interface LiveDriver {
  /** Subscribes to one dataset's changes; resolves once the gateway evaluates the subscription (or refused it). */
  watchDataset(datasetId: string): Promise<Watch<DatasetChangeSeen>>;
  /** Subscribes to a metric series (range and step in seconds); resolves once the gateway evaluates it (or refused it). */
  watchSeries(query: string, range: number, step: number): Promise<Watch<number[]>>;
  /** Subscribes to a dataset's ingestion counts (every second). */
  watchCounts(datasetId: string): Promise<Watch<{ eventsIn: number }>>;
}

const idFor = (name: string) => unique(name).replace(/-/g, '_');

export function liveChangesScenarios(context: SuiteContext<LiveDriver>): void {
  it("delivers a dataset's status transition as STATUS_CHANGED, with the status before and after", async () => {
    const id = idFor('live_contract');
    await seedDataset(context.gw, id, 'ReadyToPublish');
    const watch = await context.driver.watchDataset(id);
    const transition = await context.gw.http.post('/v2/datasets/status-transition').send(envelope('api.datasets.status-transition', { dataset_id: id, status: 'Live' }));
    expect(transition.status).toBe(200);
    expect(expectOk(await watch.next())).toEqual({ datasetId: id, kind: 'STATUS_CHANGED', previousStatus: 'READY_TO_PUBLISH', status: 'LIVE' });
    await watch.close();
  });

  it('starts a metric series with its window', async () => {
    const watch = await context.driver.watchSeries('vector(3)', 0, 1);
    expect(expectOk(await watch.next())).toEqual([3]);
    await watch.close();
  });

  it('refuses a metric series whose expression does not parse with DATA_METRICS_INVALID_INPUT, as metricSeries does', async () => {
    const watch = await context.driver.watchSeries('sum(', 60, 1);
    expectFailure(await watch.next(), 'DATA_METRICS_INVALID_INPUT');
    await watch.close();
  });

  it('refuses the counts of a dataset that does not exist with DATASET_NOT_FOUND, instead of zeros forever', async () => {
    const missing = idFor('live_missing');
    const watch = await context.driver.watchCounts(missing);
    expectFailure(await watch.next(), 'DATASET_NOT_FOUND', new RegExp(missing));
    await watch.close();
  });
}
