// REQUEST_TIMEOUT_MS bounds every API request on both transports: a request stuck behind a slow
// downstream or a database lock is answered 503 REQUEST_TIMEOUT in the transport's failure shape,
// the connection and the gateway stay usable, the handler's late answer is dropped without a
// crash or an error, and a write that was still running completes whole (as the message warns).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { envelope, SQL_QUERY } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';
import { lineCollector } from '../support/log-lines.js';

const TIMEOUT_MS = 400;
const PII_API = 'api.data.analyze.pii';
const CREATE_API = 'api.query.template.create';

let gw: TestGateway;
let slowDetector: HttpStub;
const logs = lineCollector();

beforeAll(async () => {
  slowDetector = await startHttpStub();
  // The detector answers only after the gateway has given up on the request (but well within its own timeout).
  slowDetector.answer = () => ({ status: 200, body: [], delayMs: 1_200 });
  gw = await startTestGateway({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), PII_SERVICE_URL: slowDetector.url, PII_SERVICE_TIMEOUT_MS: '10000' }, { logStream: logs.stream });
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  await slowDetector?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lines that would mean the late answer hurt: an error logged other than the 503 request lines themselves. */
const troubleLines = () => logs.lines.filter((line) => (line.level >= 50 && line.msg !== 'request failed') || line.err !== undefined || /unhandled|unexpected/i.test(String(line.msg)));

describe('a request that outlives REQUEST_TIMEOUT_MS', () => {
  it('gets the REST failure envelope with REQUEST_TIMEOUT after the timeout, not the late result', async () => {
    const started = Date.now();
    const response = await gw.http.post('/v2/data/analyze/pii').send(envelope(PII_API, { dataset_id: 'orders', data: [{ email: 'a@b.example' }] }, 'slow-1'));
    const elapsed = Date.now() - started;
    expect({ status: response.status, code: response.body.error?.code, responseCode: response.body.responseCode, id: response.body.id, msgid: response.body.params?.msgid }).toEqual({
      status: 503,
      code: 'REQUEST_TIMEOUT',
      responseCode: 'SERVICE_UNAVAILABLE',
      id: PII_API,
      msgid: 'slow-1',
    });
    expect(response.body.error.message).toMatch(/did not finish within 400 ms \(REQUEST_TIMEOUT_MS\).*may still take effect/);
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(1_100);
  });

  it('gets a GraphQL error with REQUEST_TIMEOUT on /graphql', async () => {
    const response = await gw.http
      .post('/graphql')
      .set('content-type', 'application/json')
      .send({ query: 'query Slow($records: [JSON!]!) { analyzePii(datasetId: "orders", records: $records) { field } }', variables: { records: [{ email: 'a@b.example' }] } });
    expect(response.status).toBe(503);
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors).toEqual([{ message: expect.stringMatching(/REQUEST_TIMEOUT_MS/), extensions: { code: 'REQUEST_TIMEOUT', responseCode: 'SERVICE_UNAVAILABLE' } }]);
  });

  it('leaves the gateway well: the late answers are dropped quietly and the next calls succeed', async () => {
    const agent = gw.http;
    const timedOut = await agent.post('/v2/data/analyze/pii').send(envelope(PII_API, { dataset_id: 'orders', data: [{ name: 'x' }] }));
    expect(timedOut.status).toBe(503);
    await sleep(1_500); // the detector has answered every held request by now
    expect(troubleLines()).toEqual([]);
    const timeoutLogs = logs.lines.filter((line) => line.msg === 'request timed out');
    expect(timeoutLogs.length).toBeGreaterThanOrEqual(3);
    expect(timeoutLogs[0]).toMatchObject({ apiId: PII_API, timeoutMs: TIMEOUT_MS, requestId: expect.any(String) });

    const list = await agent.post('/v2/template/list').send(envelope('api.query.template.list', {}));
    expect(list.status).toBe(200);
    const health = await agent.get('/healthz');
    expect(health.status).toBe(200);
  });

  it('does not cut requests that finish in time', async () => {
    slowDetector.answer = () => ({ status: 200, body: [], delayMs: 50 });
    try {
      const response = await gw.http.post('/v2/data/analyze/pii').send(envelope(PII_API, { dataset_id: 'orders', data: [{ name: 'x' }] }));
      expect({ status: response.status, result: response.body.result }).toEqual({ status: 200, result: [] });
    } finally {
      slowDetector.answer = () => ({ status: 200, body: [], delayMs: 1_200 });
    }
  });

  it('answers a write stuck on a lock in time, and the write, once free, lands whole', async () => {
    const locker = new pg.Client({ connectionString: gw.databaseUrl });
    await locker.connect();
    const name = 'Timed out template';
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE query_templates IN ACCESS EXCLUSIVE MODE');
      const response = await gw.http.post('/v2/template/create').send(envelope(CREATE_API, { template_name: name, query_type: 'sql', query: SQL_QUERY }));
      expect({ status: response.status, code: response.body.error?.code, id: response.body.id }).toEqual({ status: 503, code: 'REQUEST_TIMEOUT', id: CREATE_API });
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    // The create was waiting, not cancelled: it completes once the lock goes, as the message warned.
    let rows: { template_name: string; query: string }[] = [];
    for (let attempt = 0; attempt < 50 && rows.length === 0; attempt += 1) {
      rows = (await gw.sql<{ template_name: string; query: string }>('SELECT template_name, query FROM query_templates WHERE template_id = $1', ['timed_out_template'])).rows;
      if (rows.length === 0) await sleep(50);
    }
    expect(rows).toEqual([{ template_name: name, query: SQL_QUERY }]);
    const read = await gw.http.get('/v2/template/read/timed_out_template');
    expect(read.status).toBe(200);
    expect(troubleLines()).toEqual([]);
  });
});
