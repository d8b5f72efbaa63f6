// Fault test: PostgreSQL stops under a steady load and comes back. The gateway runs on a cluster
// of its own (embedded PostgreSQL in a temporary folder), so stopping it touches no other test file.
// While it is down, calls answer quickly with a 503 DATABASE_UNAVAILABLE envelope (never a 500,
// never a hang) and /readyz says 503; once it is back, the same gateway process serves again, and
// every ingest it acknowledged is in the event store.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/platform/database/embedded.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { envelope } from '../support/api.js';
import { seedDataset, sleep } from '../support/datasets.js';
import type { TestGateway } from '../support/gateway.js';

const DATASET = 'outage_events';
const WORKERS = 4;
/** Longest any answer may take, outage or not (the pool gives up connecting after 5 s). */
const ANSWER_WITHIN_MS = 8_000;

let folder: string;
let cluster: EmbeddedPostgresHandle;
let gateway: Gateway;

async function startCluster(port: number): Promise<EmbeddedPostgresHandle> {
  return startEmbeddedPostgres({ dataDir: path.join(folder, 'postgres'), port, database: 'outage' });
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'gateway-outage-'));
  await chmod(folder, 0o755);
  cluster = await startCluster(0);
  const config = loadConfig({ DATABASE_URL: cluster.url, DATA_DIR: folder, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '4' });
  gateway = await startGateway(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  await seedDataset({ http: supertest(gateway.url) } as TestGateway, DATASET, 'Live');
}, 90_000);

afterAll(async () => {
  await gateway?.stop().catch(() => undefined);
  await cluster?.stop().catch(() => undefined);
  await rm(folder, { recursive: true, force: true });
});

interface Outcome {
  phase: 'before' | 'down' | 'after';
  kind: 'ingest' | 'list';
  status: number;
  code?: string;
  msgid: string;
  ms: number;
  envelopeOk: boolean;
}

describe('the database stopping and coming back under load', () => {
  it('answers 503 envelopes during the outage, recovers without a restart, and loses no acknowledged ingest', async () => {
    const http = supertest(gateway.url);
    let phase: Outcome['phase'] = 'before';
    let running = true;
    let sequence = 0;
    const outcomes: Outcome[] = [];

    const worker = async (n: number) => {
      while (running) {
        const msgid = `w${n}-${(sequence += 1)}`;
        const kind: Outcome['kind'] = sequence % 3 === 0 ? 'list' : 'ingest';
        const started = Date.now();
        const calledIn = phase;
        const response =
          kind === 'ingest'
            ? await http
                .post(`/v2/data/in/${DATASET}`)
                .timeout(ANSWER_WITHIN_MS)
                .send({ id: 'api.data.in', ver: 'v2', ts: new Date().toISOString(), params: { msgid }, data: { id: msgid, ts: new Date().toISOString(), amount: 1 } })
            : await http.post('/v2/datasets/list').timeout(ANSWER_WITHIN_MS).send(envelope('api.datasets.list', {}));
        const body = response.body;
        outcomes.push({
          phase: calledIn === phase ? phase : 'down', // a call that straddled a phase change counts as outage
          kind,
          status: response.status,
          code: body?.error?.code,
          msgid,
          ms: Date.now() - started,
          envelopeOk: typeof body?.id === 'string' && (response.status === 200 ? body.params?.status === 'SUCCESS' : body.params?.status === 'FAILED' && body.error?.trace === ''),
        });
        await sleep(20);
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));

    // Served before the outage: a few calls answered (a fresh gateway's first ones may take more than
    // a second on a loaded machine), at least 1 s of load, at most 15 s.
    const loadStarted = Date.now();
    while ((Date.now() - loadStarted < 1_000 || outcomes.filter((o) => o.phase === 'before').length < 3) && Date.now() - loadStarted < 15_000) await sleep(50);
    phase = 'down';
    const port = cluster.port;
    await cluster.stop();
    await sleep(3_000);
    const readyWhileDown = await http.get('/readyz');
    cluster = await startCluster(port);
    // Let the pool notice: the first calls after the restart may still meet dead connections.
    await sleep(1_500);
    phase = 'after';
    await sleep(2_000);
    running = false;
    await load;

    const byPhase = (p: Outcome['phase']) => outcomes.filter((o) => o.phase === p);
    // Nothing ever answered 500, nothing was malformed, nothing took longer than the bound.
    expect(outcomes.filter((o) => o.status >= 500 && o.status !== 503)).toEqual([]);
    expect(outcomes.filter((o) => !o.envelopeOk)).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(ANSWER_WITHIN_MS);
    // Before: served. Down: 503 DATABASE_UNAVAILABLE (and /readyz 503). After: served again.
    expect(byPhase('before').length).toBeGreaterThan(0);
    expect(byPhase('before').every((o) => o.status === 200)).toBe(true);
    const down = byPhase('down');
    expect(down.filter((o) => o.status === 503).length).toBeGreaterThan(0);
    expect(down.filter((o) => o.status === 503).every((o) => o.code === 'DATABASE_UNAVAILABLE')).toBe(true);
    expect(readyWhileDown.status).toBe(503);
    const after = byPhase('after');
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((o) => o.status !== 200)).toEqual([]);
    expect((await http.get('/readyz')).status).toBe(200);

    // Every acknowledged ingest is stored; a refused one may or may not be (the client retries it).
    const acknowledged = outcomes.filter((o) => o.kind === 'ingest' && o.status === 200).map((o) => o.msgid);
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const stored = await client.query<{ msgid: string }>('SELECT DISTINCT msgid FROM events WHERE dataset_id = $1', [DATASET]);
      const storedIds = new Set(stored.rows.map((row) => row.msgid));
      expect(acknowledged.filter((msgid) => !storedIds.has(msgid))).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(10);
    } finally {
      await client.end();
    }
    // The figures, on request (TEST_VERBOSE=1): a green run prints its summary alone.
    if (process.env.TEST_VERBOSE)
      console.log(
        `outage: ${outcomes.length} calls; before ${byPhase('before').length} (all 200); down ${down.length} ` +
          `(${down.filter((o) => o.status === 503).length} × 503, ${down.filter((o) => o.status === 200).length} × 200); after ${after.length} (all 200); ` +
          `slowest answer ${Math.max(...outcomes.map((o) => o.ms))} ms; ${acknowledged.length} acknowledged ingests, all stored`,
      );
  }, 90_000);
});
