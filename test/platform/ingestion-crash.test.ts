// Crash test of the embedded event store (issue 5): the gateway runs as a child process, takes a
// stream of batch ingests, and is killed with SIGKILL in the middle of it. After a restart on the
// same database, every event of every acknowledged request is stored, and no request left a
// partial batch (each msgid has all of its events or none).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { envelope } from '../support/api.js';
import { exited, startChildGateway } from '../support/child-gateway.js';
import { seedDataset, sleep } from '../support/datasets.js';
import { createTestDatabase, type TestGateway } from '../support/gateway.js';

const DATASET = 'crash_events';
const BATCH = 100;
const CONCURRENCY = 4;
const KILL_AFTER_MS = 1_000;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await database?.drop();
});

function batchFor(msgid: string): Record<string, unknown>[] {
  return Array.from({ length: BATCH }, (_, i) => ({ id: `${msgid}-${i}`, msgid, i, ts: new Date().toISOString() }));
}

describe('the gateway killed in the middle of a stream of batch ingests', () => {
  it('keeps every acknowledged event and leaves no partial batch after a restart', async () => {
    const first = await startChildGateway(database.url);
    children.push(first.process);
    await seedDataset({ http: supertest(first.url) } as TestGateway, DATASET, 'Live', {
      dedup_config: { drop_duplicates: false },
      validation_config: { validate: false },
    });

    const sent: string[] = [];
    const acknowledged: string[] = [];
    const answeredOtherwise: string[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const msgid = `crash-${randomUUID()}`;
        sent.push(msgid);
        try {
          const response = await fetch(`${first.url}/v2/data/in/${DATASET}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ ...envelope('api.data.in', undefined, msgid), data: batchFor(msgid) }),
          });
          const body = (await response.json()) as { result?: { message?: string } };
          if (response.status === 200 && body.result?.message === 'Data ingested successfully') acknowledged.push(msgid);
          else answeredOtherwise.push(msgid);
        } catch {
          // The connection died with the gateway: this request was not acknowledged.
        }
      }
    };
    const workers = Array.from({ length: CONCURRENCY }, () => worker());
    await sleep(KILL_AFTER_MS);
    const inFlight = sent.length - acknowledged.length - answeredOtherwise.length;
    first.process.kill('SIGKILL');
    stop = true;
    await exited(first.process);
    await Promise.all(workers);

    // The kill really landed mid-stream: requests had been acknowledged and others were still open.
    expect(answeredOtherwise).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(inFlight).toBeGreaterThan(0);

    const second = await startChildGateway(database.url);
    children.push(second.process);
    const counts = await fetchCounts();
    // Every event of every acknowledged request is there ...
    expect(acknowledged.filter((msgid) => counts.get(msgid) !== BATCH)).toEqual([]);
    // ... and every request has all of its events or none.
    expect([...counts].filter(([, count]) => count !== BATCH)).toEqual([]);
    expect([...counts.keys()].filter((msgid) => !sent.includes(msgid))).toEqual([]);

    // The restarted gateway takes events again.
    const msgid = `after-${randomUUID()}`;
    const again = await supertest(second.url)
      .post(`/v2/data/in/${DATASET}`)
      .send({ ...envelope('api.data.in', undefined, msgid), data: batchFor(msgid) });
    expect(again.status).toBe(200);
    expect((await fetchCounts()).get(msgid)).toBe(BATCH);

    second.process.kill('SIGKILL');
    await exited(second.process);
  }, 60_000);
});

/** Events stored per msgid for the crash dataset. */
async function fetchCounts(): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const rows = await client.query<{ msgid: string; n: number }>('SELECT msgid, count(*)::int AS n FROM events WHERE dataset_id = $1 GROUP BY msgid', [DATASET]);
    return new Map(rows.rows.map((row) => [row.msgid, row.n]));
  } finally {
    await client.end();
  }
}
