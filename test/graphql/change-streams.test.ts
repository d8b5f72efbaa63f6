// The resumable streams of alert rules (Subscription.alertStateChanges) and of the audit trail
// (Subscription.auditStream) over real transports and a real PostgreSQL: a client that drops during
// 1,000 changes and resumes with its last cursor gets every change exactly once and in commit order,
// over graphql-ws and over SSE (from `after` and from Last-Event-ID); a cursor retention passed, or
// one of another stream, is refused with its own code; each change arrives as what it is; and new
// changes are read from the database once per batch for every subscriber of the gateway (the shared
// tail), subscribers resuming from older cursors included.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { JWT_ENV, token } from '../support/auth.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { unique } from '../support/ingestion.js';
import { createChangeLogStores, positionOf } from '../../src/modules/live/index.js';

let gw: TestGateway;
let admin: string;
/** Writes straight to the database (each statement its own transaction), as any write path's would land. */
let writer: pg.Pool;
const clients: Client[] = [];

beforeAll(async () => {
  // The embedded evaluator off: the alert tests set rules' states themselves, as the evaluator would.
  gw = await startTestGateway({ ...JWT_ENV, CHANGE_LOG_RETENTION_HOURS: '72', ALERT_EVALUATION_TICK_SECONDS: '0' });
  admin = await token({ sub: 'stream-admin', roles: ['admin'], expiresIn: 3600 });
  writer = new pg.Pool({ connectionString: gw.databaseUrl, max: 1 });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map(async (client) => client.dispose()));
  await writer?.end();
  await gw?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wsClient(): Client {
  const client = createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${admin}` }, lazy: false, retryAttempts: 0 });
  clients.push(client);
  return client;
}

async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await gw.http.post('/graphql').set('authorization', `Bearer ${admin}`).send({ query, variables });
  expect(response.body.errors).toBeUndefined();
  return response.body.data as T;
}

type Field = 'alertStateChanges' | 'auditStream';
interface Page<C> {
  endCursor: string;
  caughtUp: boolean;
  changes: C[];
}
type Result<C> = { data?: Record<string, Page<C>> | null; errors?: readonly unknown[] };

/** A subscription's pages as they come, every change in arrival order, and a way to wait for them. */
function follow<C>(field: Field, events: AsyncIterableIterator<Result<C>>) {
  const pages: Page<C>[] = [];
  const changes: C[] = [];
  const failed: unknown[] = [];
  void (async () => {
    try {
      for await (const result of events) {
        if (result.errors) failed.push(result.errors);
        else if (result.data) {
          pages.push(result.data[field]!);
          changes.push(...result.data[field]!.changes);
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
    /** Waits until `n` changes that `mine` accepts came. */
    mineCount: (mine: (change: C) => boolean, n: number, withinMs = 30_000) => until(() => changes.filter(mine).length >= n, withinMs, `${n} changes`),
    get cursor() {
      return pages.at(-1)!.endCursor;
    },
    stop: () => events.return?.(),
  };
}

interface AlertChange {
  cursor: string;
  ruleId: string;
  ruleName: string | null;
  kind: string;
  statusBefore: string | null;
  statusAfter: string | null;
  stateBefore: string | null;
  stateAfter: string | null;
  value: number | null;
  actor: string | null;
  at: string;
}
interface AuditEntry {
  cursor: string;
  record: {
    auditRecordId: string;
    requestId: string;
    actor: string;
    transport: string;
    apiId: string | null;
    operation: string;
    targetId: string | null;
    outcome: string;
    errorCode: string | null;
    at: string;
  };
}

const ALERT_STREAM = `subscription($after: String, $first: Int) {
  alertStateChanges(after: $after, first: $first) {
    endCursor caughtUp
    changes { cursor ruleId ruleName kind statusBefore statusAfter stateBefore stateAfter value actor at }
  }
}`;
const AUDIT_STREAM = `subscription($after: String, $first: Int) {
  auditStream(after: $after, first: $first) {
    endCursor caughtUp
    changes { cursor record { auditRecordId requestId actor transport apiId operation targetId outcome errorCode at } }
  }
}`;

/** A Live rule of the embedded evaluator, made through the API (its state row is made at INACTIVE). */
async function liveRule(name: string): Promise<string> {
  const created = await graphql<{ createAlertRule: { alertRule: { alertRuleId: string } } }>(
    'mutation($n: String!) { createAlertRule(input: { name: $n, category: "streams", metric: "vector(1)", operator: GT, thresholds: [5] }) { alertRule { alertRuleId } } }',
    { n: name },
  );
  const id = created.createAlertRule.alertRule.alertRuleId;
  await graphql('mutation($id: ID!) { publishAlertRule(id: $id) { alertRule { status } } }', { id });
  return id;
}

/**
 * One stream as the shared tests drive it: a burst of `count` changes, one transaction each, each
 * carrying its number 1..count; and which of the stream's changes are the burst's, with their numbers.
 */
interface StreamCase<C> {
  field: Field;
  query: string;
  burst(count: number): Promise<{ mine: (change: C) => boolean; numberOf: (change: C) => number; run: Promise<void> }>;
}

const alertCase: StreamCase<AlertChange> = {
  field: 'alertStateChanges',
  query: ALERT_STREAM,
  async burst(count) {
    const ruleId = await liveRule(unique('stream-rule'));
    // The rule's state goes INACTIVE → PENDING → FIRING → PENDING ..., the deciding value being the change's number.
    const run = (async () => {
      for (let n = 1; n <= count; n += 1) {
        await writer.query(`UPDATE alert_rule_states SET state = CASE WHEN state = 'pending' THEN 'firing' ELSE 'pending' END, last_value = $2 WHERE rule_id = $1`, [ruleId, n]);
      }
    })();
    return { mine: (change) => change.ruleId === ruleId && change.kind === 'STATE_CHANGED', numberOf: (change) => change.value!, run };
  },
};

const auditCase: StreamCase<AuditEntry> = {
  field: 'auditStream',
  query: AUDIT_STREAM,
  async burst(count) {
    const marker = unique('burst');
    const run = (async () => {
      for (let n = 1; n <= count; n += 1) {
        await writer.query(`INSERT INTO audit_records (request_id, actor, transport, operation, outcome) VALUES ($1, 'burst-writer', 'graphql', 'burst', 'success')`, [`${marker}:${n}`]);
      }
    })();
    return { mine: (entry) => entry.record.requestId.startsWith(`${marker}:`), numberOf: (entry) => Number(entry.record.requestId.slice(marker.length + 1)), run };
  },
};

/** The burst's changes among `changes` are its 1..count, each once, in order; the cursors all differ. */
function expectEveryChangeOnceInOrder<C extends { cursor: string }>(changes: C[], mine: (change: C) => boolean, numberOf: (change: C) => number, count: number): void {
  const burst = changes.filter(mine);
  expect(burst.map(numberOf)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  expect(new Set(burst.map((change) => change.cursor)).size).toBe(count);
}

describe.each([
  ['alertStateChanges', alertCase as StreamCase<{ cursor: string }>],
  ['auditStream', auditCase as StreamCase<{ cursor: string }>],
])('%s', (field, stream) => {
  it('over graphql-ws: a client that drops during 1,000 changes and resumes with its last cursor gets all 1,000 exactly once, in order', async () => {
    const firstClient = wsClient();
    const before = follow(stream.field, firstClient.iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { first: 50 } }));
    // The first page comes at once, empty: where the stream stands.
    await before.pagesCount(1);
    expect(before.pages[0]).toMatchObject({ changes: [], caughtUp: true });

    const { mine, numberOf, run } = await stream.burst(1_000);
    await before.mineCount(mine, 100, 30_000);
    // What the client held when it dropped (a page still queued in its iterator is not counted as seen).
    const cursor = before.cursor;
    const seen = before.changes.slice();
    await firstClient.dispose();
    const seenBefore = seen.filter(mine).length;
    expect(seenBefore).toBeLessThan(1_000);

    // Resumed while the writes go on (replay, then the tail) or after they ended (replay only).
    await sleep(200);
    const after = follow(stream.field, wsClient().iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { after: cursor, first: 50 } }));
    await run;
    await after.mineCount(mine, 1_000 - seenBefore, 30_000);
    await sleep(300);
    expectEveryChangeOnceInOrder([...seen, ...after.changes], mine, numberOf, 1_000);
    expect(after.pages.every((page) => page.changes.length <= 50)).toBe(true);
    expect(after.pages.at(-1)!.caughtUp).toBe(true);
    await after.stop();
  }, 90_000);

  it('over SSE: a client that drops during 1,000 changes resumes from its last cursor, and from Last-Event-ID (each event id being its endCursor)', async () => {
    const sse = createSseClient({ url: `${gw.url}/graphql/stream`, headers: { authorization: `Bearer ${admin}` }, retryAttempts: 0 });
    const before = follow(stream.field, sse.iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { first: 40 } }));
    await before.pagesCount(1);
    const { mine, numberOf, run } = await stream.burst(1_000);
    await before.mineCount(mine, 100, 30_000);
    const cursor = before.cursor;
    const seen = before.changes.slice();
    await before.stop();
    const seenBefore = seen.filter(mine).length;
    expect(seenBefore).toBeLessThan(1_000);

    const after = follow(stream.field, sse.iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { after: cursor, first: 40 } }));
    await run;
    await after.mineCount(mine, 1_000 - seenBefore, 30_000);
    await sleep(300);
    expectEveryChangeOnceInOrder([...seen, ...after.changes], mine, numberOf, 1_000);
    await after.stop();
    sse.dispose();

    // A reconnecting EventSource sends the last event's id: the stream resumes there, whatever `after` the request carries.
    const burstSeen = seen.filter(mine);
    const resumeFrom = burstSeen[9]!.cursor;
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'content-type': 'application/json', 'last-event-id': resumeFrom },
      body: JSON.stringify({ query: stream.query, variables: { first: 5 } }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!/(^|\n)event: next\n[^]*?\n\n/.test(text)) text += decoder.decode((await reader.read()).value, { stream: true });
    await reader.cancel();
    const event = /(?:^|\n\n)((?:id: .*\n)?event: next\n[^]*?)\n\n/.exec(text)![1]!;
    const data = JSON.parse(/^data: (.*)$/m.exec(event)![1]!) as { data: Record<string, Page<{ cursor: string }>> };
    const page = data.data[field]!;
    expect(page.changes.map(numberOf)).toEqual([11, 12, 13, 14, 15]);
    expect(/^id: (.*)$/m.exec(event)![1]).toBe(page.endCursor);
  }, 90_000);

  it("refuses a cursor older than the change log keeps with CHANGE_CURSOR_EXPIRED, and another stream's cursor with CHANGE_CURSOR_INVALID", async () => {
    const live = follow(stream.field, wsClient().iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { first: 10 } }));
    await live.pagesCount(1);
    const { mine, run } = await stream.burst(3);
    await run;
    await live.mineCount(mine, 3);
    const old = live.changes.filter(mine)[0]!.cursor;
    await live.stop();

    // Retention (as the background work runs it) deletes every change made before now: the cursor's change is gone.
    const store = createChangeLogStores(writer, 72)[stream.field];
    expect(await store.deleteBefore(new Date(Date.now() + 1_000))).toBeGreaterThanOrEqual(3);
    // A stream that started before retention ran and reads on from the old position is told, never
    // handed the changes after the gap as if none were missing (the page and the horizon are read together).
    await expect(store.after(positionOf(store.spec, old), 10)).rejects.toMatchObject({ code: 'CHANGE_CURSOR_EXPIRED' });
    await (
      await stream.burst(1)
    ).run;

    const expired = follow(stream.field, wsClient().iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { after: old } }));
    await expect(expired.pagesCount(1, 5_000)).rejects.toThrow(/"code":"CHANGE_CURSOR_EXPIRED"/);
    const message = JSON.stringify(expired.failed[0]);
    expect(message).toMatch(/older than the change log keeps \(CHANGE_LOG_RETENTION_HOURS=72\); the oldest change kept is from \d{4}-\d\d-\d\dT.*subscribe without after/);

    // A cursor of datasetChanges names a position in another log: refused, not read as this one's.
    const foreign = Buffer.from('dc:1').toString('base64url');
    const refused = follow(stream.field, wsClient().iterate<Record<string, Page<{ cursor: string }>>>({ query: stream.query, variables: { after: foreign } }));
    await expect(refused.pagesCount(1, 5_000)).rejects.toThrow(new RegExp(`is not a cursor of ${field}.*"code":"CHANGE_CURSOR_INVALID","responseCode":"BAD_REQUEST"`));

    // Over SSE the refusal is the response itself: 400 with the code.
    const response = await fetch(`${gw.url}/graphql/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: stream.query, variables: { after: old } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'CHANGE_CURSOR_EXPIRED' } }] });
  }, 60_000);
});

