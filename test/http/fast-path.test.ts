// The fast path (src/http/fast-path.ts) answers kept reads before express with the same guarantees
// as the normal path. Two gateways share one database: one with the fast path (the default), one
// with FAST_PATH=false, where every request goes through express. Each guarantee sends the same
// request to both and compares status, headers (but the date and a generated request id) and body
// (but the envelope's ts and resmsgid); gateway_fast_path_answers_total says which answers the fast
// path served.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import supertest, { type Response } from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startGateway, type Gateway } from '../../src/server.js';
import { JWT_ENV, token } from '../support/auth.js';
import { seedDataset } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { lineCollector, type Line } from '../support/log-lines.js';
import { seedTemplate } from '../support/templates.js';

const ORIGIN = 'https://console.example';
// A small budget per caller (refilled once in 100 s), so the rate limit is reached in a test; each
// gateway keeps its own (RATE_LIMIT_STORE=memory).
const ENV = { ...JWT_ENV, RATE_LIMIT_RPS: '0.01', RATE_LIMIT_BURST: '4', RATE_LIMIT_STORE: 'memory', CORS_ALLOWED_ORIGINS: ORIGIN };

let fast: TestGateway;
let normal: Gateway;
let normalHttp: ReturnType<typeof supertest>;
const fastLogs = lineCollector();
const normalLogs = lineCollector();
let callers = 0;

/** A token for a caller of its own (its own rate-limit budget). */
const bearer = async (roles: string[] = ['admin']) => `Bearer ${await token({ sub: `caller-${(callers += 1)}`, roles })}`;

/** The gateway with credentials, for the seed helpers (a caller of its own per request). */
async function seeding(gw: TestGateway): Promise<TestGateway> {
  const tokens = await Promise.all(Array.from({ length: 12 }, () => bearer()));
  let next = 0;
  const authorised = (test: supertest.Test) => test.set('authorization', tokens[next++ % tokens.length]!);
  const http = { get: (path: string) => authorised(gw.http.get(path)), post: (path: string) => authorised(gw.http.post(path)) };
  return { ...gw, http: http as unknown as TestGateway['http'] };
}

const DATASET = 'fast-path-dataset';
let templateId: string;
let connectorId: string;

