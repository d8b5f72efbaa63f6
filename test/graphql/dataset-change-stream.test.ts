// The resumable stream of dataset changes (Subscription.datasetChanges) over real transports: a
// client that drops during a burst of changes and resumes with its last cursor gets every change
// exactly once and in commit order; SSE resumes from `after` and from Last-Event-ID; a cursor that
// retention passed, or one that is no cursor, is refused with its own code; a change made on a second
// copy of the gateway reaches a subscriber of the first.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import pg from 'pg';
import supertest from 'supertest';
import WebSocket from 'ws';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset, transition } from '../support/datasets.js';
import { startCopy, startTestGateway, type TestGateway } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { CHANGE_LOGS, createChangeLogStore } from '../../src/modules/live/index.js';
import { type Gateway } from '../../src/server.js';

let gw: TestGateway;
/** A second copy on the same database. */
let copy: Gateway;
let onCopy: TestGateway;
let admin: string;
/** Writes straight to the database (each statement its own transaction), as any copy's writes land. */
let writer: pg.Pool;
const clients: Client[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ ...JWT_ENV, CHANGE_LOG_RETENTION_HOURS: '72' });
  copy = await startCopy(gw, { ...JWT_ENV, METRICS_SAMPLE_INTERVAL_SECONDS: '0' });
  admin = await token({ roles: ['admin'], expiresIn: 3600 });
  onCopy = { ...gw, url: copy.url, http: supertest.agent(copy.url).set('authorization', `Bearer ${admin}`) };
  writer = new pg.Pool({ connectionString: gw.databaseUrl, max: 1 });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await writer?.end();
  await copy?.stop();
  await gw?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wsClient(): Client {
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${admin}` }, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

const STREAM = `subscription($after: String, $first: Int) {
  datasetChanges(after: $after, first: $first) {
    endCursor caughtUp
    changes { cursor datasetId version kind statusBefore statusAfter versionNumber actor at }
  }
}`;

interface Change {
  cursor: string;
  datasetId: string;
  version: 'LIVE' | 'DRAFT';
  kind: string;
  statusBefore: string | null;
  statusAfter: string | null;
  versionNumber: number | null;
  actor: string | null;
  at: string;
}
interface Page {
  datasetChanges: { endCursor: string; caughtUp: boolean; changes: Change[] };
}
type Result = { data?: Page | null; errors?: readonly unknown[] };

/** A subscription's pages as they come, every change in arrival order, and a way to wait for them. */
function follow(events: AsyncIterableIterator<Result>) {
  const pages: Page['datasetChanges'][] = [];
  const changes: Change[] = [];
  const failed: unknown[] = [];
  void (async () => {
    try {
      for await (const result of events) {
        if (result.errors) failed.push(result.errors);
        else if (result.data) {
          pages.push(result.data.datasetChanges);
          changes.push(...result.data.datasetChanges.changes);
        }
      }
    } catch (error) {
      failed.push(error);
    }
  })();
  const until = async (done: () => boolean, withinMs: number, what: string) => {
    const deadline = Date.now() + withinMs;
    while (!done() && failed.length === 0 && Date.now() < deadline) await sleep(10);
    if (failed.length > 0) throw new Error(`the subscription failed: ${JSON.stringify(failed[0])}`);
    if (!done()) throw new Error(`${what} did not come within ${withinMs} ms (${pages.length} pages, ${changes.length} changes)`);
  };
  return {
    pages,
    changes,
    failed,
    pagesCount: (n: number, withinMs = 10_000) => until(() => pages.length >= n, withinMs, `${n} pages`),
    changesCount: (n: number, withinMs = 20_000) => until(() => changes.length >= n, withinMs, `${n} changes`),
    /** The cursor to resume from: the last page's endCursor. */
    get cursor() {
      return pages.at(-1)!.endCursor;
    },
    stop: () => events.return?.(),
  };
}

/** Inserts a Draft row of a new dataset by SQL (the trigger logs it as any write path's would be). */
async function insertDataset(id: string): Promise<void> {
  await writer.query(
    `INSERT INTO datasets (dataset_id, stage, name, type, status, version, version_key, data_schema, dataset_config, transformations_config, connectors_config, created_by, updated_by)
     VALUES ($1, 'draft', $1, 'event', 'Draft', 1, '1', '{}', '{}', '[]', '[]', 'seeder', 'seeder')`,
    [id],
  );
}

/** `count` updates of the dataset's Draft, one transaction each: versions 2..count+1, each by writer-<version>. */
async function updateMany(id: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await writer.query(`UPDATE datasets SET version = version + 1, updated_by = 'writer-' || (version + 1), updated_date = now() WHERE dataset_id = $1 AND stage = 'draft'`, [id]);
  }
}

function expectConsecutiveUpdates(changes: Change[], id: string, count: number): void {
  const mine = changes.filter((change) => change.datasetId === id);
  expect(mine.map((change) => change.versionNumber)).toEqual(Array.from({ length: count }, (_, i) => i + 2));
  expect(mine.every((change) => change.kind === 'UPDATED' && change.actor === `writer-${change.versionNumber}` && change.version === 'DRAFT')).toBe(true);
  // Cursors are opaque, but each one differs from the one before (no change twice).
  expect(new Set(mine.map((change) => change.cursor)).size).toBe(count);
}

describe('datasetChanges', () => {
  it('over graphql-ws: a client that drops during 1,000 changes and resumes with its last cursor gets all 1,000 exactly once, in order', async () => {
    const id = unique('dc_ws').replace(/-/g, '_');
    await insertDataset(id);
    const firstClient = wsClient();
    const before = follow(firstClient.iterate<Page>({ query: STREAM, variables: { first: 50 } }));
    // The first page comes at once, empty: where the stream stands.
    await before.pagesCount(1);
    expect(before.pages[0]).toMatchObject({ changes: [], caughtUp: true });

    const writing = updateMany(id, 1_000);
    await before.changesCount(100, 30_000);
    // What the client held when it dropped (a page already queued in its iterator is not counted as seen).
    const cursor = before.cursor;
    const seen = before.changes.slice();
    const seenBefore = seen.length;
    await firstClient.dispose();
    expect(seenBefore).toBeLessThan(1_000);

    // Resumed while the writes go on (replay, then the tail) or after they ended (replay only).
    await sleep(200);
    const after = follow(wsClient().iterate<Page>({ query: STREAM, variables: { after: cursor, first: 50 } }));
    await writing;
    await after.changesCount(1_000 - seenBefore, 30_000);
    await sleep(300);
    const all = [...seen, ...after.changes];
    expect(all).toHaveLength(1_000);
    expectConsecutiveUpdates(all, id, 1_000);
    // Pages hold at most `first` changes; the replay says when it reached the end.
    expect(after.pages.every((page) => page.changes.length <= 50)).toBe(true);
    expect(after.pages.at(-1)!.caughtUp).toBe(true);
    await after.stop();
  }, 90_000);

  it('over SSE: resumes from its last cursor, and from Last-Event-ID (each event id being its endCursor)', async () => {
    const id = unique('dc_sse').replace(/-/g, '_');
    await insertDataset(id);
    const sse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: { authorization: `Bearer ${admin}` }, retryAttempts: 0 });
    const before = follow(sse.iterate<Page>({ query: STREAM, variables: { first: 10 } }));
    await before.pagesCount(1);
    const writing = updateMany(id, 100);
    await before.changesCount(20);
    const cursor = before.cursor;
    const seen = before.changes.slice();
    const seenBefore = seen.length;
    await before.stop();
    await writing;

    const after = follow(sse.iterate<Page>({ query: STREAM, variables: { after: cursor, first: 10 } }));
    await after.changesCount(100 - seenBefore);
    await sleep(300);
    expectConsecutiveUpdates([...seen, ...after.changes], id, 100);
    await after.stop();
    sse.dispose();

    // A reconnecting EventSource sends the last event's id: the stream resumes there, whatever `after` the request carries.
    const resumeFrom = seen[9]!.cursor;
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'content-type': 'application/json', 'last-event-id': resumeFrom },
      body: JSON.stringify({ query: STREAM, variables: { first: 5 } }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!/(^|\n)event: next\n[^]*?\n\n/.test(text)) text += decoder.decode((await reader.read()).value, { stream: true });
    await reader.cancel();
    const event = /(?:^|\n\n)((?:id: .*\n)?event: next\n[^]*?)\n\n/.exec(text)![1]!;
    const data = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as { data: Page };
    expect(data).toHaveProperty('data.datasetChanges');
    expect(data.data.datasetChanges.changes.map((change) => change.versionNumber)).toEqual([12, 13, 14, 15, 16]);
    expect(/^id: (.*)$/m.exec(event)![1]).toBe(data.data.datasetChanges.endCursor);
  }, 60_000);

  it('refuses a cursor older than the change log keeps with CHANGE_CURSOR_EXPIRED, and one that is no cursor with CHANGE_CURSOR_INVALID', async () => {
    const id = unique('dc_old').replace(/-/g, '_');
    await insertDataset(id);
    const stream = follow(wsClient().iterate<Page>({ query: STREAM, variables: { first: 10 } }));
    await stream.pagesCount(1);
    await updateMany(id, 3);
    await stream.changesCount(3);
    const old = stream.changes[0]!.cursor;
    await stream.stop();

    // Retention (as the background work runs it) deletes every change made before now: the cursor's change is gone.
    expect(await createChangeLogStore(writer, CHANGE_LOGS.datasetChanges, 72).deleteBefore(new Date(Date.now() + 1_000))).toBeGreaterThanOrEqual(4);
    await updateMany(id, 1);

    const expired = follow(wsClient().iterate<Page>({ query: STREAM, variables: { after: old } }));
    await expect(expired.pagesCount(1, 5_000)).rejects.toThrow(/"code":"CHANGE_CURSOR_EXPIRED"/);
    const message = JSON.stringify(expired.failed[0]);
    expect(message).toMatch(/older than the change log keeps \(CHANGE_LOG_RETENTION_HOURS=72\); the oldest change kept is from \d{4}-\d\d-\d\dT.*subscribe without after/);
    expect(message).toContain('"responseCode":"BAD_REQUEST"');

    for (const bad of ['not a cursor!', Buffer.from('dc:12abc').toString('base64url'), Buffer.from('offset:5').toString('base64url')]) {
      const refused = follow(wsClient().iterate<Page>({ query: STREAM, variables: { after: bad } }));
      await expect(refused.pagesCount(1, 5_000)).rejects.toThrow(/is not a cursor of datasetChanges.*"code":"CHANGE_CURSOR_INVALID","responseCode":"BAD_REQUEST"/);
    }
    const future = follow(wsClient().iterate<Page>({ query: STREAM, variables: { after: Buffer.from('dc:999999999').toString('base64url') } }));
    await expect(future.pagesCount(1, 5_000)).rejects.toThrow(/past the newest change.*"code":"CHANGE_CURSOR_INVALID"/);
    const tooMany = follow(wsClient().iterate<Page>({ query: STREAM, variables: { first: 501 } }));
    await expect(tooMany.pagesCount(1, 5_000)).rejects.toThrow(/first: 501 is not a page size from 1 to 500.*"code":"INVALID_INPUT"/);

    // Over SSE the refusal is the response itself: 400 with the code.
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: STREAM, variables: { after: old } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'CHANGE_CURSOR_EXPIRED' } }] });
  }, 60_000);

  it('delivers a change made through the API of another copy, as what it is: created, then its status changed, by whom', async () => {
    const id = unique('dc_copy').replace(/-/g, '_');
    const stream = follow(wsClient().iterate<Page>({ query: STREAM }));
    await stream.pagesCount(1);
    await seedDataset(onCopy, id, 'ReadyToPublish');
    const deadline = Date.now() + 10_000;
    while (stream.changes.filter((change) => change.datasetId === id).length < 2 && Date.now() < deadline) await sleep(20);
    const mine = stream.changes.filter((change) => change.datasetId === id);
    expect(mine.map(({ kind, version, statusBefore, statusAfter }) => ({ kind, version, statusBefore, statusAfter }))).toEqual([
      { kind: 'CREATED', version: 'DRAFT', statusBefore: null, statusAfter: 'DRAFT' },
      { kind: 'STATUS_CHANGED', version: 'DRAFT', statusBefore: 'DRAFT', statusAfter: 'READY_TO_PUBLISH' },
    ]);
    expect(mine.every((change) => typeof change.actor === 'string' && change.actor.length > 0)).toBe(true);
    const heard = stream.changes.length;
    await transition(onCopy, id, 'Live');
    await stream.changesCount(heard + 1);
    // Publishing writes the Live row and removes the Draft: changes of the dataset, not its deletion.
    expect(stream.changes.slice(heard).every((change) => change.datasetId === id && change.kind !== 'DELETED')).toBe(true);
    await stream.stop();
  }, 60_000);
});