describe('what each change says', () => {
  it("alertStateChanges: a rule's creation, publication, evaluated states and retirement, each with before and after, by whom", async () => {
    const stream = follow<AlertChange>('alertStateChanges', wsClient().iterate({ query: ALERT_STREAM }));
    await stream.pagesCount(1);
    const name = unique('life-rule');
    const ruleId = await liveRule(name);
    await writer.query(`UPDATE alert_rule_states SET state = 'pending', last_value = 7 WHERE rule_id = $1`, [ruleId]);
    // An evaluation that leaves the state as it was is no change.
    await writer.query(`UPDATE alert_rule_states SET last_evaluated_at = now() WHERE rule_id = $1`, [ruleId]);
    await writer.query(`UPDATE alert_rule_states SET state = 'firing', last_value = 8 WHERE rule_id = $1`, [ruleId]);
    // Retired while firing: it stops being evaluated (its state goes), then its status changes.
    await graphql('mutation($id: ID!) { deleteAlertRule(id: $id) { id } }', { id: ruleId });
    const mine = (change: AlertChange) => change.ruleId === ruleId;
    await stream.mineCount(mine, 6);
    await sleep(200);
    expect(
      stream.changes
        .filter(mine)
        .map(({ kind, statusBefore, statusAfter, stateBefore, stateAfter, value, actor, ruleName }) => ({ kind, statusBefore, statusAfter, stateBefore, stateAfter, value, actor, ruleName })),
    ).toEqual([
      { kind: 'CREATED', statusBefore: null, statusAfter: 'DRAFT', stateBefore: null, stateAfter: null, value: null, actor: 'stream-admin', ruleName: name },
      { kind: 'STATUS_CHANGED', statusBefore: 'DRAFT', statusAfter: 'LIVE', stateBefore: null, stateAfter: null, value: null, actor: 'stream-admin', ruleName: name },
      { kind: 'STATE_CHANGED', statusBefore: null, statusAfter: null, stateBefore: 'INACTIVE', stateAfter: 'PENDING', value: 7, actor: null, ruleName: name },
      { kind: 'STATE_CHANGED', statusBefore: null, statusAfter: null, stateBefore: 'PENDING', stateAfter: 'FIRING', value: 8, actor: null, ruleName: name },
      { kind: 'STATE_CHANGED', statusBefore: null, statusAfter: null, stateBefore: 'FIRING', stateAfter: null, value: null, actor: null, ruleName: name },
      { kind: 'STATUS_CHANGED', statusBefore: 'LIVE', statusAfter: 'RETIRED', stateBefore: null, stateAfter: null, value: null, actor: 'stream-admin', ruleName: name },
    ]);
    await stream.stop();
  }, 30_000);

  it('auditStream: each audit record as it is written, as auditRecords shows it, whichever the outcome', async () => {
    const stream = follow<AuditEntry>('auditStream', wsClient().iterate({ query: AUDIT_STREAM }));
    await stream.pagesCount(1);
    const name = unique('audited-rule');
    await graphql('mutation($n: String!) { createAlertRule(input: { name: $n, category: "streams", metric: "up", operator: GT, thresholds: [1] }) { alertRule { alertRuleId } } }', { n: name });
    // A mutation that fails is audited too.
    const failed = await gw.http
      .post('/graphql')
      .set('authorization', `Bearer ${admin}`)
      .send({ query: 'mutation { publishAlertRule(id: "00000000-0000-4000-8000-000000000000") { alertRule { status } } }' });
    expect(failed.body.errors?.[0]?.extensions?.code).toBeDefined();
    await stream.mineCount((entry) => entry.record.actor === 'stream-admin', 2);
    await sleep(200);
    const streamed = stream.changes.filter((entry) => entry.record.actor === 'stream-admin').map((entry) => entry.record);
    const trail = await graphql<{ auditRecords: { nodes: AuditEntry['record'][] } }>(
      'query { auditRecords(first: 2, where: { actor: { eq: "stream-admin" } }) { nodes { auditRecordId requestId actor transport apiId operation targetId outcome errorCode at } } }',
    );
    // The trail lists newest first; the stream delivers in the order they were written.
    expect(streamed).toEqual([...trail.auditRecords.nodes].reverse());
    expect(streamed.map(({ operation, outcome, transport }) => ({ operation, outcome, transport }))).toEqual([
      { operation: 'createAlertRule', outcome: 'SUCCESS', transport: 'GRAPHQL' },
      { operation: 'publishAlertRule', outcome: 'FAILURE', transport: 'GRAPHQL' },
    ]);
    await stream.stop();
  }, 30_000);
});

