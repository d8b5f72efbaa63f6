// SHUTDOWN_DRAIN_SECONDS: on SIGTERM a copy behind a balancer says at once that it is not ready, keeps
// answering whatever still reaches it for the drain period (the balancer's health checks need that
// long to take it out), then closes its socket, finishes what is in flight and exits 0.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { envelope } from '../support/api.js';
import { exited, startChildGateway, type ChildGateway } from '../support/child-gateway.js';
import { createTestDatabase } from '../support/gateway.js';
import { startHttpStub, type HttpStub } from '../support/http-stub.js';

const DRAIN_SECONDS = 2;
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
const outcome = (request: Promise<Response>) =>
  request.then(
    (response) => response.status,
    (error: Error) => (error.cause as NodeJS.ErrnoException | undefined)?.code ?? error.message,
  );

describe('SIGTERM with SHUTDOWN_DRAIN_SECONDS', () => {
  it('answers /readyz 503 at once, keeps serving new requests for the drain, then finishes those in flight and exits 0', async () => {
    child = await startChildGateway(database.url, { PII_SERVICE_URL: detector.url, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS) });
    const { url } = child;
    const analyze = (msgid: string) =>
      fetch(`${url}/v2/data/analyze/pii`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope('api.data.analyze.pii', { dataset_id: 'orders', data: [{ email: 'a@b.example' }] }, msgid)),
      });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);

    const signalledAt = Date.now();
    child.process.kill('SIGTERM');
    await sleep(200);
    const readiness = await fetch(`${url}/readyz`);
    expect({ status: readiness.status, body: await readiness.json() }).toMatchObject({ status: 503, body: { status: 'draining' } });
    // Still served while draining, each answer asking the client to reconnect (elsewhere).
    const listed = await fetch(`${url}/v2/datasets/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope('api.datasets.list', {})) });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('connection')).toBe('close');
    // Started late in the drain, it runs past the socket's closing and still gets its real answer.
    await sleep(DRAIN_SECONDS * 1000 - 800);
    const inFlight = analyze('late-in-drain');
    await sleep(900);
    expect(await outcome(analyze('after-drain'))).toBe('ECONNREFUSED');
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ params: { status: 'SUCCESS', msgid: 'late-in-drain' }, result: [expect.objectContaining({ field: 'email' })] });

    expect(await exited(child.process)).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_SECONDS * 1000);
    const output = child.output();
    expect(output).toContain(`SIGTERM received: /readyz answers 503 from now; serving ${DRAIN_SECONDS} s more (SHUTDOWN_DRAIN_SECONDS), then finishing requests and stopping`);
    expect(output).not.toMatch(/"level":(50|60)/);
  }, 90_000);
});
