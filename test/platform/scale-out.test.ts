// Three copies of the gateway on one PostgreSQL behind a real HAProxy (Debian package `haproxy`)
// that routes on /readyz, as deploy/ describes: what one copy writes the others read at once, a
// caller's rate limit holds across copies, every copy answers the same ingestion counts, each alert
// rule is evaluated once per interval and each sampling of the shared series written once (not once
// per copy), a copy killed with SIGKILL under steady ingestion loses no acknowledged event and hands
// its sampler lease on, and a rolling restart (SIGTERM each copy in turn, then start it again) under
// steady mixed load fails no request.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest from 'supertest';
import { envelope, SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { buildGateway, exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { seedDataset, sleep } from '../support/datasets.js';
import { createTestDatabase, type TestGateway } from '../support/gateway.js';
import { HAPROXY, startHaProxy, type HaProxy } from '../support/haproxy.js';
import { describeWhenInstalled } from '../support/skip.js';
import { findFreePort } from '../../src/platform/database/embedded.js';

const BURST = 5;
const COPY_ENV = {
  ...JWT_ENV,
  // A budget that refills once in 1,000 s: a caller gets its burst and nothing more during the test.
  RATE_LIMIT_RPS: '0.001',
  RATE_LIMIT_BURST: String(BURST),
  // Longer than HAProxy takes to see /readyz fail twice (CHECK_INTERVAL_MS × fall 2).
  SHUTDOWN_DRAIN_SECONDS: '1',
  // Ingestion has a budget of its own; the kill test's workers must not run out of it.
  RATE_LIMIT_INGEST_RPS: '1000',
  METRICS_SAMPLE_INTERVAL_SECONDS: '1',
  ALERT_EVALUATION_TICK_SECONDS: '1',
  LOG_LEVEL: 'warn',
};
const DATASET = 'scale_events';
/** The pause between one load worker's requests. */
const LOAD_PAUSE_MS = 25;
const BATCH = 20;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let ports: number[] = [];
const copies: ChildGateway[] = [];
let proxy: HaProxy;
let pool: pg.Pool;

beforeAll(async () => {
  if (!HAPROXY) return;
  buildGateway();
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  ports = [await findFreePort(), await findFreePort(), await findFreePort()];
  // One after another: starting together they only compete for the same cores.
  for (const port of ports) copies.push(await startChildGateway(database.url, { ...COPY_ENV, PORT: String(port) }, { compiled: true }));
  proxy = await startHaProxy(
    await findFreePort(),
    copies.map((copy) => copy.url),
  );
}, 240_000);
afterAll(async () => {
  await proxy?.stop();
  for (const copy of copies) if (copy.process.exitCode === null) copy.process.kill('SIGKILL');
  await Promise.all(copies.map((copy) => exited(copy.process)));
  await pool?.end();
  await database?.drop();
});

/** A fresh caller per call unless named: each has its own budget. */
let callers = 0;
const bearer = async (sub = `caller-${(callers += 1)}`) => ({ authorization: `Bearer ${await token({ sub })}`, 'content-type': 'application/json' });

/** A counter of this copy's GET /metrics (a series without labels). */
async function counter(copy: ChildGateway, name: string): Promise<number> {
  const text = await (await fetch(`${copy.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

/** One ingest call of BATCH events under `msgid` through `base`; true when acknowledged (200). */
async function ingest(base: string, msgid: string, headers: Record<string, string>): Promise<boolean> {
  const data = Array.from({ length: BATCH }, (_, index) => ({ id: `${msgid}-${index}` }));
  const response = await fetch(`${base}/v2/data/in/${DATASET}`, { method: 'POST', headers, body: JSON.stringify({ ...envelope('api.data.in', undefined, msgid), data }) });
  const body = (await response.json()) as { result?: { message?: string } };
  return response.status === 200 && body.result?.message === 'Data ingested successfully';
}

const readTemplate = async (base: string, id: string, sub?: string) => fetch(`${base}/v2/template/read/${id}`, { headers: await bearer(sub) });

describeWhenInstalled(HAPROXY, 'haproxy')('three copies behind HAProxy on one PostgreSQL', () => {
  it('reads through the other copies what one copy wrote, at once', async () => {
    const [first, second, third] = copies.map((copy) => copy.url) as [string, string, string];
    const created = await fetch(`${first}/v2/template/create`, {
      method: 'POST',
      headers: await bearer(),
      body: JSON.stringify(envelope('api.query.template.create', { template_name: 'Scale Out', query_type: 'sql', query: SQL_QUERY })),
    });
    expect(created.status).toBe(200);
    for (const other of [second, third]) expect(((await (await readTemplate(other, 'scale_out')).json()) as { result: { query: string } }).result.query).toBe(SQL_QUERY);
    // Now cached on every copy; a change through one copy is announced to the others.
    const changed = SQL_QUERY.replace('LIMIT', 'ORDER BY __time LIMIT');
    const updated = await fetch(`${second}/v2/template/update/scale_out`, {
      method: 'PATCH',
      headers: await bearer(),
      body: JSON.stringify(envelope('api.query.template.update', { query_type: 'sql', query: changed })),
    });
    expect(updated.status).toBe(200);
    for (const other of [first, third]) {
      let query: string | undefined;
      for (const deadline = Date.now() + 1_000; query !== changed && Date.now() < deadline;)
        query = ((await (await readTemplate(other, 'scale_out')).json()) as { result: { query: string } }).result.query;
      expect(query).toBe(changed);
    }
  }, 30_000);

  it("holds a caller's rate limit across copies: burst + 1 calls spread over the three give exactly one 429, the last", async () => {
    const statuses: number[] = [];
    for (let call = 0; call <= BURST; call += 1) statuses.push((await readTemplate(proxy.url, 'scale_out', 'one-budget')).status);
    expect(statuses).toEqual([...Array<number>(BURST).fill(200), 429]);
  }, 30_000);

  it('answers the same ingestion counts on every copy, whichever copies took the calls', async () => {
    await seedDataset({ http: supertest.agent(proxy.url).set(await bearer()) } as unknown as TestGateway, DATASET, 'Live', {
      dedup_config: { drop_duplicates: false },
      validation_config: { validate: false },
    });
    const headers = await bearer('counted-ingest');
    // Round robin: the six calls reach all three copies.
    for (let call = 0; call < 6; call += 1) expect(await ingest(proxy.url, `counted-${call}`, headers)).toBe(true);
    const query = `{ ingestionStats(datasetId: "${DATASET}") { requests received processed } dataset(id: "${DATASET}") { ingestion { requests received } } }`;
    const answers = await Promise.all(
      copies.map(async (copy) => (await (await fetch(`${copy.url}/graphql`, { method: 'POST', headers: await bearer(), body: JSON.stringify({ query }) })).json()) as { data: unknown }),
    );
    const expected = { ingestionStats: { requests: 6, received: 6 * BATCH, processed: 6 * BATCH }, dataset: { ingestion: { requests: 6, received: 6 * BATCH } } };
    expect(answers.map((answer) => answer.data)).toEqual([expected, expected, expected]);
  }, 30_000);

  it('evaluates an alert rule once per interval and writes each sampling of the shared series once, not once per copy', async () => {
    const headers = await bearer();
    const created = await fetch(`${proxy.url}/alerts/v1/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: `Scale out ${randomUUID()}`,
        manager: 'embedded',
        description: 'Ingest calls seen',
        category: 'processing',
        severity: 'warning',
        frequency: '10s',
        interval: '0s',
        metadata: { queryBuilderContext: { metric: `sum(gateway_ingestion_requests_total{dataset="${DATASET}"})`, operator: 'gt', threshold: [0] } },
        notification: { channels: [] },
        context: { alertType: 'CUSTOM' },
      }),
    });
    const id = ((await created.json()) as { result: { id: string } }).result.id;
    expect((await fetch(`${proxy.url}/alerts/v1/publish/${id}`, { headers })).status).toBe(200);
    // Held back until every copy's counters are read, then due at once: each copy looks every
    // second, and the first to claim it moves it 10 s on.
    await pool.query("UPDATE alert_rule_states SET next_evaluation_at = now() + interval '1 hour' WHERE rule_id = $1", [id]);
    await sleep(1_500);
    const evaluationsBefore = await Promise.all(copies.map((copy) => counter(copy, 'gateway_alert_rule_evaluations_total')));
    const samplingsBefore = await Promise.all(copies.map((copy) => counter(copy, 'gateway_metrics_shared_samplings_total')));
    await pool.query('UPDATE alert_rule_states SET next_evaluation_at = now(), last_evaluated_at = NULL WHERE rule_id = $1', [id]);
    let evaluated: Date | null = null;
    for (const deadline = Date.now() + 15_000; evaluated === null && Date.now() < deadline; await sleep(200))
      evaluated = (await pool.query<{ at: Date | null }>('SELECT last_evaluated_at AS at FROM alert_rule_states WHERE rule_id = $1', [id])).rows[0]!.at;
    expect(evaluated).not.toBeNull();
    // Three more ticks of every copy: none evaluates the rule again within its interval.
    await sleep(3_000);
    const [evaluationsAfter, samplingsAfter] = [
      await Promise.all(copies.map((copy) => counter(copy, 'gateway_alert_rule_evaluations_total'))),
      await Promise.all(copies.map((copy) => counter(copy, 'gateway_metrics_shared_samplings_total'))),
    ];
    expect(evaluationsAfter.reduce((sum, n) => sum + n, 0) - evaluationsBefore.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect((await pool.query<{ at: Date }>('SELECT last_evaluated_at AS at FROM alert_rule_states WHERE rule_id = $1', [id])).rows[0]!.at).toEqual(evaluated);
    // The shared series were sampled meanwhile, by one copy only.
    expect(samplingsAfter.map((after, index) => after > samplingsBefore[index]!).filter(Boolean)).toHaveLength(1);
  }, 45_000);

  it('loses no acknowledged event when a copy is killed (SIGKILL) under steady ingestion, and its sampler lease moves to another copy', async () => {
    const samplings = await Promise.all(copies.map((copy) => counter(copy, 'gateway_metrics_shared_samplings_total')));
    // The lease holder is the copy that wrote the shared samplings.
    const holderIndex = samplings.findIndex((count) => count > 0);
    expect(holderIndex).toBeGreaterThanOrEqual(0);
    const holder = copies[holderIndex]!;
    let stop = false;
    const acknowledged: string[] = [];
    const worker = async (index: number) => {
      const headers = await bearer(`kill-ingest-${index}`);
      while (!stop) {
        const msgid = `kill-${randomUUID()}`;
        // A call cut off with the killed copy is not acknowledged; it is the caller's to send again.
        if (await ingest(proxy.url, msgid, headers).catch(() => false)) acknowledged.push(msgid);
        await sleep(LOAD_PAUSE_MS);
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    await sleep(1_000);
    holder.process.kill('SIGKILL');
    await exited(holder.process);
    const atKill = acknowledged.length;
    await sleep(1_500);
    stop = true;
    await Promise.all(workers);
    expect(atKill).toBeGreaterThan(0);
    expect(acknowledged.length).toBeGreaterThan(atKill);

    const stored = await pool.query<{ msgid: string; events: number }>("SELECT msgid, count(DISTINCT payload->>'id')::int AS events FROM events WHERE msgid = ANY($1::text[]) GROUP BY msgid", [
      acknowledged,
    ]);
    const storedEvents = new Map(stored.rows.map((row) => [row.msgid, row.events]));
    expect(acknowledged.filter((msgid) => storedEvents.get(msgid) !== BATCH)).toEqual([]);

    // Another copy takes the lease at its next sampling: its shared samplings start counting.
    const survivors = copies.filter((copy) => copy !== holder);
    const survivorsBefore = await Promise.all(survivors.map((copy) => counter(copy, 'gateway_metrics_shared_samplings_total')));
    let increased: boolean[] = [];
    for (const deadline = Date.now() + 15_000; !increased.some(Boolean) && Date.now() < deadline; await sleep(200)) {
      increased = (await Promise.all(survivors.map((copy) => counter(copy, 'gateway_metrics_shared_samplings_total')))).map((count, index) => count > survivorsBefore[index]!);
    }
    expect(increased.filter(Boolean)).toHaveLength(1);

    // Back to three copies for the rolling restart.
    copies[holderIndex] = await startChildGateway(database.url, { ...COPY_ENV, PORT: String(ports[holderIndex]) }, { compiled: true });
    await sleep(1_000);
  }, 90_000);

  it('restarts each copy in turn (SIGTERM, drain, start again) under steady mixed load without a failed request', async () => {
    let stop = false;
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    const load = async (worker: number) => {
      for (let call = 0; !stop; call += 1) {
        const kind = (worker + call) % 3;
        const request =
          kind === 0
            ? fetch(`${proxy.url}/v2/template/read/scale_out`, { headers: await bearer() })
            : kind === 1
              ? fetch(`${proxy.url}/graphql`, { method: 'POST', headers: await bearer(), body: JSON.stringify({ query: '{ templates { totalCount } }' }) })
              : fetch(`${proxy.url}/v2/template/list`, { method: 'POST', headers: await bearer(), body: JSON.stringify(envelope('api.query.template.list', {})) });
        await request.then(
          async (response) => {
            const body = await response.text();
            count(response.status === 200 && !body.includes('"errors"') ? 'ok' : `${response.status} ${body.slice(0, 200)}`);
          },
          (error: Error) => count(`${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}`),
        );
        // Steady, not flat out: ~40 requests a second per worker keep every moment of a restart
        // under load, and leave the cores to the copies starting (and to the suite's other worker).
        await sleep(LOAD_PAUSE_MS);
      }
    };
    const workers = [0, 1, 2, 3].map(load);
    for (let index = 0; index < copies.length; index += 1) {
      const copy = copies[index]!;
      copy.process.kill('SIGTERM');
      expect(await exited(copy.process)).toBe(0);
      copies[index] = await startChildGateway(database.url, { ...COPY_ENV, PORT: String(ports[index]) }, { compiled: true });
      // HAProxy takes it back after two good checks.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    stop = true;
    await Promise.all(workers);
    const failures = [...outcomes].filter(([outcome]) => outcome !== 'ok');
    expect(failures).toEqual([]);
    expect(outcomes.get('ok')).toBeGreaterThan(30);
  }, 240_000);
});