beforeAll(async () => {
  fast = await startTestGateway(ENV, { logStream: fastLogs.stream });
  const config = loadConfig({ DATABASE_URL: fast.databaseUrl, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', DB_POOL_MAX: '4', METRICS_SAMPLE_INTERVAL_SECONDS: '0', ...ENV, FAST_PATH: 'false' });
  normal = await startGateway(config, createLogger('info', normalLogs.stream));
  normalHttp = supertest(normal.url);
  const seeder = await seeding(fast);
  await seedDataset(seeder, DATASET, 'Live');
  templateId = await seedTemplate(seeder, 'Fast path template');
  const connectors = await fast.sql<{ id: string }>(`SELECT id FROM connector_registry WHERE status = 'Live' ORDER BY id LIMIT 1`);
  connectorId = connectors.rows[0]!.id;
}, 120_000);

afterAll(async () => {
  await normal?.stop();
  await fast?.stop();
});

interface Read {
  name: string;
  /** `msgid`: a REST list's envelope msgid, which its answer echoes (the warm-up sends another one than the compared request). */
  send(http: ReturnType<typeof supertest>, authorization: string | undefined, headers?: Record<string, string>, msgid?: string): supertest.Test;
  /** The same request's answer may be refused with 304 when the caller holds its ETag (GET). */
  conditional: boolean;
  transport: 'rest' | 'graphql';
  method: 'GET' | 'POST';
}

const withHeaders = (test: supertest.Test, authorization: string | undefined, headers: Record<string, string>) => {
  if (authorization) test.set('authorization', authorization);
  for (const [name, value] of Object.entries(headers)) test.set(name, value);
  return test;
};

const restRead = (name: string, path: () => string): Read => ({
  name,
  conditional: true,
  transport: 'rest',
  method: 'GET',
  send: (http, authorization, headers = {}) => withHeaders(http.get(path()), authorization, headers),
});

/** A REST list's envelope (contract: id, ver, ts, params.msgid, request). */
const listEnvelope = (apiId: string, request: Record<string, unknown>, msgid: string) => ({ id: apiId, ver: 'v2', ts: '2026-11-28T05:00:00+00:00', params: { msgid }, request });

/** A REST list: a POST whose JSON body (the envelope) says what to list. */
const restList = (name: string, path: string, apiId: string, request: Record<string, unknown>): Read => ({
  name,
  conditional: false,
  transport: 'rest',
  method: 'POST',
  send: (http, authorization, headers = {}, msgid = 'compared-msgid') =>
    withHeaders(http.post(path).set('content-type', 'application/json'), authorization, headers).send(JSON.stringify(listEnvelope(apiId, request, msgid))),
});

const graphqlRead = (name: string, query: string, variables: () => Record<string, unknown>): Read => ({
  name,
  conditional: false,
  transport: 'graphql',
  method: 'POST',
  send: (http, authorization, headers = {}) =>
    withHeaders(http.post('/graphql').set('content-type', 'application/json'), authorization, headers).send(JSON.stringify({ query, variables: variables() })),
});

const READS: Read[] = [
  restRead('REST dataset read', () => `/v2/datasets/read/${DATASET}`),
  restRead('REST template read', () => `/v2/template/read/${templateId}`),
  restRead('REST connector read', () => `/v2/connectors/read/${connectorId}`),
  graphqlRead('GraphQL dataset read', 'query FastDataset($id: ID!) { dataset(id: $id) { datasetId name status version } }', () => ({ id: DATASET })),
  graphqlRead('GraphQL template read', 'query FastTemplate($id: ID!) { template(id: $id) { templateId name query } }', () => ({ id: templateId })),
  restList('REST dataset list', '/v2/datasets/list', 'api.datasets.list', { filters: { status: 'Live' } }),
  restList('REST template list', '/v2/template/list', 'api.query.template.list', {}),
  restList('REST connector list', '/v2/connectors/list', 'api.connectors.list', { filters: { status: ['Live'] } }),
  graphqlRead(
    'GraphQL connector list',
    'query FastConnectors($where: ConnectorWhere) { connectors(first: 10, where: $where) { totalCount nodes { connectorVersionId connectorId name description status } } }',
    () => ({ where: { status: { in: ['LIVE'] } } }),
  ),
];

async function fastAnswers(): Promise<number> {
  const text = (await fast.http.get('/metrics')).text;
  return [...text.matchAll(/^gateway_fast_path_answers_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** What must be equal: status, headers but the per-request ones, body but the envelope's per-request parts. */
function comparable(response: Response, keepRequestId: boolean) {
  const { date: _date, 'x-request-id': requestId, etag, ...headers } = response.headers as Record<string, string>;
  // A failure's body carries its own ts and resmsgid, and so its ETag (express tags every body it sends).
  if (response.status < 400 && etag !== undefined) headers.etag = etag;
  let body: unknown = response.text;
  if (response.headers['content-type']?.startsWith('application/json') && response.text) {
    const parsed = JSON.parse(response.text) as { ts?: string; params?: { resmsgid?: string } };
    if (parsed.ts !== undefined) parsed.ts = '<ts>';
    if (parsed.params?.resmsgid !== undefined) parsed.params.resmsgid = '<resmsgid>';
    body = parsed;
  }
  return { status: response.status, headers, body, ...(keepRequestId ? { requestId } : {}) };
}

/**
 * Sends `read` to both gateways (after one answer from each has put it in the cache) and expects
 * the same answer; `servedFast`: whether the fast path must have answered it.
 */
async function expectSameAnswer(read: Read, authorization: string | undefined, headers: Record<string, string>, servedFast: boolean): Promise<{ fast: Response; normal: Response }> {
  let fastResponse: Response | undefined;
  // A kept answer may be dropped between the warm-up and the request (an announced change): then sent again.
  for (let attempt = 0; attempt < 3 && !fastResponse; attempt += 1) {
    const warm = await bearer();
    expect((await read.send(fast.http, warm, {}, 'warm-up-msgid')).status).toBe(200);
    expect((await read.send(normalHttp, warm, {}, 'warm-up-msgid')).status).toBe(200);
    const before = await fastAnswers();
    const response = await read.send(fast.http, authorization, headers);
    const served = (await fastAnswers()) - before;
    if (served === (servedFast ? 1 : 0) || attempt === 2) {
      expect(served).toBe(servedFast ? 1 : 0);
      fastResponse = response;
    }
  }
  const normalResponse = await read.send(normalHttp, authorization, headers);
  expect(comparable(fastResponse!, 'x-request-id' in headers)).toEqual(comparable(normalResponse, 'x-request-id' in headers));
  return { fast: fastResponse!, normal: normalResponse };
}

describe.each(READS)('$name on the fast path and the normal path', (read) => {
  it('answers the same status, headers and body, with the security headers and a request id', async () => {
    const { fast: answer, normal } = await expectSameAnswer(read, await bearer(), {}, true);
    expect(answer.status).toBe(200);
    // A REST answer ends its line, kept (the fast path writes the stored bytes) or executed.
    if (read.transport === 'rest') expect([answer.text.slice(-2), normal.text.slice(-2)]).toEqual(['}\n', '}\n']);
    expect(answer.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'content-type': 'application/json; charset=utf-8' });
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.etag).toMatch(/^W\//);
    // A REST list's kept answer echoes each request's msgid, not the one of the request that kept it.
    if (read.transport === 'rest' && read.method === 'POST') expect(answer.body).toMatchObject({ params: { msgid: 'compared-msgid' }, responseCode: 'OK' });
  });

  it("echoes the caller's request id", async () => {
    const { fast: answer } = await expectSameAnswer(read, await bearer(), { 'x-request-id': 'caller-id-42' }, true);
    expect(answer.headers['x-request-id']).toBe('caller-id-42');
  });

  it('answers 304 without a body when the caller holds the ETag (GET), the answer itself otherwise', async () => {
    const etag = (await read.send(fast.http, await bearer())).headers.etag!;
    const { fast: answer } = await expectSameAnswer(read, await bearer(), { 'if-none-match': etag }, true);
    expect(answer.status).toBe(read.conditional ? 304 : 200);
    if (read.conditional) expect(answer.text).toBe('');
  });

  it('gives an allowed origin the CORS headers, and refuses a foreign one with 403', async () => {
    const { fast: allowed } = await expectSameAnswer(read, await bearer(), { origin: ORIGIN }, true);
    expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, 'access-control-allow-credentials': 'true', vary: 'Origin' });
    const { fast: refused } = await expectSameAnswer(read, await bearer(), { origin: 'https://elsewhere.example' }, false);
    expect(refused.status).toBe(403);
  });

  it('refuses a caller without credentials, with a bad token or without the permission, as the normal path does', async () => {
    await expectSameAnswer(read, undefined, {}, false);
    await expectSameAnswer(read, 'Bearer not-a-token', {}, false);
    const { fast: forbidden } = await expectSameAnswer(read, await bearer(['ingestor']), {}, false);
    if (read.transport === 'rest') expect(forbidden.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    else expect(forbidden.body).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
  });

  it('charges the rate limit once per answer and refuses a spent budget with 429 and Retry-After', async () => {
    const caller = await bearer();
    const warm = await bearer();
    const before = await fastAnswers();
    const answers = { fast: [] as Response[], normal: [] as Response[] };
    // The budget is 4 per caller on each gateway (each keeps its own): 4 answers, then refusals.
    for (const [gateway, http] of [
      ['fast', fast.http],
      ['normal', normalHttp],
    ] as const) {
      expect((await read.send(http, warm)).status).toBe(200);
      for (let index = 0; index < 5; index += 1) answers[gateway].push(await read.send(http, caller));
    }
    expect(answers.fast.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
    expect((await fastAnswers()) - before).toBeGreaterThanOrEqual(3);
    answers.fast.forEach((answer, index) => expect(comparable(answer, false)).toEqual(comparable(answers.normal[index]!, false)));
    expect(Number(answers.fast[4]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('REST lists: the body says what is listed, and anything unusual takes the normal path', () => {
  const connectorList = READS.find((read) => read.name === 'REST connector list')!;
  const post = (http: ReturnType<typeof supertest>, authorization: string, contentType: string, body: string) =>
    http.post('/v2/connectors/list').set('authorization', authorization).set('content-type', contentType).send(body);
  const envelopeText = (request: Record<string, unknown>) => JSON.stringify(listEnvelope('api.connectors.list', request, 'odd-body'));

  it('keeps one answer per body: another filter is another kept answer', async () => {
    const byCategory = restList('REST connector list by category', '/v2/connectors/list', 'api.connectors.list', { filters: { category: ['Database'] } });
    const { fast: filtered } = await expectSameAnswer(byCategory, await bearer(), {}, true);
    const { fast: all } = await expectSameAnswer(connectorList, await bearer(), {}, true);
    const ids = (answer: Response) => (answer.body as { result: { data: { id: string }[] } }).result.data.map((connector) => connector.id);
    expect(ids(filtered).length).toBeLessThan(ids(all).length);
    expect(ids(all)).toEqual(expect.arrayContaining(ids(filtered)));
  });

  it('serves a list asked without a body (which the route reads as {}), as the normal path answers it', async () => {
    const bodyless: Read = {
      name: 'REST template list without a body',
      conditional: false,
      transport: 'rest',
      method: 'POST',
      send: (http, authorization, headers = {}) => withHeaders(http.post('/v2/template/list'), authorization, headers),
    };
    const { fast: answer } = await expectSameAnswer(bodyless, await bearer(), {}, true);
    expect(answer.body).toMatchObject({ id: 'api.query.template.list', responseCode: 'OK' });
  });

  const envelopeWith = (changes: Record<string, unknown>) => JSON.stringify({ ...listEnvelope('api.connectors.list', { filters: { status: ['Live'] } }, 'odd-body'), ...changes });

  it('serves a repeat with its own ts and msgid from the kept answer, and echoes its msgid', async () => {
    const warm = await bearer();
    expect((await connectorList.send(fast.http, warm)).status).toBe(200);
    const before = await fastAnswers();
    const answer = await post(fast.http, await bearer(), 'application/json', envelopeWith({ ts: '2026-11-28T11:00:00.123Z', params: { msgid: 'a-new-msgid' } }));
    expect((await fastAnswers()) - before).toBe(1);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ params: { msgid: 'a-new-msgid' }, responseCode: 'OK' });
  });

  it.each([
    ['a body its schema refuses (an unknown filter)', 'application/json', envelopeText({ filters: { colour: ['red'] } }), 400],
    // A kept list's repeats are keyed without their ts and params, which are still checked each time.
    ['an envelope whose ts is not text', 'application/json', envelopeWith({ ts: 1764327600000 }), 400],
    ['an envelope whose ts is longer than the envelope allows', 'application/json', envelopeWith({ ts: '2'.repeat(65) }), 400],
    ['an envelope whose params carry an unknown member', 'application/json', envelopeWith({ params: { msgid: 'odd-body', sender: 'x' } }), 400],
    ['an envelope whose msgid is not text', 'application/json', envelopeWith({ params: { msgid: 42 } }), 400],
    ['an envelope whose msgid is longer than the envelope allows', 'application/json', envelopeWith({ params: { msgid: 'm'.repeat(257) } }), 400],
    ['an envelope with a member the envelope does not have', 'application/json', envelopeWith({ sender: 'x' }), 400],
    ['a body that is not JSON', 'application/json', '{"id": "api.connectors.list",', 400],
    ['a body that is not said to be JSON', 'text/plain', envelopeText({ filters: { status: ['Live'] } }), 400],
    ['a charset express refuses', 'application/json; charset=latin1', envelopeText({ filters: { status: ['Live'] } }), 400],
    ['a body larger than the fast path reads ahead', 'application/json', envelopeText({ filters: { status: ['Live'] } }) + ' '.repeat(20_000), 200],
  ])('%s: answered by the normal path, as the gateway without the fast path answers it', async (_what, contentType, body, status) => {
    // The same list, kept, with an ordinary body first.
    const warm = await bearer();
    expect((await connectorList.send(fast.http, warm)).status).toBe(200);
    const caller = await bearer();
    const before = await fastAnswers();
    const answer = await post(fast.http, caller, contentType, body);
    expect((await fastAnswers()) - before).toBe(0);
    expect(answer.status).toBe(status);
    expect(comparable(answer, false)).toEqual(comparable(await post(normalHttp, caller, contentType, body), false));
  });
});

describe('many requests at once: answers written together at the end of a turn, each to its own request', () => {
  it('answers every request its own answer, request id and msgid, as the normal path answers it', async () => {
    const each = await Promise.all(
      READS.flatMap((read) =>
        Array.from({ length: 6 }, async (_, index) => {
          const id = `together-${read.name.replaceAll(' ', '-')}-${index}`;
          return { read, id, caller: await bearer() };
        }),
      ),
    );
    // Each read kept first (a warm-up of its own), so that every request below is one the fast path serves.
    for (const read of READS) expect((await read.send(fast.http, await bearer(), {}, 'warm-up-msgid')).status).toBe(200);
    const before = await fastAnswers();
    const answers = await Promise.all(each.map(({ read, id, caller }) => read.send(fast.http, caller, { 'x-request-id': id }, id)));
    expect((await fastAnswers()) - before).toBe(each.length);
    for (const [index, answer] of answers.entries()) {
      const { read, id, caller } = each[index]!;
      expect(answer.status).toBe(200);
      expect(answer.headers['x-request-id']).toBe(id);
      if (read.transport === 'rest' && read.method === 'POST') expect(answer.body).toMatchObject({ params: { msgid: id } });
      expect(comparable(answer, true)).toEqual(comparable(await read.send(normalHttp, caller, { 'x-request-id': id }, id), true));
    }
  });
});

describe('the access log and metrics of a fast-path answer', () => {
  const lineOf = (lines: Line[], requestId: string) => lines.find((line) => line.requestId === requestId && line.msg === 'request completed');

  it.each(READS)('$name: one log line and one request counted, as on the normal path', async (read) => {
    const metricLine = async (http: ReturnType<typeof supertest>) => {
      const text = (await http.get('/metrics')).text;
      const { transport } = read;
      return text.split('\n').filter((line) => line.startsWith(`gateway_http_requests_total{transport="${transport}"`) && line.includes('status_class="2xx"') && line.includes('method="'));
    };
    const total = (lines: string[]) => lines.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    const fastBefore = total(await metricLine(fast.http));
    const normalBefore = total(await metricLine(normalHttp));
    const id = `log-${read.name.replaceAll(' ', '-')}`;
    // Each gateway answers it once uncounted by this comparison (the warm-up), then the compared request.
    await expectSameAnswer(read, await bearer(), { 'x-request-id': id }, true);
    expect(total(await metricLine(fast.http)) - fastBefore).toBe(total(await metricLine(normalHttp)) - normalBefore);
    const fastLine = lineOf(fastLogs.lines, id);
    const normalLine = lineOf(normalLogs.lines, id);
    expect(fastLine).toBeDefined();
    const shown = (line: Line | undefined) => ({ ...line, time: undefined, pid: undefined, hostname: undefined, durationMs: typeof line?.durationMs });
    expect(shown(fastLine)).toEqual(shown(normalLine));
    expect(fastLine).toMatchObject({ method: read.method, status: 200, transport: read.transport });
  });
});

describe('a request the fast path admitted, then handed over to express, pays the rate limit once', () => {
  // A third gateway on the same database whose rate limits are decided in PostgreSQL (the shared
  // store). Holding a lock on its table keeps the fast path's decision waiting beyond the time the
  // fast path waits (1 s); it then hands the request to express, which admits it again.
  let shared: Gateway;
  let sharedHttp: ReturnType<typeof supertest>;
  let lock: pg.Client;

  beforeAll(async () => {
    const config = loadConfig({
      DATABASE_URL: fast.databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      NODE_ENV: 'test',
      DB_POOL_MAX: '4',
      METRICS_SAMPLE_INTERVAL_SECONDS: '0',
      ...ENV,
      RATE_LIMIT_STORE: 'postgres',
    });
    shared = await startGateway(config, createLogger('silent'));
    sharedHttp = supertest(shared.url);
    lock = new pg.Client({ connectionString: fast.databaseUrl });
    await lock.connect();
  }, 60_000);

  afterAll(async () => {
    await lock?.end();
    await shared?.stop();
  });

  const sharedFastAnswers = async () => {
    const text = (await sharedHttp.get('/metrics')).text;
    return [...text.matchAll(/^gateway_fast_path_answers_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
  };

  it.each(READS.filter((read) => ['REST connector list', 'GraphQL template read'].includes(read.name)))(
    '$name',
    async (read) => {
      expect((await read.send(sharedHttp, await bearer())).status).toBe(200);
      const caller = await bearer();
      const before = await sharedFastAnswers();
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE rate_limit_buckets IN EXCLUSIVE MODE');
      const held = read.send(sharedHttp, caller).then((response) => response);
      // The fast path's decision is waiting on the lock; past the fast path's wait, the request is express's.
      for (let waiting = 0; waiting === 0;) {
        const found = await lock.query<{ count: string }>(`SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'rate_limit_buckets'::regclass`);
        waiting = Number(found.rows[0]!.count);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await lock.query('COMMIT');
      expect((await held).status).toBe(200);
      // Answered by express (the fast path handed it over), not by the fast path.
      expect((await sharedFastAnswers()) - before).toBe(0);
      // The budget is 4: the held request paid one token, so three more answers, then a refusal.
      const after: number[] = [];
      for (let index = 0; index < 4; index += 1) after.push((await read.send(sharedHttp, caller)).status);
      expect(after).toEqual([200, 200, 200, 429]);
    },
    30_000,
  );
});

describe('a change to a connector shows on the next read of either path (no stale kept answer)', () => {
  /** The description the answer gives the connector `connectorId`, whichever read it is. */
  const descriptionIn = (response: Response): unknown => {
    const body = response.body as {
      result?: { id?: string; description?: unknown; data?: { id: string; description?: unknown }[] };
      data?: { connectors: { nodes: { connectorVersionId: string; description?: unknown }[] } };
    };
    if (body.data) return body.data.connectors.nodes.find((node) => node.connectorVersionId === connectorId)?.description;
    if (body.result?.data) return body.result.data.find((item) => item.id === connectorId)?.description;
    return body.result?.id === connectorId ? body.result.description : undefined;
  };

  it.each(READS.filter((read) => read.name.includes('connector')))('$name', async (read) => {
    // Kept on both gateways, and served by the fast path.
    await expectSameAnswer(read, await bearer(), {}, true);
    const description = `Changed under ${read.name}`;
    // Another copy's write, as the database announces it to both gateways.
    await fast.sql('UPDATE connector_registry SET description = $1, updated_date = now() WHERE id = $2', [description, connectorId]);
    await normal.database.changes.sync();
    const before = await fastAnswers();
    const changed = await read.send(fast.http, await bearer());
    expect((await fastAnswers()) - before).toBe(0);
    expect(changed.status).toBe(200);
    expect(descriptionIn(changed)).toBe(description);
    expect(descriptionIn(await read.send(normalHttp, await bearer()))).toBe(description);
    // The new answer is kept in turn and served by the fast path, the same as the normal path's.
    const { fast: again } = await expectSameAnswer(read, await bearer(), {}, true);
    expect(descriptionIn(again)).toBe(description);
  });
});

describe('first reads of one URL at once: one runs the read, the others wait for its kept answer', () => {
  it('answers 20 concurrent first reads of a dataset with one run of the operation, each caller admitted on its own', async () => {
    const id = 'fast-path-first-reads';
    await seedDataset(await seeding(fast), id, 'Live');
    // The seed's own announcements are in: nothing they say can keep the first read from being kept.
    await fast.gateway.database.changes.sync();
    const callers = await Promise.all(Array.from({ length: 20 }, () => bearer()));
    const before = await fastAnswers();
    const answers = await Promise.all(callers.map((caller) => fast.http.get(`/v2/datasets/read/${id}`).set('authorization', caller)));
    // Without the wait each request that came while the first ran found nothing kept and ran the read itself.
    expect((await fastAnswers()) - before).toBe(19);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((answer) => JSON.stringify((answer.body as { result: unknown }).result))).size).toBe(1);
    expect((answers[0]!.body as { result: { dataset_id: string } }).result.dataset_id).toBe(id);
  });

  it('refuses a waiting caller without the permission, as the normal path does', async () => {
    const id = 'fast-path-first-reads-refused';
    await seedDataset(await seeding(fast), id, 'Live');
    await fast.gateway.database.changes.sync();
    const [allowed, refused] = await Promise.all([
      fast.http.get(`/v2/datasets/read/${id}`).set('authorization', await bearer()),
      fast.http.get(`/v2/datasets/read/${id}`).set('authorization', await bearer(['ingestor'])),
    ]);
    expect(allowed.status).toBe(200);
    expect(refused.status).toBe(403);
  });
});

describe("a dataset read is kept until a change to that dataset, not another one's", () => {
  it.each(READS.filter((read) => read.name.endsWith('dataset read')))('$name', async (read) => {
    const other = 'fast-path-other-dataset';
    await seedDataset(await seeding(fast), other, 'Live');
    await expectSameAnswer(read, await bearer(), {}, true);
    // Another dataset changes (another copy's write, as the database announces it): the answer stays kept.
    await fast.sql("UPDATE datasets SET name = 'Renamed other' WHERE dataset_id = $1", [other]);
    await fast.gateway.database.changes.sync();
    let before = await fastAnswers();
    expect((await read.send(fast.http, await bearer())).status).toBe(200);
    expect((await fastAnswers()) - before).toBe(1);
    // This dataset changes: the next read runs again and shows it.
    const name = `Renamed under ${read.name}`;
    await fast.sql('UPDATE datasets SET name = $1 WHERE dataset_id = $2', [name, DATASET]);
    await fast.gateway.database.changes.sync();
    before = await fastAnswers();
    const changed = await read.send(fast.http, await bearer());
    expect((await fastAnswers()) - before).toBe(0);
    const body = changed.body as { result?: { name?: string }; data?: { dataset?: { name?: string } } };
    expect(body.result?.name ?? body.data?.dataset?.name).toBe(name);
  });
});
