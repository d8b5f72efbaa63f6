// Three copies of the gateway on one PostgreSQL behind a real HAProxy (Debian package `haproxy`)
// that routes on /readyz, as deploy/ describes: what one copy writes the others read at once, a
// caller's rate limit holds across copies, and a rolling restart (SIGTERM each copy in turn, then
// start it again) under steady mixed load fails no request.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { envelope, SQL_QUERY } from '../support/api.js';
import { JWT_ENV, token } from '../support/auth.js';
import { buildGateway, exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { createTestDatabase } from '../support/gateway.js';
import { HAPROXY, startHaProxy, type HaProxy } from '../support/haproxy.js';
import { describeWhen } from '../support/skip.js';
import { findFreePort } from '../../src/platform/database/embedded.js';

const BURST = 5;
const COPY_ENV = {
  ...JWT_ENV,
  // A budget that refills once in 1,000 s: a caller gets its burst and nothing more during the test.
  RATE_LIMIT_RPS: '0.001',
  RATE_LIMIT_BURST: String(BURST),
  // Longer than HAProxy takes to see /readyz fail twice (CHECK_INTERVAL_MS × fall 2).
  SHUTDOWN_DRAIN_SECONDS: '1',
  METRICS_SAMPLE_INTERVAL_SECONDS: '0',
  ALERT_EVALUATION_TICK_SECONDS: '0',
  LOG_LEVEL: 'warn',
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let ports: number[] = [];
const copies: ChildGateway[] = [];
let proxy: HaProxy;

beforeAll(async () => {
  if (!HAPROXY) return;
  buildGateway();
  database = await createTestDatabase();
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
  await database?.drop();
});

/** A fresh caller per call unless named: each has its own budget. */
let callers = 0;
const bearer = async (sub = `caller-${(callers += 1)}`) => ({ authorization: `Bearer ${await token({ sub })}`, 'content-type': 'application/json' });

const readTemplate = async (base: string, id: string, sub?: string) => fetch(`${base}/v2/template/read/${id}`, { headers: await bearer(sub) });

describeWhen(HAPROXY, 'haproxy is not installed (Debian package haproxy; .ci/run installs it)')('three copies behind HAProxy on one PostgreSQL', () => {
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