describe('the shared tail', () => {
  /** Scans of the audit stream's table since the statistics began (PostgreSQL's own count of reads). */
  async function scans(steadyMs = 2_000): Promise<number> {
    // A backend reports its statistics at most once a second, and one that goes idle with some still
    // pending only after PostgreSQL's idle interval (10 s): read until the figure has held for
    // `steadyMs`, so that scans made before a measurement are not counted in it.
    const read = async () =>
      Number((await writer.query<{ scans: string }>(`SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans FROM pg_stat_user_tables WHERE relname = 'audit_stream'`)).rows[0]!.scans);
    let last = await read();
    for (let steady = 0, waited = 0; steady < steadyMs && waited < steadyMs + 15_000; waited += 500) {
      await sleep(500);
      const now = await read();
      steady = now === last ? steady + 500 : 0;
      last = now;
    }
    return last;
  }

  function metric(text: string, name: string): number {
    return Number(new RegExp(`^${name}\\{stream="auditStream"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  }

  it('reads each batch of new changes once for all 80 subscribers, those resuming from an older cursor getting every change once, in order', async () => {
    const SUBSCRIBERS = 60;
    const LATE = 20;
    const CHANGES = 200;
    const connections = [wsClient(), wsClient()];
    const start = follow<AuditEntry>('auditStream', connections[0]!.iterate({ query: AUDIT_STREAM, variables: { first: 100 } }));
    await start.pagesCount(1);
    const from = start.cursor;
    // Each asks its own page size: subscribers asking the very same stream share one evaluation (and are one reader of the tail).
    const early = Array.from({ length: SUBSCRIBERS }, (_, i) => follow<AuditEntry>('auditStream', connections[i % 2]!.iterate({ query: AUDIT_STREAM, variables: { after: from, first: 10 + i } })));
    await Promise.all(early.map((each) => each.pagesCount(1)));
    // Every statement before here reported (the subscribers' starts): only what follows is counted.
    const scansBefore = await scans(11_000);
    const readsBefore = metric((await gw.http.get('/metrics')).text, 'gateway_change_log_tail_reads_total');

    const { mine, numberOf, run } = await auditCase.burst(CHANGES);
    // Halfway through, more subscribers come from the cursor before the burst: they read their backlog on their own, then join.
    await early[0]!.mineCount(mine, CHANGES / 2);
    const late = Array.from({ length: LATE }, (_, i) => follow<AuditEntry>('auditStream', connections[i % 2]!.iterate({ query: AUDIT_STREAM, variables: { after: from, first: 70 + i } })));
    await run;
    for (const each of [start, ...early, ...late]) await each.mineCount(mine, CHANGES);
    await sleep(300);
    for (const each of [start, ...early, ...late]) expectEveryChangeOnceInOrder(each.changes, mine, numberOf, CHANGES);

    const metrics = (await gw.http.get('/metrics')).text;
    expect(metric(metrics, 'gateway_change_stream_readers')).toBe(1 + SUBSCRIBERS + LATE);
    // At most one reading per announced change (one per commit here), whatever the number of subscribers.
    const reads = metric(metrics, 'gateway_change_log_tail_reads_total') - readsBefore;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(CHANGES);
    // The database agrees: the tail's readings, plus each late subscriber's start (bounds) and backlog
    // pages; a reading per subscriber and change would be more than 16,000.
    expect((await scans()) - scansBefore).toBeLessThan(CHANGES + LATE * (2 + 2 * Math.ceil(CHANGES / 70)) + 50);
    for (const each of [start, ...early, ...late]) await each.stop();
  }, 120_000);
});
