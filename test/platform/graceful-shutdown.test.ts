// SIGTERM (issue 10): the gateway stops taking connections at once, answers the requests already in
// flight with their real results, closes its clients and exits 0. Runs the gateway as an operator
// does, as a child process, with a PII detector that answers slowly so requests are surely in flight.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { createTestDatabase } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';

const DETECTOR_DELAY_MS = 1_500;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let detector: HttpStub;
let child: ChildGateway | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  detector = await startHttpStub();
  detector.answer = () => ({ status: 200, body: [{ entity_type: 'EMAIL_ADDRESS', start: 0, end: 11, score: 0.9 }], delayMs: DETECTOR_DELAY_MS });
});
afterAll(async () => {
  if (child && child.process.exitCode === null) child.process.kill('SIGKILL');
  await detector?.close();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SIGTERM', () => {
  it('drains requests in flight, refuses new connections, then exits 0 with its clients closed', async () => {
    child = await startChildGateway(database.url, { PII_SERVICE_URL: detector.url, LOG_LEVEL: 'info' });
    const { url } = child;
    const analyze = (msgid: string) =>
      fetch(`${url}/v2/data/analyze/pii`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope('api.data.analyze.pii', { dataset_id: 'orders', data: [{ email: 'a@b.example' }] }, msgid)),
      });
    const viaGraphql = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query Drain($r: [JSON!]!) { analyzePii(datasetId: "orders", records: $r) { field type } }', variables: { r: [{ email: 'a@b.example' }] } }),
    });
    const viaRest = analyze('in-flight');
    for (let i = 0; i < 100 && detector.requests.length < 2; i += 1) await sleep(20);
    expect(detector.requests.length).toBe(2);

    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    await sleep(200);
    // Closed for new connections while the two requests are still running.
    const late = await analyze('too-late').then(
      (response) => response.status,
      (error: Error) => (error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message,
    );
    expect(late).toBe('ECONNREFUSED');

    const [rest, graphql] = await Promise.all([viaRest, viaGraphql]).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${child!.output()}`);
    });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({ params: { status: 'SUCCESS', msgid: 'in-flight' }, result: [expect.objectContaining({ field: 'email' })] });
    expect(graphql.status).toBe(200);
    expect(await graphql.json()).toEqual({ data: { analyzePii: [expect.objectContaining({ field: 'email' })] }, extensions: { cost: expect.any(Number) } });

    expect(await exited(child.process)).toBe(0);
    const tookMs = Date.now() - signalledAt;
    expect(tookMs).toBeLessThan(DETECTOR_DELAY_MS + 3_000);
    const output = child.output();
    expect(output).toContain('SIGTERM received: finishing requests and stopping');
    expect(output).toContain('stopped: requests in flight answered; event bus, object store and database closed');
    expect(output).not.toMatch(/"level":(50|60)/);
  }, 30_000);
});
