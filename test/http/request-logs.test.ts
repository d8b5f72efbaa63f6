// Structured request logs (pino): one line per request with its id, method, route (API id or
// operation), status and duration; every other line written during the request carries the same
// id, whichever logger wrote it; credentials never reach a line.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope, SQL_QUERY } from '../support/api.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { lineCollector, type Line } from '../support/log-lines.js';
import { createLogger } from '../../src/logger.js';
import { enterRequestScope } from '../../src/request-scope.js';

let gw: TestGateway;
const collected = lineCollector();
beforeAll(async () => {
  gw = await startTestGateway({}, { logStream: collected.stream, logLevel: 'debug' });
});
afterAll(async () => {
  await gw?.stop();
});

/** Sends one request and returns every line written from its start until its own request line. */
async function linesOf(send: () => Promise<unknown>, requestId: string): Promise<Line[]> {
  const from = collected.lines.length;
  await send();
  // The request line is written when the response has finished; give the stream a moment.
  for (let i = 0; i < 50 && !collected.lines.slice(from).some((line) => line.msg?.startsWith('request ') && line.requestId === requestId); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return collected.lines.slice(from);
}

describe('request logs', () => {
  const cases: [string, string, (id: string) => Promise<unknown>, Line][] = [
    [
      'a REST call',
      'log-rest-ok',
      (id) =>
        gw.http
          .post('/v2/template/create')
          .set('x-request-id', id)
          .send(envelope('api.query.template.create', { template_name: 'Log probe', query_type: 'sql', query: SQL_QUERY })),
      { method: 'POST', path: '/v2/template/create', transport: 'rest', operation: 'api.query.template.create', status: 200 },
    ],
    ['a REST failure', 'log-rest-404', (id) => gw.http.get('/v2/template/read/nothing_here').set('x-request-id', id), { transport: 'rest', operation: 'api.query.template.read', status: 404 }],
    [
      'a GraphQL operation',
      'log-graphql-ok',
      (id) => gw.http.post('/graphql').set('x-request-id', id).send({ query: 'query LogProbe { templates(first: 1) { nodes { id } } }' }),
      { method: 'POST', path: '/graphql', transport: 'graphql', operation: 'LogProbe', status: 200 },
    ],
    [
      'a GraphQL mutation that fails',
      'log-graphql-fail',
      (id) => gw.http.post('/graphql').set('x-request-id', id).send({ query: 'mutation LogDelete { deleteTemplate(id: "nothing_here") { message } }' }),
      { transport: 'graphql', operation: 'LogDelete', status: 200 },
    ],
    [
      'an unmatched route',
      'log-unmatched',
      (id) => gw.http.get('/v2/nowhere?token=secret-value').set('x-request-id', id),
      { transport: 'http', operation: 'unmatched', status: 404, path: '/v2/nowhere' },
    ],
  ];

  it.each(cases)('writes one line for %s with its id, method, route, status and duration', async (_label, requestId, send, expected) => {
    const lines = await linesOf(() => send(requestId), requestId);
    const requestLines = lines.filter((line) => line.msg === 'request completed' || line.msg === 'request failed');
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ requestId, ...expected });
    expect(typeof requestLines[0]!.durationMs).toBe('number');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect([line.msg, line.requestId]).toEqual([line.msg, requestId]);
  });

  it('uses a generated id, echoed in x-request-id, when the caller sends none (or an unusable one)', async () => {
    const from = collected.lines.length;
    const response = await gw.http.get('/healthz').set('x-request-id', 'not an id!');
    const id = response.headers['x-request-id'] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(collected.lines.slice(from).find((line) => line.msg === 'request completed')).toMatchObject({ requestId: id, operation: 'healthz' });
  });

  it('never logs the query string or request headers', () => {
    const text = collected.lines.map((line) => JSON.stringify(line)).join('\n');
    expect(text).not.toContain('secret-value');
    expect(text).not.toContain('x-request-id');
  });
});

describe('the logger', () => {
  function capture(): { logger: ReturnType<typeof createLogger>; raw: string[] } {
    const raw: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        raw.push(...chunk.toString().split('\n').filter(Boolean));
        callback();
      },
    });
    return { logger: createLogger('info', stream), raw };
  }

  it('puts the request id on lines of the root logger written during a request, once', async () => {
    const { logger, raw } = capture();
    // As for a request: the scope is entered in a callback of its own and lasts through its awaits.
    await new Promise<void>((done) => {
      setImmediate(() => {
        enterRequestScope({ requestId: 'scope-1' });
        void new Promise((resolve) => setTimeout(resolve, 1)).then(() => {
          logger.info('from the root logger');
          logger.child({ requestId: 'scope-1' }).info('from a request child');
          done();
        });
      });
    });
    logger.info('outside any request');
    expect(raw.map((line) => JSON.parse(line).requestId)).toEqual(['scope-1', 'scope-1', undefined]);
    for (const line of raw) expect(line.match(/"requestId"/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('redacts credentials by name', () => {
    const { logger, raw } = capture();
    logger.info({ password: 'p1', token: 'tok', config: { secret: 's3', apiKey: 'k', url: 'fine' }, req: { headers: { authorization: 'Bearer x', cookie: 'sid=1' } } }, 'with secrets');
    const line = raw.join('');
    for (const secret of ['p1', '"tok"', 's3', '"k"', 'Bearer x', 'sid=1']) expect(line).not.toContain(secret);
    expect(line).toContain('fine');
  });
});
