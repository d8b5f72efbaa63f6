// What a dashboard sees live, written once and run over both subscription transports (graphql-ws
// and graphql-sse): a dataset's change arrives as what it is, a series starts with its window,
// arguments a query would refuse refuse the subscription with the same code, and a resumable stream
// resumed from a cursor replays what came after it, once and in order, then its tail.
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

/** A page of a resumable stream (datasetChanges, alertStateChanges, auditStream), as its client reads it. */
export interface StreamPageSeen {
  endCursor: string;
  changes: { cursor: string; /** What changed, in a few words: e.g. "createAlertRule SUCCESS <id>" for an audit record. */ what: string }[];
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
  /** Subscribes to a resumable stream after `after` (from now on when null), in pages of `first`. */
  watchStream(field: 'datasetChanges' | 'alertStateChanges' | 'auditStream', after: string | null, first: number): Promise<Watch<StreamPageSeen>>;
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

  it('resumes the audit stream from a cursor: what came after it, once and in order, then each new record', async () => {
    const watch = await context.driver.watchStream('auditStream', null, 10);
    // The first page comes at once, empty: where the stream stands.
    expect(expectOk(await watch.next()).changes).toEqual([]);
    const created: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const response = await context.gw.http.post('/graphql').send({
        query: 'mutation($n: String!) { createAlertRule(input: { name: $n, category: "streams", metric: "up", operator: GT, thresholds: [1] }) { alertRule { alertRuleId } } }',
        variables: { n: idFor(`stream_${name}`) },
      });
      created.push(response.body.data.createAlertRule.alertRule.alertRuleId as string);
    }
    const mine = (page: StreamPageSeen) => page.changes.filter((change) => created.some((id) => change.what === `createAlertRule SUCCESS ${id}`));
    const seen: StreamPageSeen['changes'] = [];
    while (seen.length < 3) seen.push(...mine(expectOk(await watch.next())));
    expect(seen.map((change) => change.what)).toEqual(created.map((id) => `createAlertRule SUCCESS ${id}`));
    await watch.close();

    // Resumed after the first: the second and third, a page each, in order; then a new record comes as the tail.
    const resumed = await context.driver.watchStream('auditStream', seen[0]!.cursor, 1);
    const replay = [expectOk(await resumed.next()), expectOk(await resumed.next())];
    expect(replay.map((page) => page.changes.map((change) => change.what))).toEqual([[`createAlertRule SUCCESS ${created[1]}`], [`createAlertRule SUCCESS ${created[2]}`]]);
    expect(replay[1]!.endCursor).toBe(seen[2]!.cursor);
    await context.gw.http.post('/graphql').send({ query: 'mutation($id: ID!) { deleteAlertRule(id: $id, hardDelete: true) { id } }', variables: { id: created[0] } });
    expect(expectOk(await resumed.next()).changes.map((change) => change.what)).toEqual([`deleteAlertRule SUCCESS ${created[0]}`]);
    await resumed.close();

    // A cursor of one stream is no cursor of another.
    const foreign = await context.driver.watchStream('alertStateChanges', seen[0]!.cursor, 1);
    expectFailure(await foreign.next(), 'CHANGE_CURSOR_INVALID', /is not a cursor of alertStateChanges/);
    await foreign.close();
  });
}
